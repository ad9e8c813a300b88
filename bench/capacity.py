"""`python -m bench.capacity`: how many calls a second Reverie answers within a latency target.

One profile of `--memories` memories is loaded into the lane's own Neo4j instance ("capacity").
Then, on one `reverie serve` process and on two behind HAProxy (`bench/balancer.py`), in the
same run, calls are offered open-loop (`bench/open_loop.py`) at each rate of `--rates` (recalls
per second) for `--step-seconds`: recall_memory at the rate, remember at a third of it,
list_dreams at a sixth, and one dreaming cycle in the middle of each step. For each rate it
prints each tool's p50/p95 and errors, and it names the highest rate at which recall's p95
stays at or below 150 ms with no recall refused.

It also measures the CPU a call costs, per tool, on one process: each tool alone, evenly spaced
at a low rate, the server's and Neo4j's CPU time (/proc) divided by the calls; an MCP `ping` is
the floor every call pays. Beside them, the closed-loop lane's recall (`bench/mixed.py`: 16
clients recalling back to back), run in the same process for `--closed-loop-seconds`.

And whether a dreaming cycle holds recall up: on one process, recall alone is offered at
`--cycle-rate` for `--cycle-seconds`, then the same offer while cycles run back to back, then
alone again, and the three p50/p95 are printed side by side.

The clients run in the bench's process, on the same cores: on a shared machine the figures are
noise. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.shared.exceptions import MCPDeprecationWarning

from bench import ingest, lanes, mixed
from bench.balancer import balancing
from bench.corpus import MemoryFactory, queries
from bench.database import driver_for, prepare, provisioned
from bench.machine import cpu_seconds
from bench.open_loop import Arrival, Call, StepTally, arrivals, offer
from bench.processes import free_port
from bench.serve import reverie_http
from graph.access import ConnectionSettings, GraphStore
from server.auth import add_token

INSTANCE: Final = "capacity"
TARGET_P95_MS: Final = 150.0
CYCLE_OUTPUTS: Final = 10
# MCP clients the offered calls are spread over (each may have many calls in flight).
POOL: Final = 8
CALIBRATED: Final = ("ping", "recall_memory", "remember", "list_dreams")


@dataclass(frozen=True)
class CapacityOptions:
    rates: tuple[float, ...]
    step_seconds: float
    memories: int
    processes: tuple[int, ...]
    calibrate_rate: float
    calibrate_seconds: float
    closed_loop_seconds: float
    cycle_rate: float
    cycle_seconds: float
    seed: int
    instance: str


@dataclass(frozen=True)
class Fleet:
    """Where the calls go (one server, or the balancer), and the servers' pids."""

    url: str
    pids: list[int]


@contextmanager
def fleet(settings: ConnectionSettings, work_dir: Path, tokens: Path, count: int) -> Iterator[Fleet]:
    """`count` servers; with more than one, HAProxy in front of them."""
    port = free_port()
    allowed = {"REVERIE_ALLOWED_HOSTS": f"127.0.0.1:{port}"} if count > 1 else {}
    with ExitStack() as stack:
        servers = [
            stack.enter_context(
                reverie_http(settings, work_dir, tokens, f"capacity-{count}-{n}.log", **allowed)
            )
            for n in range(count)
        ]
        if count == 1:
            yield Fleet(f"http://127.0.0.1:{servers[0].port}/mcp", [servers[0].pid])
            return
        balancer = stack.enter_context(balancing([server.port for server in servers], work_dir, port))
        yield Fleet(f"{balancer.base}/mcp", [server.pid for server in servers])


def _pinged(client: Client) -> Call:
    tool = mixed.tool_caller(client)

    async def call(name: str, arguments: dict[str, Any]) -> str | None:
        if name == "ping":
            with warnings.catch_warnings():
                # Removed from 2026-07-28 on; this pool speaks the handshake era for it.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.send_ping()
            return None
        return await tool(name, arguments)

    return call


