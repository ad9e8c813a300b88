"""Group commit: writes of one profile that arrive together share one transaction.

Most of a small write's cost is not its queries: of a `remember` without vectors (7.6 ms at
the median on two cores) the queries took 2.0 ms, and opening and committing the transaction
(which refreshes the fulltext and vector indexes it touched) the rest. So instead of running
side by side, a profile's grouped writes in this process run one transaction at a time: the
writes that arrive while one runs queue up, and the next transaction runs all of them in order,
as if one after another, and commits once. A lone write runs alone, with no added wait. On two
cores bulk `remember` went from 49 to 93 per second (README, "Semantic memory").

A group's queries run one after another, so under load a profile's writes go as fast as one
`remember`'s round trips: that is why its fragment check and create are one query, and a claim's
lookup, creation or restatement and its support links another (5.9 round trips a remember down
to 3.1 took bulk at 2,000 memories from about 130 to about 158 per second).

Each write still succeeds or fails on its own: when a group fails because of one of its writes
(bad input found inside the transaction, a constraint race with another process), the group was
rolled back whole, and every write of it runs again alone, so each caller gets its own result or
its own error. A failure of the database itself (unreachable, past its deadline, still busy
after retries) is every member's, and is given to all of them at once rather than waited out
again one by one.

The queues are per process and keyed by profile id, and a group runs in a transaction of that
profile only, so writes of two profiles never share one.

A write's deadline (`NEO4J_TIMEOUT`) starts when it is queued, not when its group starts: a
write that waits behind a group stalled on Neo4j fails when its own time is up, without a
transaction of its own, and a group gets the time its most pressed member has left. Before,
with `NEO4J_TIMEOUT=5` and Neo4j stopped, writes queued behind a stalled group failed after
10 s (the group's 5, then their own 5).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Final, Generic, Protocol, TypeVar

import anyio

from graph.errors import DATABASE_FAILURES, GraphTimeoutError

T = TypeVar("T")
Tx = TypeVar("Tx")
Tx_co = TypeVar("Tx_co", covariant=True)
Work = Callable[[Tx], Awaitable[T]]


class Writer(Protocol[Tx_co]):
    """One profile's access to the database (`graph.access.ProfileGraph`, which owns the
    queues): this module needs only its profile and its write transactions."""

    @property
    def profile_id(self) -> str: ...

    async def write(self, work: Callable[[Tx_co], Awaitable[T]]) -> T: ...


class Limits(Protocol):
    """Where the database is and how long a call may take (`graph.access.ConnectionSettings`)."""

    @property
    def uri(self) -> str: ...

    @property
    def call_timeout_s(self) -> float: ...


# One transaction holds at most this many writes, which bounds its size and its time under the
# call deadline; more wait for the next.
MAX_GROUP: Final = 32


@dataclass(eq=False)
class _Write(Generic[Tx, T]):
    work: Work[Tx, T]
    deadline: float  # on anyio's clock
    done: bool = False
    result: T | None = None
    error: BaseException | None = None

    def settle(self, result: T) -> None:
        self.result, self.done = result, True

    def fail(self, error: BaseException) -> None:
        self.error, self.done = error, True


@dataclass
class _ProfileQueue(Generic[Tx]):
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    pending: list[_Write[Tx, object]] = field(default_factory=list)


class GroupCommit(Generic[Tx]):
    """The group-commit queues of one process (one per `GraphStore`)."""

    def __init__(self) -> None:
        self._queues: dict[str, _ProfileQueue[Tx]] = {}

    async def write(self, graph: Writer[Tx], work: Work[Tx, T], settings: Limits) -> T:
        """`work(tx)` in a write transaction of `graph`'s profile, shared with the writes of the
        same profile queued meanwhile; returns its result or raises its error. Its deadline,
        `settings.call_timeout_s`, covers its wait in the queue."""
        queue = self._queues.setdefault(graph.profile_id, _ProfileQueue())
        write: _Write[Tx, T] = _Write(work, anyio.current_time() + settings.call_timeout_s)
        queue.pending.append(write)  # type: ignore[arg-type]  # results are read back as T
        try:
            acquired = False
            with anyio.move_on_after(settings.call_timeout_s):
                await queue.lock.acquire()
                acquired = True
            if acquired:
                try:
                    if not write.done:
                        group, queue.pending = queue.pending[:MAX_GROUP], queue.pending[MAX_GROUP:]
                        await _run_group(graph, group, settings)
                finally:
                    queue.lock.release()
            elif write in queue.pending:
                # Its time ran out in the queue, before it reached Neo4j.
                write.fail(GraphTimeoutError(settings.uri, settings.call_timeout_s))
            else:
                # A running group holds it, and ends by this write's deadline: wait for its outcome.
                async with queue.lock:
                    pass
        finally:
            # A caller cancelled before a group took its write must not have it written later.
            if not write.done and write in queue.pending:
                queue.pending.remove(write)  # type: ignore[arg-type]
            if not queue.pending and not queue.lock.locked():
                self._queues.pop(graph.profile_id, None)
        if write.error is not None:
            raise write.error
        return write.result  # type: ignore[return-value]  # set by settle() when error is None


async def _within(write_by: float, settings: Limits, work: Awaitable[T]) -> T:
    """`work`, abandoned at `write_by` (the deadline of the write or group it runs)."""
    try:
        with anyio.fail_after(max(write_by - anyio.current_time(), 0)):
            return await work
    except TimeoutError as error:
        raise GraphTimeoutError(settings.uri, settings.call_timeout_s) from error


async def _run_group(graph: Writer[Tx], group: list[_Write[Tx, object]], settings: Limits) -> None:
    if len(group) == 1:
        await _run_alone(graph, group[0], settings)
        return
    try:
        write_by = min(write.deadline for write in group)
        results = await _within(
            write_by, settings, graph.write(partial(_all, [write.work for write in group]))
        )
    except DATABASE_FAILURES as error:
        for write in group:
            write.fail(error)
    except Exception:
        # Trigger: one write of the group failed, and the rollback undid all of them. Why: each
        # caller must get its own outcome. Outcome: every write runs again in its own transaction.
        for write in group:
            await _run_alone(graph, write, settings)
    else:
        for write, result in zip(group, results, strict=True):
            write.settle(result)


async def _run_alone(graph: Writer[Tx], write: _Write[Tx, object], settings: Limits) -> None:
    try:
        write.settle(await _within(write.deadline, settings, graph.write(write.work)))
    except Exception as error:
        write.fail(error)


async def _all(works: list[Work[Tx, object]], tx: Tx) -> list[object]:
    return [await work(tx) for work in works]
