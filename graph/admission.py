"""How many transactions one process has in Neo4j at once, and who goes first when it is full.

With 16 hosts calling on two cores right after a Neo4j restart, thirty-odd transactions shared
the cores at once; each got a sliver, and recalls whose searches happened to be slow on a cold
Neo4j passed the 15 s deadline and failed although Neo4j was up (`bench.cold_start`). A bounded
number in flight lets each transaction finish at full speed while the rest wait their turn in the
process, outside the deadline, which is left to say what it is for: Neo4j not answering.

Waiting is first come, first served, interactive transactions before background ones. A waiter
that has not been let in after `patience_s` goes in anyway, over the limit: a transaction that
opens another inside its own work could otherwise wait for a slot that only it would free.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Final

import anyio

# Transactions in flight per process: enough to keep a few Neo4j cores busy and to overlap the
# round trips, few enough that two cores do not split into slivers.
IN_FLIGHT_LIMIT: Final = 6
ADMISSION_PATIENCE_S: Final = 10.0


@dataclass
class _Waiter:
    let_in: anyio.Event = field(default_factory=anyio.Event)
    # Set by whoever hands this waiter a slot, so a waiter woken just as it stops waiting keeps it.
    admitted: bool = False


class Admission:
    def __init__(self, limit: int = IN_FLIGHT_LIMIT, patience_s: float = ADMISSION_PATIENCE_S) -> None:
        self.limit = limit
        self.patience_s = patience_s
        self._in_flight = 0
        self._interactive: deque[_Waiter] = deque()
        self._background: deque[_Waiter] = deque()

    @asynccontextmanager
    async def slot(self, background: bool) -> AsyncIterator[None]:
        """A place among the transactions in flight, for as long as the block runs."""
        await self._enter(background)
        try:
            yield
        finally:
            self._leave()

    async def _enter(self, background: bool) -> None:
        queue = self._background if background else self._interactive
        ahead = self._interactive or (background and self._background)
        if self._in_flight < self.limit and not ahead:
            self._in_flight += 1
            return
        waiter = _Waiter()
        queue.append(waiter)
        try:
            with anyio.move_on_after(self.patience_s):
                await waiter.let_in.wait()
        except BaseException:
            self._forget(queue, waiter)
            raise
        if not waiter.admitted:
            # Waited long enough: in anyway, over the limit, rather than perhaps forever.
            queue.remove(waiter)
            self._in_flight += 1

    def _forget(self, queue: deque[_Waiter], waiter: _Waiter) -> None:
        """A waiter cancelled while waiting: out of the queue, or its slot passed on."""
        if waiter.admitted:
            self._leave()
        else:
            queue.remove(waiter)

    def _leave(self) -> None:
        waiting = self._interactive or self._background
        if waiting and self._in_flight <= self.limit:
            # The slot passes straight on, so no newcomer can take it before the waiter wakes.
            waiter = waiting.popleft()
            waiter.admitted = True
            waiter.let_in.set()
        else:
            self._in_flight -= 1