@asynccontextmanager
async def pool(
    url: str, token: str, mode: ConnectMode = "auto", size: int = POOL
) -> AsyncIterator[list[Call]]:
    """`size` clients of `url`; `ping` exists only in the handshake era (mode "legacy")."""
    async with AsyncExitStack() as stack:
        calls = []
        for _ in range(size):
            http = await stack.enter_async_context(lanes.bearer_client(token))
            client = await stack.enter_async_context(Client(lanes.http_transport(url, http), mode=mode))
            calls.append(_pinged(client))
        yield calls


@dataclass(frozen=True)
class Workload:
    profile: str
    plan: mixed.LoadPlan
    rng: random.Random

    def arguments(self, tool: str) -> dict[str, Any]:
        if tool == "ping":
            return {}
        return mixed.call_arguments(tool, self.profile, self.plan, self.rng)


def _cpu(pids: Sequence[int]) -> float:
    return sum(cpu_seconds(pid) or 0.0 for pid in pids)


@dataclass(frozen=True)
class Step:
    rate: float
    tally: StepTally
    cpu_server_s: float
    cpu_neo4j_s: float


async def _step(
    calls: list[Call],
    work: Workload,
    rates: dict[str, float],
    seconds: float,
    pids: tuple[list[int], int | None],
) -> tuple[StepTally, float, float]:
    servers, neo4j = pids
    schedule = arrivals(rates, seconds, work.rng.randrange(1 << 30))
    if "recall_memory" in rates and len(rates) > 1:
        schedule = sorted([*schedule, Arrival(seconds / 2, "run_dreaming_cycle")], key=lambda a: a.at)
    before = _cpu(servers), _cpu([neo4j] if neo4j else [])
    tally = await offer(schedule, calls, work.arguments, seconds)
    return tally, _cpu(servers) - before[0], _cpu([neo4j] if neo4j else []) - before[1]


def mix_at(rate: float) -> dict[str, float]:
    """The offered calls per second at a recall rate."""
    return {"recall_memory": rate, "remember": rate / 3, "list_dreams": rate / 6}


async def _open_loop(
    options: CapacityOptions, where: Fleet, token: str, work: Workload, neo4j: int | None
) -> list[Step]:
    steps = []
    async with pool(where.url, token) as calls:
        for rate in options.rates:
            tally, server_s, neo4j_s = await _step(
                calls, work, mix_at(rate), options.step_seconds, (where.pids, neo4j)
            )
            steps.append(Step(rate, tally, server_s, neo4j_s))
            print(_step_line(len(where.pids), steps[-1]), flush=True)
    return steps


async def _calibrate(
    options: CapacityOptions, where: Fleet, token: str, work: Workload, neo4j: int | None
) -> str:
    """Each tool alone, evenly offered at a low rate: CPU milliseconds per call; first what the
    processes use idle over as long, to subtract (Neo4j's own background work, the backfill)."""
    before = _cpu(where.pids), _cpu([neo4j] if neo4j else [])
    await anyio.sleep(options.calibrate_seconds)
    idle_server = (_cpu(where.pids) - before[0]) * 1000 / options.calibrate_seconds
    idle_neo4j = (_cpu([neo4j] if neo4j else []) - before[1]) * 1000 / options.calibrate_seconds
    parts = [f"idle {idle_server:.1f} + {idle_neo4j:.1f} per second"]
    for tool in CALIBRATED:
        async with pool(where.url, token, "legacy" if tool == "ping" else "auto") as calls:
            count = max(1, round(options.calibrate_rate * options.calibrate_seconds))
            schedule = [Arrival(n / options.calibrate_rate, tool) for n in range(count)]
            before = _cpu(where.pids), _cpu([neo4j] if neo4j else [])
            tally = await offer(schedule, calls, work.arguments, options.calibrate_seconds)
            server_ms = (_cpu(where.pids) - before[0]) * 1000 / count
            neo4j_ms = (_cpu([neo4j] if neo4j else []) - before[1]) * 1000 / count
            parts.append(f"{tool} {server_ms:.1f} + {neo4j_ms:.1f} ({tally.error_count(tool)} errors)")
    return "CPU ms per call, server + Neo4j, each tool alone: " + "; ".join(parts)


