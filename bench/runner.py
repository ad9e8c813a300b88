"""One benchmark size from an empty graph: load, the peer, recall, dreaming; figures as it goes.

Order of a size: wipe the bench database; load the neighbours and the measured profile through
`remember`; load the peer with the measured profile's memories; time recall on every lane,
interleaved; run dreaming cycles and re-evaluation; time recall again with the open dreams.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from neo4j import AsyncDriver

from bench import dreaming, ingest, lanes, mixed, peer
from bench.corpus import Memory, MemoryFactory, queries
from bench.database import BenchDatabase, driver_for, prepare, profile_counts
from bench.instrument import QueryLog
from bench.machine import current_rss_mib, peak_rss_mib, reset_peak_rss
from bench.options import Options
from bench.processes import RunningServer
from bench.serve import mcp_url, reverie_http
from bench.stats import Figure, Latency
from graph.access import GraphStore, ProfileGraph
from graph.dreams.cycle import CycleRequest
from server.app import build_server
from server.auth import add_token
from server.settings import ReverieSettings

MEASURED = "bench-main"
# The mixed load's profiles: the measured one, its two neighbours and one that starts empty.
MIXED_PROFILES = (MEASURED, "bench-neighbour-1", "bench-neighbour-2", "bench-mixed")
_STARTED = time.perf_counter()


def say(message: str) -> None:
    """Progress on stderr, so a long run's log shows where it is."""
    print(f"[bench {time.perf_counter() - _STARTED:7.1f}s] {message}", file=sys.stderr, flush=True)


def _ms3(latency: Latency) -> str:
    return f"{latency.p50_ms:.1f} / {latency.p95_ms:.1f} / {latency.p99_ms:.1f}"


