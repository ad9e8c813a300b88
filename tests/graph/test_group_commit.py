"""Group commit (`graph.group_commit`): writes of a profile queued while one of its transactions
runs share the next transaction, yet each keeps its own outcome and its own profile."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import pytest

from graph.access import ProfileGraph, ProfileTx
from graph.errors import InvalidInputError
from graph.memory import queries as q
from graph.memory.models import RememberResult
from graph.memory.pipeline import RememberRequest, remember
from tests.graph.memory_support import counts, works_at

pytestmark = pytest.mark.anyio


class _Recorder:
    """Writes that note which transaction ran them; the first one holds its transaction open
    until released, so that the others queue behind it."""

    def __init__(self) -> None:
        self.ran: dict[str, ProfileTx] = {}
        self.release = anyio.Event()
        self.holding = anyio.Event()

    async def hold(self, tx: ProfileTx) -> str:
        self.ran["first"] = tx
        self.holding.set()
        await self.release.wait()
        return "first"

    def noting(self, name: str) -> Callable[[ProfileTx], Awaitable[str]]:
        async def work(tx: ProfileTx) -> str:
            self.ran[name] = tx
            return name

        return work


async def test_writes_queued_behind_a_running_one_share_the_next_transaction(graph: ProfileGraph) -> None:
    recorder = _Recorder()
    outcomes: dict[str, str] = {}

    async def write(name: str, work: Callable[[ProfileTx], Awaitable[str]]) -> None:
        outcomes[name] = await graph.write_grouped(work)

    async with anyio.create_task_group() as group:
        group.start_soon(write, "first", recorder.hold)
        await recorder.holding.wait()
        for name in ("a", "b", "c"):
            group.start_soon(write, name, recorder.noting(name))
        await anyio.wait_all_tasks_blocked()
        recorder.release.set()

    assert outcomes == {"first": "first", "a": "a", "b": "b", "c": "c"}
    assert recorder.ran["a"] is recorder.ran["b"] is recorder.ran["c"]
    assert recorder.ran["a"] is not recorder.ran["first"]


async def test_a_refused_write_in_a_group_fails_alone_and_the_others_are_stored(graph: ProfileGraph) -> None:
    recorder = _Recorder()
    results: dict[str, object] = {}

    async def store(name: str, request: RememberRequest) -> None:
        try:
            results[name] = await remember(graph, request)
        except InvalidInputError as error:
            results[name] = error

    async with anyio.create_task_group() as group:
        group.start_soon(graph.write_grouped, recorder.hold)
        await recorder.holding.wait()
        for number in range(6):
            group.start_soon(store, f"ok-{number}", RememberRequest(content=f"Hive {number} swarmed in May."))
        unsupported = works_at("Initech", supported_by=["no-such-fragment"])
        group.start_soon(store, "bad", RememberRequest(content="I work at Initech.", claims=[unsupported]))
        await anyio.wait_all_tasks_blocked()
        recorder.release.set()

    assert "no-such-fragment" in str(results.pop("bad"))
    assert sorted(results) == [f"ok-{number}" for number in range(6)]
    assert all(isinstance(result, RememberResult) and result.fragment.created for result in results.values())
    assert (await counts(graph))["fragments"] == 6


async def test_queued_writes_of_two_profiles_never_share_a_transaction(
    graph: ProfileGraph, other_graph: ProfileGraph
) -> None:
    holders = {graph.profile_id: _Recorder(), other_graph.profile_id: _Recorder()}
    seen: list[tuple[str, str]] = []

    async def write(target: ProfileGraph, name: str) -> None:
        async def work(tx: ProfileTx) -> str:
            seen.append((target.profile_id, tx.profile_id))
            rows = await tx.run(q.FIND_FRAGMENT_BY_KEY, key=name)
            return str(len(rows))

        await target.write_grouped(work)

    async with anyio.create_task_group() as group:
        for target in (graph, other_graph):
            recorder = holders[target.profile_id]
            group.start_soon(target.write_grouped, recorder.hold)
            await recorder.holding.wait()
        for number in range(8):
            group.start_soon(write, (graph, other_graph)[number % 2], f"w{number}")
        await anyio.wait_all_tasks_blocked()
        for recorder in holders.values():
            recorder.release.set()

    assert len(seen) == 8
    assert all(own == ran_in for own, ran_in in seen)


async def test_a_write_whose_caller_gave_up_before_its_group_ran_is_never_run(graph: ProfileGraph) -> None:
    recorder = _Recorder()
    scopes: list[anyio.CancelScope] = []

    async def abandoned() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            await graph.write_grouped(recorder.noting("abandoned"))

    async with anyio.create_task_group() as group:
        group.start_soon(graph.write_grouped, recorder.hold)
        await recorder.holding.wait()
        group.start_soon(abandoned)
        await anyio.wait_all_tasks_blocked()
        scopes[0].cancel()
        await anyio.wait_all_tasks_blocked()
        # A write queued after it leads the next group, which must not include the abandoned one.
        group.start_soon(graph.write_grouped, recorder.noting("later"))
        await anyio.wait_all_tasks_blocked()
        recorder.release.set()

    assert "later" in recorder.ran
    assert "abandoned" not in recorder.ran
