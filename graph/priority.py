"""Interactive work first: what a host waits on goes before what no one is waiting for.

One process serves every host's calls and runs dreaming cycles on the same two cores and the same
Neo4j. Measured right after a Neo4j restart with a cycle asked at once and 16 hosts calling, four
profiles' cycles ran side by side and recall's 99th percentile reached 16.6 s (`bench.cold_start`).
A cycle is background work: its answer can wait, a recall cannot. So:

- A background transaction (every one a cycle opens) starts only when no interactive
  transaction is in flight, or once it has waited `patience_s`, so that a cycle under endless
  load still moves, at one transaction per `patience_s` at worst.
- At most one cycle computes at a time in a process; the others wait their turn (holding their
  profile's lease, whose heartbeat goes on), at most `cycle_patience_s`, since two cycles side by
  side take both cores and finish no sooner than one after the other.

"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Final

import anyio

from graph.admission import Admission

# How long a background transaction waits for a quiet moment before it goes anyway.
BACKGROUND_PATIENCE_S: Final = 1.0
# How long one cycle waits for another's turn before it runs beside it: a cycle waiting on a
# model (the host's, or an endpoint that stalls) holds its turn without computing, and must not
# hold every other profile's cycle for as long.
CYCLE_TURN_PATIENCE_S: Final = 30.0


class Priority:
    """The process's account of interactive work in flight and of the cycle computing now."""

    def __init__(
        self, patience_s: float = BACKGROUND_PATIENCE_S, cycle_patience_s: float = CYCLE_TURN_PATIENCE_S
    ) -> None:
        self.patience_s = patience_s
        self.cycle_patience_s = cycle_patience_s
        self._interactive = 0
        self._cycles = 0
        self.admission = Admission()
        # Who waits for a quiet moment, or for the cycle turn: each waiter's own event, made in
        # its own event loop (one store may serve one loop after another, as the tests do).
        self._awaiting_quiet: set[anyio.Event] = set()
        self._awaiting_turn: set[anyio.Event] = set()

    @contextmanager
    def interactive(self) -> Iterator[None]:
        """Count a transaction someone waits on for as long as it runs."""
        self._interactive += 1
        try:
            yield
        finally:
            self._interactive -= 1
            if self._interactive == 0:
                _wake(self._awaiting_quiet)

    async def background_turn(self) -> None:
        """Wait until no interactive transaction runs, at most `patience_s`."""
        await _wait_until(lambda: self._interactive == 0, self._awaiting_quiet, self.patience_s)

    @asynccontextmanager
    async def cycle_turn(self) -> AsyncIterator[None]:
        """Hold the process's cycle turn (after waiting for it) while a cycle computes."""
        await _wait_until(lambda: self._cycles == 0, self._awaiting_turn, self.cycle_patience_s)
        # No await between the check and the count: on one event loop nothing runs in between.
        self._cycles += 1
        try:
            yield
        finally:
            self._cycles -= 1
            _wake(self._awaiting_turn)


def _wake(waiting: set[anyio.Event]) -> None:
    for event in waiting:
        event.set()


async def _wait_until(ready: Callable[[], bool], waiting: set[anyio.Event], patience_s: float) -> None:
    """Wait until `ready()`, woken by whoever may have made it so, or until `patience_s` passed."""
    with anyio.move_on_after(patience_s):
        while not ready():
            woken = anyio.Event()
            waiting.add(woken)
            try:
                await woken.wait()
            finally:
                waiting.discard(woken)