async def _cycling(call: Call, work: Workload, stop: anyio.Event, outcomes: list[str | None]) -> None:
    """Cycles back to back, each asked once the one before answered, until `stop`."""
    while not stop.is_set():
        outcomes.append(await call("run_dreaming_cycle", work.arguments("run_dreaming_cycle")))


async def _beside_cycles(options: CapacityOptions, where: Fleet, token: str, work: Workload) -> str:
    """Recall alone at `cycle_rate`, then the same offer (the same arrivals) while cycles run,
    then alone again: on a shared machine the load drifts, and the two alone bracket it. The
    same offer runs once unmeasured first: right after a load, Neo4j still works through it."""
    seed = work.rng.randrange(1 << 30)
    schedule = arrivals({"recall_memory": options.cycle_rate}, options.cycle_seconds, seed)
    outcomes: list[str | None] = []
    async with pool(where.url, token) as calls:
        await offer(schedule, calls, work.arguments, options.cycle_seconds)
        before = await offer(schedule, calls, work.arguments, options.cycle_seconds)
        stop = anyio.Event()
        # A client of its own, opened now: one idle past the server's keep-alive may find its
        # connection closed under it.
        async with pool(where.url, token, size=1) as cycler, anyio.create_task_group() as cycles:
            cycles.start_soon(_cycling, cycler[0], work, stop, outcomes)
            beside = await offer(schedule, calls, work.arguments, options.cycle_seconds)
            stop.set()
        after = await offer(schedule, calls, work.arguments, options.cycle_seconds)
    ran = sum(outcome is None for outcome in outcomes)
    named = (f"beside {ran} cycles ({len(outcomes) - ran} refused)", beside)
    parts = []
    for name, tally in (("alone", before), named, ("alone again", after)):
        latency = tally.latency("recall_memory")
        errors = tally.error_count("recall_memory")
        parts.append(f"{name}: p50 {latency.p50_ms:.0f} p95 {latency.p95_ms:.0f} ms, {errors} errors")
    return f"recall at {options.cycle_rate:g}/s offered, 1 process, " + "; ".join(parts)


def _step_line(processes: int, step: Step) -> str:
    tools = []
    for tool in step.tally.tools():
        latency = step.tally.latency(tool)
        tools.append(
            f"{tool} p50 {latency.p50_ms:.0f} p95 {latency.p95_ms:.0f} ms n={latency.count} "
            f"errors {step.tally.error_count(tool)}"
        )
    answered = sum(len(values) for values in step.tally.latencies.values())
    cpu = f"CPU per answered call: server {step.cpu_server_s * 1000 / max(answered, 1):.1f} ms, "
    cpu += f"Neo4j {step.cpu_neo4j_s * 1000 / max(answered, 1):.1f} ms"
    return f"{processes} process(es), {step.rate:g} recalls/s offered: " + "; ".join(tools) + f" | {cpu}"


def capacity(steps: Sequence[Step]) -> float | None:
    """The highest offered rate whose recall p95 met the target with no recall refused."""
    met = [
        step.rate
        for step in steps
        if step.tally.latency("recall_memory").p95_ms <= TARGET_P95_MS
        and step.tally.error_count("recall_memory") == 0
        and step.tally.latency("recall_memory").count > 0
    ]
    return max(met) if met else None


def _closed_loop_line(load: mixed.MixedLoad) -> str:
    recalls = load.tallies["recall_memory"].latency()
    per_call = {
        name: f"{used * 1000 / max(recalls.count, 1):.1f}"
        for name, used in load.cpu_s.items()
        if used is not None
    }
    return (
        f"closed loop ({load.clients} clients recalling back to back, 1 process): recall p50 "
        f"{recalls.p50_ms:.0f} p95 {recalls.p95_ms:.0f} ms, {recalls.count / load.seconds:.1f}/s; "
        "CPU ms per recall " + ", ".join(f"{name} {value}" for name, value in per_call.items())
    )


