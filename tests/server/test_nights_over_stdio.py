"""`reverie serve` over stdio, as a desktop host starts it, keeps its profile's nights: a night
missed while no server ran runs soon after the start, after the host's first calls and never
before them, and two servers of one profile started together make one run of it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import pytest
from mcp import Client, StdioServerParameters

from graph.access import ProfileGraph
from graph.dreams.models import DreamRun
from graph.dreams.runs import recent_runs
from graph.dreams.watch import KEPT_WHILE_OPEN
from graph.memory.pipeline import RememberRequest, remember
from tests.server.conftest import REVERIE, structured

pytestmark = pytest.mark.anyio

# Nightly dreaming on, due since midnight UTC: a server started now finds today's night missed.
MISSED_NIGHT = {"DREAMING_ENABLED": "true", "DREAMING_TIMEZONE": "UTC", "DREAMING_START_TIME_LOCAL": "00:00"}
GRACE_S = 8
# Between the scheduler's looks (a minute in production): a server that found the profile busy
# looks again after one tick; the last test waits out two.
TICK_S = 5


@asynccontextmanager
async def stdio_servers(env: Mapping[str, str], count: int) -> AsyncIterator[list[Client]]:
    """`count` `reverie serve` processes over stdio, each with its MCP client, started one after
    the other (each within seconds: the model loads, then the client connects)."""
    parameters = StdioServerParameters(command=str(REVERIE), args=["serve"], env=dict(env))
    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(Client(parameters)) for _ in range(count)]


async def finished_runs(graph: ProfileGraph, seconds: float) -> list[DreamRun]:
    """The profile's runs, once there is one and none is running."""
    with anyio.fail_after(seconds):
        while True:
            runs = [summary.run for summary in (await recent_runs(graph)).runs]
            if runs and all(run.status != "running" for run in runs):
                return runs
            await anyio.sleep(0.5)


async def test_a_missed_night_runs_after_the_grace_and_not_before_the_first_answer(
    server_env: dict[str, str], graph: ProfileGraph
) -> None:
    await remember(graph, RememberRequest(content="I bake rye bread on Sundays with my daughter."))
    env = {**server_env, **MISSED_NIGHT, "REVERIE_SCHEDULER_GRACE_SECONDS": str(GRACE_S)}
    async with stdio_servers(env, 1) as [client]:
        started = anyio.current_time()
        status = structured(await client.call_tool("dreaming_status", {}))
        answered_in = anyio.current_time() - started
        # The host's first calls find no cycle started: the scheduler waits out its grace.
        assert (await recent_runs(graph)).runs == [], f"a cycle started {answered_in:.1f} s in"
        assert status["next_night"]["will_run"] is True
        assert status["next_night"]["why"] == KEPT_WHILE_OPEN
        [run] = await finished_runs(graph, 120)
        # Once it has looked, the profile carries its trace for other processes to read.
        traced = structured(await client.call_tool("dreaming_status", {}))["next_night"]
    assert answered_in < GRACE_S
    assert (run.trigger, run.status) == ("scheduled", "completed")
    assert traced["scheduler_seen_at"] is not None


async def test_two_stdio_servers_of_one_profile_make_one_run_of_the_night(
    server_env: dict[str, str], graph: ProfileGraph
) -> None:
    await remember(graph, RememberRequest(content="I swim in the lake before work in summer."))
    # Both first look at the night within the same minute, a few seconds apart.
    env = {
        **server_env,
        **MISSED_NIGHT,
        "REVERIE_SCHEDULER_GRACE_SECONDS": str(GRACE_S),
        "REVERIE_SCHEDULER_TICK_SECONDS": str(TICK_S),
    }
    async with stdio_servers(env, 2):
        await finished_runs(graph, 120)
        # A scheduler that found the profile busy looks again a tick later.
        await anyio.sleep(2 * TICK_S)
        runs = await finished_runs(graph, 30)
    assert [(run.trigger, run.status) for run in runs] == [("scheduled", "completed")]
