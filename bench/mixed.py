"""Mixed load: many hosts at once on one `reverie serve --transport http`.

`clients` MCP clients, each with a session of its own and the token of one of the profiles
(client n serves profile n mod len(profiles)), call tools until `seconds` have passed, in a
seeded random mix: recall_memory 50%, remember 30%, list_dreams 15%, run_dreaming_cycle 5%
(max_outputs 10), or recall alone. The CPU time the server, Neo4j and the clients used in that
time says where the cores went. A cycle asked while that profile's cycle runs is refused as busy and counted
as such, not as an error. The clients run in the bench process, on the same cores as the server
and Neo4j, as a host on the same machine would.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from bench import lanes
from bench.corpus import Memory
from bench.machine import cpu_seconds, current_rss_mib
from bench.processes import RunningServer
from bench.serve import mcp_url, reverie_http
from bench.stats import Latency
from graph.access import ConnectionSettings
from server.auth import add_token

Mix = tuple[tuple[str, int], ...]
MIXED: Mix = (("recall_memory", 50), ("remember", 30), ("list_dreams", 15), ("run_dreaming_cycle", 5))
# The same clients recalling only: how far recall alone goes on these cores.
RECALL_ONLY: Mix = (("recall_memory", 100),)
CYCLE_OUTPUTS = 10
_BUSY = "already running for this profile"
_RSS_EVERY_S = 0.5


@dataclass
class ToolTally:
    latencies: list[float] = field(default_factory=list)
    # When each call of `latencies` began, in seconds after the load began.
    began_at: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    busy: int = 0

    def latency(self) -> Latency:
        return Latency.of(self.latencies)

    def record(self, error: str | None, started: float, load_started: float) -> None:
        """One call that began at `started` (perf_counter): its time, or why it was refused."""
        if error is None:
            self.latencies.append(time.perf_counter() - started)
            self.began_at.append(started - load_started)
        elif _BUSY in error:
            self.busy += 1
        else:
            self.errors.append(error)


@dataclass
class RssSamples:
    values: list[float] = field(default_factory=list)

    async def follow(self, pid: int) -> None:
        while True:
            rss = current_rss_mib(pid)
            if rss is not None:
                self.values.append(rss)
            await anyio.sleep(_RSS_EVERY_S)


@dataclass(frozen=True)
class MixedLoad:
    clients: int
    profiles: int
    seconds: float
    tallies: dict[str, ToolTally]
    rss_mib: list[float]
    # CPU seconds each process used during the load: where the cores went.
    cpu_s: dict[str, float | None]


@dataclass(frozen=True)
class LoadPlan:
    """What the clients say: the queries to recall, a stream of new memories per profile."""

    queries: Sequence[str]
    memories: dict[str, Iterator[Memory]]
    clients: int
    seconds: float
    seed: int
    mix: Mix = MIXED
    # A profile whose cycle one more client asks the moment the load starts (tallied as
    # "opening cycle"), so that the load meets a cycle already running; None for none.
    opening_cycle: str | None = None


# A tool call: None when it succeeded, else the server's message.
Call = Callable[[str, dict[str, Any]], Awaitable[str | None]]


def call_arguments(tool: str, profile: str, plan: LoadPlan, rng: random.Random) -> dict[str, Any]:
    if tool == "recall_memory":
        return {"query": rng.choice(plan.queries)}
    if tool == "remember":
        request = next(plan.memories[profile]).request
        claims = [claim.model_dump(mode="json", exclude_none=True) for claim in request.claims]
        return {"content": request.content, "claims": claims}
    if tool == "run_dreaming_cycle":
        return {"max_outputs": CYCLE_OUTPUTS}
    return {}


def tool_caller(client: Client) -> Call:
    async def call(tool: str, arguments: dict[str, Any]) -> str | None:
        return lanes.tool_error(await client.call_tool(tool, arguments))

    return call


@dataclass(frozen=True)
class _Run:
    plan: LoadPlan
    deadline: float
    tallies: dict[str, ToolTally]
    started: float


async def _host(run: _Run, call: Call, profile: str, rng: random.Random) -> None:
    tools = [tool for tool, _ in run.plan.mix]
    weights = [weight for _, weight in run.plan.mix]
    while time.perf_counter() < run.deadline:
        tool = rng.choices(tools, weights)[0]
        arguments = call_arguments(tool, profile, run.plan, rng)
        started = time.perf_counter()
        run.tallies[tool].record(await call(tool, arguments), started, run.started)


async def _client(run: _Run, server: RunningServer, token: str, profile: str, number: int) -> None:
    async with (
        lanes.bearer_client(token) as http,
        Client(lanes.http_transport(mcp_url(server), http)) as client,
    ):
        await _host(run, tool_caller(client), profile, random.Random(run.plan.seed * 1000 + number))


OPENING_CYCLE = "opening cycle"


async def _opening(run: _Run, server: RunningServer, token: str) -> None:
    async with (
        lanes.bearer_client(token) as http,
        Client(lanes.http_transport(mcp_url(server), http)) as client,
    ):
        started = time.perf_counter()
        error = await tool_caller(client)("run_dreaming_cycle", {"max_outputs": CYCLE_OUTPUTS})
        run.tallies[OPENING_CYCLE].record(error, started, run.started)


async def mixed_load(
    settings: ConnectionSettings,
    work_dir: Path,
    profiles: Sequence[str],
    plan: LoadPlan,
    neo4j_pid: int | None,
    label: str,
) -> MixedLoad:
    """Run the plan's mix against a fresh `reverie serve` over HTTP and tally it per tool."""
    tokens_file = work_dir / f"tokens-mixed-{label}.json"
    tokens = {profile: add_token(tokens_file, profile, ["read", "write"]).token for profile in profiles}
    tallies = {tool: ToolTally() for tool, _ in plan.mix}
    if plan.opening_cycle is not None:
        tallies[OPENING_CYCLE] = ToolTally()
    rss = RssSamples()
    with reverie_http(settings, work_dir, tokens_file, f"reverie-mixed-{label}.log") as server:
        processes = {"Neo4j": neo4j_pid, "reverie serve": server.pid, "clients (bench process)": os.getpid()}
        before = {name: cpu_seconds(pid) if pid else None for name, pid in processes.items()}
        async with anyio.create_task_group() as sampling:
            sampling.start_soon(rss.follow, server.pid)
            started = time.perf_counter()
            run = _Run(plan, started + plan.seconds, tallies, started)
            async with anyio.create_task_group() as hosts:
                if plan.opening_cycle is not None:
                    hosts.start_soon(_opening, run, server, tokens[plan.opening_cycle])
                for number in range(plan.clients):
                    profile = profiles[number % len(profiles)]
                    hosts.start_soon(_client, run, server, tokens[profile], profile, number)
            elapsed = time.perf_counter() - started
            sampling.cancel_scope.cancel()
        cpu = {name: _used(before[name], pid) for name, pid in processes.items()}
    return MixedLoad(plan.clients, len(profiles), elapsed, tallies, rss.values, cpu)


def _used(before: float | None, pid: int | None) -> float | None:
    after = cpu_seconds(pid) if pid else None
    return None if before is None or after is None else after - before