async def _run(options: CapacityOptions, work_dir: Path) -> None:
    with provisioned(options.instance) as db:
        driver = driver_for(db.settings)
        await prepare(driver)
        await driver.close()
        factory = MemoryFactory()
        profile = f"capacity-{uuid.uuid4().hex[:8]}"
        store = GraphStore.connect(db.settings)
        loaded = await ingest.concurrent(
            store.profile(profile), factory.memories(options.seed, options.memories), 16
        )
        await store.close()
        print(f"loaded {loaded.created} memories ({loaded.errors} errors) into profile {profile}", flush=True)
        tokens = work_dir / "tokens-capacity.json"
        token = add_token(tokens, profile, ["read", "write"]).token
        stream = factory.memories(options.seed + 1, 10**7, end_at=None)
        plan = mixed.LoadPlan(
            queries(factory.vocabulary, 300, options.seed + 2), {profile: stream}, 16, 0, options.seed
        )
        work = Workload(profile, plan, random.Random(options.seed))
        found: dict[int, float | None] = {}
        for count in options.processes:
            with fleet(db.settings, work_dir, tokens, count) as where:
                if count == 1 and options.calibrate_seconds > 0:
                    print(await _calibrate(options, where, token, work, db.pid), flush=True)
                if count == 1 and options.cycle_seconds > 0:
                    print(await _beside_cycles(options, where, token, work), flush=True)
                found[count] = capacity(await _open_loop(options, where, token, work, db.pid))
        for count, rate in found.items():
            reached = f"{rate:g} recalls/s" if rate is not None else "none of the rates offered"
            print(
                f"capacity at recall p95 <= {TARGET_P95_MS:.0f} ms, {count} process(es): {reached}",
                flush=True,
            )
        if options.closed_loop_seconds > 0:
            closed = mixed.LoadPlan(
                plan.queries,
                plan.memories,
                16,
                options.closed_loop_seconds,
                options.seed,
                mix=mixed.RECALL_ONLY,
            )
            load = await mixed.mixed_load(db.settings, work_dir, [profile], closed, db.pid, "capacity")
            print(_closed_loop_line(load), flush=True)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(part) for part in text.split(",") if part.strip())


def parse(argv: Sequence[str] | None) -> CapacityOptions:
    parser = argparse.ArgumentParser(prog="python -m bench.capacity", description=__doc__.split("\n")[0])
    parser.add_argument("--rates", default="2,5,10,15,20,30", help="recalls per second offered, in order")
    parser.add_argument("--step-seconds", type=float, default=60.0, help="seconds each rate is offered")
    parser.add_argument("--memories", type=int, default=1000, help="memories in the profile")
    parser.add_argument(
        "--processes", default="1,2", help="server processes, one run each (2+: behind HAProxy)"
    )
    parser.add_argument("--calibrate-rate", type=float, default=4.0, help="calls/s of each tool alone")
    parser.add_argument(
        "--calibrate-seconds", type=float, default=15.0, help="seconds per tool alone (0: none)"
    )
    parser.add_argument(
        "--closed-loop-seconds", type=float, default=30.0, help="closed-loop recall (0: none)"
    )
    parser.add_argument("--cycle-rate", type=float, default=10.0, help="recalls/s beside cycles")
    parser.add_argument(
        "--cycle-seconds", type=float, default=30.0, help="recall alone, then beside cycles (0: none)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--instance", default=INSTANCE, help="the managed Neo4j instance (wiped first)")
    args = parser.parse_args(argv)
    return CapacityOptions(
        rates=_floats(args.rates),
        step_seconds=args.step_seconds,
        memories=args.memories,
        processes=tuple(int(part) for part in _floats(args.processes)),
        calibrate_rate=args.calibrate_rate,
        calibrate_seconds=args.calibrate_seconds,
        closed_loop_seconds=args.closed_loop_seconds,
        cycle_rate=args.cycle_rate,
        cycle_seconds=args.cycle_seconds,
        seed=args.seed,
        instance=args.instance,
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    with tempfile.TemporaryDirectory(prefix="reverie-capacity-") as scratch:
        asyncio.run(_run(options, Path(scratch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