class SizeRun:
    def __init__(self, size: int, options: Options, db: BenchDatabase, work_dir: Path) -> None:
        self.size = size
        self.options = options
        self.db = db
        self.work_dir = work_dir
        self.factory = MemoryFactory()
        self.figures: list[Figure] = []
        self.queries = queries(self.factory.vocabulary, options.queries, options.seed + 1)
        # Neo4j's JIT needs about a thousand recalls after a start or a bulk load of writes before
        # recall reaches the speed it keeps (docs/benchmarks.md); none of these is a measured query.
        measured = set(self.queries)
        warmup = queries(self.factory.vocabulary, options.warmup_queries, options.seed + 2)
        self.warmup = [query for query in warmup if query not in measured]
        self.peer_version: str | None = None
        self.idle_recall: Latency | None = None

    def add(
        self,
        section: str,
        name: str,
        value: float | str | None,
        unit: str,
        operations: int | None = None,
        note: str = "",
        **details: Any,
    ) -> None:
        self.figures.append(Figure(self.size, section, name, value, unit, operations, note, details))

    def memories(self, seed: int, count: int) -> Iterator[Memory]:
        return self.factory.memories(seed, count)

    async def run(self) -> list[Figure]:
        driver = driver_for(self.db.settings)
        store = GraphStore.connect(self.db.settings)
        try:
            say(f"size {self.size:,}: wiping the bench database")
            await prepare(driver)
            graph = store.profile(MEASURED)
            await self.load_profiles(store, graph, driver)
            async with AsyncExitStack() as stack:
                peer_client = await self.peer_loaded(driver, stack) if self.options.peer else None
                await self.recall(graph, driver, peer_client, stack)
            await self.dreams(graph, driver)
            await self.under_load()
            self.neo4j_memory()
        finally:
            await store.close()
            await driver.close()
        return self.figures

    # --- ingestion ---------------------------------------------------------------------------

    async def load_profiles(self, store: GraphStore, graph: ProfileGraph, driver: AsyncDriver) -> None:
        reset_peak_rss()
        await self._load_neighbours(store)
        loaded = await self._load_measured(graph)
        await self._report_loaded(loaded, driver)
        self._memory("remember (in-process)")

    async def _load_neighbours(self, store: GraphStore) -> None:
        options, size = self.options, self.size
        neighbour_size = int(size * options.neighbour_share)
        for number in range(1, options.neighbours + 1 if neighbour_size else 1):
            say(f"size {size:,}: neighbour {number}, {neighbour_size:,} memories, concurrent")
            loaded = await ingest.concurrent(
                store.profile(f"bench-neighbour-{number}"),
                self.memories(options.seed * 1000 + number, neighbour_size),
                options.concurrency,
            )
            self.add(
                "ingest",
                f"neighbour {number}: remember, concurrent",
                loaded.rate,
                "memories/s",
                loaded.calls,
                f"{options.concurrency} in flight; {loaded.errors} errors",
            )

    async def _load_measured(self, graph: ProfileGraph) -> ingest.LoadResult:
        """The measured profile: a sample one at a time, the bulk concurrently, a sample again."""
        options, size = self.options, self.size
        sample = options.sample_for(size)
        stream = self.memories(options.seed, size)
        say(f"size {size:,}: measured profile, first {sample:,} one at a time")
        first = await self._sequential("first", graph, itertools.islice(stream, sample))
        bulk_count = size - 2 * sample
        say(f"size {size:,}: measured profile, {bulk_count:,} concurrent ({options.concurrency} in flight)")
        bulk = await ingest.concurrent(graph, itertools.islice(stream, bulk_count), options.concurrency)
        lat = bulk.latency()
        self.add(
            "ingest",
            "remember, concurrent (bulk)",
            bulk.rate,
            "memories/s",
            bulk.calls,
            f"{options.concurrency} in flight; per call {_ms3(lat)} ms; {bulk.retries} retries",
            latency=lat.__dict__,
            seconds=bulk.seconds,
        )
        say(f"size {size:,}: measured profile, last {sample:,} one at a time")
        last = await self._sequential("last", graph, stream)
        total = ingest.LoadResult()
        for part in (first, bulk, last):
            total.merge(part)
        return total

    async def _sequential(
        self, which: str, graph: ProfileGraph, memories: Iterable[Memory]
    ) -> ingest.LoadResult:
        log = QueryLog()
        with log.installed():
            loaded = await ingest.sequential(graph, memories)
        self._single(which, loaded, log)
        return loaded

    async def _report_loaded(self, total: ingest.LoadResult, driver: AsyncDriver) -> None:
        self.add(
            "ingest",
            "fragments created",
            total.created,
            "fragments",
            total.calls,
            f"{total.duplicates:,} duplicates (same sentence, deduplicated), {total.errors:,} errors",
        )
        self.add(
            "ingest",
            "claims settled",
            sum(total.outcomes.values()),
            "claims",
            total.calls,
            ", ".join(f"{name} {count:,}" for name, count in total.outcomes.most_common()),
            outcomes=dict(total.outcomes),
        )
        counts = await profile_counts(driver, MEASURED)
        self.add(
            "ingest",
            "measured profile nodes",
            sum(counts.values()),
            "nodes",
            None,
            ", ".join(f"{label} {count:,}" for label, count in counts.items()),
            labels=counts,
        )

    def _single(self, which: str, loaded: ingest.LoadResult, log: QueryLog) -> None:
        lat = loaded.latency()
        self.add(
            "ingest",
            f"remember, one at a time, {which} {loaded.calls:,}",
            loaded.rate,
            "memories/s",
            loaded.calls,
            f"per call {_ms3(lat)} ms; {log.round_trips / max(loaded.calls, 1):.1f} round trips/call; "
            f"slowest query {self._slowest(log)}",
            latency=lat.__dict__,
            top_queries=log.top(8),
        )

    @staticmethod
    def _slowest(log: QueryLog) -> str:
        top = log.top(1)
        return f"{top[0]['query']} {top[0]['mean_ms']} ms mean" if top else "-"

    # --- the peer ----------------------------------------------------------------------------

    async def peer_loaded(self, driver: AsyncDriver, stack: AsyncExitStack) -> Client | None:
        """Install, start and load the peer; its client stays open on `stack` for recall."""
        say(f"size {self.size:,}: peer {peer.PEER_PACKAGE}")
        try:
            self.peer_version = peer.ensure_installed()
        except peer.PeerUnavailableError as error:
            self.add("peer", f"{peer.PEER_PACKAGE} not measured", "-", "", None, str(error))
            return None
        await peer.clean(driver)
        server, url = stack.enter_context(peer.peer_server(self.db.settings, self.work_dir))
        http = await stack.enter_async_context(lanes.bearer_client(None))
        client = await stack.enter_async_context(Client(lanes.http_transport(url, http)))
        stack.callback(self._server_memory, f"{peer.PEER_PACKAGE} server", server)
        memories = list(self.memories(self.options.seed, self.size))
        sample = self.options.sample_for(self.size)
        say(f"size {self.size:,}: peer load ({len(memories):,} memories as observations)")
        loaded = await peer.load(client, memories, sample, self.options.lane_budget_s)
        bulk_rate = (len(memories) - sample) / loaded.bulk_seconds if loaded.bulk_seconds else 0.0
        self.add(
            "peer",
            f"{peer.PEER_PACKAGE} {self.peer_version}: create_entities, batched",
            bulk_rate,
            "memories/s",
            loaded.bulk_calls,
            f"{loaded.entities:,} entities, up to {loaded.max_observations_per_entity:,} observations "
            f"each; {loaded.errors} errors",
        )
        lat = Latency.of(loaded.single_latencies)
        rate = loaded.single_calls / loaded.single_seconds if loaded.single_seconds else 0.0
        self.add(
            "peer",
            "add_observations, one memory per call",
            rate,
            "memories/s",
            loaded.single_calls,
            f"per call {_ms3(lat)} ms",
            latency=lat.__dict__,
        )
        return client

    # --- recall ------------------------------------------------------------------------------

    @asynccontextmanager
    async def _http_server(self) -> AsyncIterator[tuple[RunningServer, Client]]:
        token_file = self.work_dir / f"tokens-{self.size}.json"
        grant = add_token(token_file, MEASURED, ["read"], name="bench")
        log_name = f"reverie-http-{self.size}.log"
        with reverie_http(self.db.settings, self.work_dir, token_file, log_name) as server:
            async with (
                lanes.bearer_client(grant.token) as http,
                Client(lanes.http_transport(mcp_url(server), http)) as client,
            ):
                yield server, client

    async def recall(
        self, graph: ProfileGraph, driver: AsyncDriver, peer_client: Client | None, stack: AsyncExitStack
    ) -> None:
        reset_peak_rss()
        settings = ReverieSettings(
            neo4j_uri=self.db.settings.uri,
            neo4j_username=self.db.settings.username,
            neo4j_password=self.db.settings.password,
            reverie_profile=MEASURED,
            reverie_home=self.work_dir / "home",
        )
        say(f"size {self.size:,}: starting reverie serve --transport http and the in-process MCP client")
        in_process = await stack.enter_async_context(Client(build_server(settings, "stdio")))
        server, http_client = await stack.enter_async_context(self._http_server())
        stack.callback(self._server_memory, "reverie serve --transport http", server)
        lane_map: dict[str, lanes.Lane] = {
            "raw": lanes.raw_lane(driver, MEASURED),
            "direct": lanes.direct_lane(graph),
            "mcp": lanes.mcp_lane(in_process, "recall_memory", "query", lanes.reverie_results),
            "http": lanes.mcp_lane(http_client, "recall_memory", "query", lanes.reverie_results),
        }
        if peer_client is not None:
            lane_map["peer"] = lanes.mcp_lane(peer_client, "search_memories", "query", peer.peer_results)
        say(f"size {self.size:,}: recall, {len(self.queries)} queries on lanes {', '.join(lane_map)}")
        log = QueryLog()
        with log.installed():
            results = await lanes.run_lanes(lane_map, self.queries, self.warmup, self.options.lane_budget_s)
        # The direct and in-process MCP lanes (warm-up included) are the recall() calls logged here.
        recalls = sum(len(results[name].latencies) + len(results[name].errors) for name in ("direct", "mcp"))
        recalls += 2 * len(self.warmup)
        raw = results["raw"].latency().p50_ms
        names = {
            "raw": "raw fulltext query (plain driver, fragment_text)",
            "direct": "recall() direct, no MCP",
            "mcp": "recall_memory, in-process MCP client",
            "http": "recall_memory, Streamable HTTP + bearer token",
            "peer": f"peer search_memories ({peer.PEER_PACKAGE}), HTTP",
        }
        self._warmup_figure(results["http"])
        self.idle_recall = results["http"].latency()
        for key, result in results.items():
            details: dict[str, Any] = {}
            if key == "direct":
                trips = log.round_trips / max(recalls, 1)
                details = {"top_queries": log.top(6), "round_trips_per_recall": trips}
            self._lane(names[key], result, raw, **details)
        if "peer" in results:
            self.add(
                "peer",
                "peer search p50 / Reverie recall_memory HTTP p50",
                results["peer"].latency().p50_ms / results["http"].latency().p50_ms,
                "x",
                None,
                "same queries, same Neo4j, both over Streamable HTTP; the peer returns whole entities",
            )
        self._memory("recall (in-process lanes)")

    def _lane(self, name: str, result: lanes.LaneResult, raw_p50: float, **details: Any) -> None:
        lat = result.latency()
        summary = result.summary()
        note = f"mean {summary['mean_results'] or 0:.1f} results, {summary['mean_bytes'] or 0:,.0f} B"
        if result.errors:
            note += f"; {len(result.errors)} errors: {result.errors[0][:120]}"
        if result.stopped_early:
            note += f"; stopped at the {self.options.lane_budget_s:.0f}s lane budget"
        if not name.startswith("raw") and raw_p50:
            note += f"; p50 = {lat.p50_ms / raw_p50:.1f}x raw"
        if "round_trips_per_recall" in details:
            note += f"; {details['round_trips_per_recall']:.1f} round trips/recall"
        self.add("recall", name, _ms3(lat), "ms p50/p95/p99", lat.count, note, **summary, **details)

    def _warmup_figure(self, result: lanes.LaneResult) -> None:
        """What recall cost before the warm-up was over: Neo4j's JIT is cold after a start, and the
        load's writes did not warm its search paths."""
        lat = Latency.of(result.warmup_latencies)
        if lat.count:
            self.add(
                "recall",
                "recall_memory over HTTP, the warm-up itself (not measured below)",
                _ms3(lat),
                "ms p50/p95/p99",
                lat.count,
                "the first recalls after the load, interleaved with the other lanes' warm-up",
                **lat.__dict__,
            )

    # --- dreaming ----------------------------------------------------------------------------

    def _cycle_figure(self, name: str, timing: dreaming.CycleTiming) -> None:
        phases = ", ".join(f"{phase} {ms} ms" for phase, ms in timing.phase_ms.items() if ms is not None)
        self.add(
            "dreaming",
            name,
            timing.seconds,
            "s",
            1,
            f"{timing.round_trips} round trips; {timing.new_dreams} new dreams; {phases}; {timing.status}",
            round_trips=timing.round_trips,
            top_queries=timing.top_queries,
            phase_ms=timing.phase_ms,
        )

    async def dreams(self, graph: ProfileGraph, driver: AsyncDriver) -> None:
        reset_peak_rss()
        dreamer = dreaming.Dreamer(graph, driver)
        say(f"size {self.size:,}: dreaming, a dry run first (warms the queries up)")
        warm_up = await dreamer.cycle(dreaming.DRY_RUN)
        self._cycle_figure("run_cycle dry run (warm-up), max_outputs 5", warm_up)
        for outputs in (5, 50):
            say(f"size {self.size:,}: dreaming cycle, max_outputs {outputs}")
            timing = await dreamer.cycle(CycleRequest(max_outputs=outputs))
            self._cycle_figure(f"run_cycle, max_outputs {outputs}", timing)
        target = self.options.open_dream_target
        say(f"size {self.size:,}: dream-only cycles (max_outputs 50) until {target:,} open dreams")
        fill = await dreamer.fill(target, self.options.max_fill_cycles, self.options.fill_budget_s)
        short = "" if fill.open_dreams >= target else f"; short of {target:,}: {fill.stopped_because}"
        self.add(
            "dreaming",
            "open dreams made by dream-only cycles, max_outputs 50",
            fill.open_dreams,
            "dreams",
            fill.cycles,
            f"{fill.cycles} cycles in {fill.seconds:.1f}s, {fill.round_trips:,} round trips{short}",
        )
        say(f"size {self.size:,}: re-evaluation of {fill.open_dreams:,} open dreams")
        timing = await dreamer.cycle(dreaming.REEVALUATE_ONLY)
        self._cycle_figure(f"re-evaluate {fill.open_dreams:,} open dreams (re_evaluate only)", timing)
        timing = await dreamer.cycle(CycleRequest(max_outputs=5))
        self._cycle_figure(f"run_cycle, max_outputs 5, {fill.open_dreams:,} open dreams", timing)
        self._memory("dreaming (in-process)")
        say(f"size {self.size:,}: recall with {fill.open_dreams:,} open dreams")
        results = await lanes.run_lanes(
            {"direct": lanes.direct_lane(graph), "raw": lanes.raw_lane(driver, MEASURED)},
            self.queries,
            self.warmup,
            self.options.lane_budget_s,
        )
        self._lane(
            f"recall() direct, {fill.open_dreams:,} open dreams",
            results["direct"],
            results["raw"].latency().p50_ms,
        )

    # --- mixed load --------------------------------------------------------------------------

    async def under_load(self) -> None:
        options = self.options
        if not options.load_clients or options.load_seconds <= 0:
            return
        for mix, what in ((mixed.MIXED, "mixed"), (mixed.RECALL_ONLY, "recall only")):
            plan = mixed.LoadPlan(
                queries=self.queries,
                memories={
                    profile: self.memories(options.seed * 1000 + 500 + number, 1_000_000)
                    for number, profile in enumerate(MIXED_PROFILES)
                },
                clients=options.load_clients,
                seconds=options.load_seconds,
                seed=options.seed,
                mix=mix,
            )
            say(f"size {self.size:,}: {what} load, {plan.clients} clients for {plan.seconds:.0f}s")
            label = f"{what.replace(' ', '-')}-{self.size}"
            load = await mixed.mixed_load(
                self.db.settings, self.work_dir, MIXED_PROFILES, plan, self.db.pid, label
            )
            self._load_figures(load, what)

    def _load_figures(self, load: mixed.MixedLoad, what: str) -> None:
        on = f"{what}, {load.clients} clients on {load.profiles} profiles"
        for tool, tally in load.tallies.items():
            lat = tally.latency()
            idle = self.idle_recall if tool == "recall_memory" else None
            beside = f"; idle over HTTP p50 {idle.p50_ms:.1f} / p95 {idle.p95_ms:.1f} ms" if idle else ""
            self.add(
                "load",
                f"{tool}, {on}",
                _ms3(lat),
                "ms p50/p95/p99",
                lat.count,
                f"{lat.count / load.seconds:.1f}/s; {len(tally.errors)} errors; {tally.busy} busy{beside}",
                first_error=tally.errors[0] if tally.errors else None,
                **lat.__dict__,
            )
        calls = sum(len(tally.latencies) for tally in load.tallies.values())
        self.add("load", f"all calls, {on}", calls / load.seconds, "calls/s", calls, f"{load.seconds:.0f}s")
        cores = os.cpu_count() or 1
        used = " / ".join("?" if seconds is None else f"{seconds:.1f}" for seconds in load.cpu_s.values())
        self.add(
            "load",
            f"CPU used, {what}: {' / '.join(load.cpu_s)}",
            used,
            "CPU s",
            None,
            f"of {cores * load.seconds:.0f} CPU s on {cores} cores in {load.seconds:.0f}s",
            **load.cpu_s,
        )
        rss = load.rss_mib or [float("nan")]
        self.add(
            "memory",
            f"reverie serve under the {what} load, RSS start / peak / end",
            f"{rss[0]:.0f} / {max(rss):.0f} / {rss[-1]:.0f}",
            "MiB",
            None,
            f"VmRSS sampled every 0.5 s, {len(load.rss_mib)} samples",
        )

    # --- memory ------------------------------------------------------------------------------

    def _memory(self, stage: str) -> None:
        self.add(
            "memory",
            f"bench process during {stage}, peak RSS",
            peak_rss_mib(),
            "MiB",
            None,
            f"VmHWM of this process, reset when the stage began; holds the harness too; RSS now "
            f"{current_rss_mib() or 0:.0f} MiB",
        )

    def _server_memory(self, what: str, server: RunningServer) -> None:
        self.add(
            "memory",
            f"{what}, peak RSS",
            peak_rss_mib(server.pid),
            "MiB",
            None,
            f"VmHWM of the server process after its stages; it started in {server.startup_seconds:.1f}s",
        )

    def neo4j_memory(self) -> None:
        if self.db.pid is not None:
            self.add(
                "memory",
                "Neo4j JVM, peak RSS",
                peak_rss_mib(self.db.pid),
                "MiB",
                None,
                f"VmHWM since the JVM started (1 GB heap, 512 MB page cache); RSS now "
                f"{current_rss_mib(self.db.pid) or 0:.0f} MiB",
            )


def work_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="reverie-bench-"))
