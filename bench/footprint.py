"""`python -m bench.footprint`: how much memory the local Neo4j and a server hold on a desktop.

The lane starts a managed Neo4j instance as `reverie setup` leaves it (schema, no data), starts
`reverie serve --transport http` on it, loads `--memories` memories of one person (the bench
corpus, with their vectors), runs a dreaming cycle and a few recalls through the server, and
prints the resident memory (RSS) of both processes at each step, with the store's size on disk.
The instance is started with `--memory` (as REVERIE_NEO4J_MEMORY takes it), and is stopped and
its files deleted at the end. The store's size is taken after a checkpoint, when the store files hold
every write (Community has no checkpoint procedure: the lane stops the server, which writes one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp import Client

from bench import ingest, lanes
from bench.corpus import MemoryFactory, queries
from bench.database import emptied
from bench.machine import current_rss_mib, peak_rss_mib
from bench.serve import mcp_url, reverie_http
from graph.access import ConnectionSettings, GraphStore
from graph.localdb import LocalNeo4j
from graph.localdb.memory import DEFAULT_SIZE, parse_memory
from server.auth import add_token

PROFILE = "footprint"
SEED = 44
RECALLS = 20


def _mib(path: Path) -> float:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file()) / 2**20


def _store(local: LocalNeo4j) -> dict[str, float]:
    """The stores the page cache holds, and the transaction logs beside them."""
    data = local.instance_dir / "data"
    return {"stores": _mib(data / "databases"), "transaction_logs": _mib(data / "transactions")}


def _rss(pid: int) -> dict[str, float | None]:
    return {"rss_mib": current_rss_mib(pid), "peak_mib": peak_rss_mib(pid)}


async def _through_server(url: str, token: str) -> dict[str, Any]:
    """A cycle, then recalls, as a host would ask them."""
    async with lanes.bearer_client(token) as http, Client(lanes.http_transport(url, http)) as client:
        cycle = await client.call_tool("run_dreaming_cycle", {})
        asked = queries(MemoryFactory().vocabulary, RECALLS, SEED)
        found = 0
        for query in asked:
            answer = await client.call_tool("recall_memory", {"query": query})
            found += bool((answer.structured_content or {}).get("results"))
    return {"cycle_error": lanes.tool_error(cycle), "recalls": len(asked), "recalls_with_results": found}


async def measure(instance: str, memory: str, memories: int, work: Path) -> dict[str, Any]:
    local = LocalNeo4j(LocalNeo4j.default_home(), instance, parse_memory(memory))
    local.stop()
    shutil.rmtree(local.instance_dir, ignore_errors=True)
    status = local.start()
    assert status.pid is not None
    credentials = local.credentials()
    settings = ConnectionSettings(credentials.uri, credentials.username, credentials.password)
    figures: dict[str, Any] = {"memories": memories, "memory": local.memory.describe()}
    try:
        await emptied(settings)
        figures["neo4j_after_setup"] = _rss(status.pid)
        tokens = work / "tokens.json"
        token = add_token(tokens, PROFILE, ["read", "write"]).token
        with reverie_http(settings, work, tokens, "server.log") as server:
            figures["server_after_start"] = _rss(server.pid)
            store = GraphStore.connect(settings)
            try:
                graph = store.profile(PROFILE)
                loaded = await ingest.concurrent(graph, MemoryFactory().memories(SEED, memories), 4)
                figures["load"] = {
                    "memories": loaded.calls,
                    "errors": loaded.errors,
                    "seconds": loaded.seconds,
                }
                figures["neo4j_after_load"] = _rss(status.pid)
                figures["through_server"] = await _through_server(mcp_url(server), token)
                figures["neo4j_after_cycle"] = _rss(status.pid)
                figures["server_after_cycle"] = _rss(server.pid)
            finally:
                await store.close()
        local.stop()  # a clean stop writes a checkpoint: the store files then hold every write
        figures["store_mib_after_cycle"] = _store(local)
    finally:
        local.stop()
        shutil.rmtree(local.instance_dir, ignore_errors=True)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.footprint", description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=3000, help="memories of the one profile")
    parser.add_argument("--instance", default="bench-footprint", help="the managed Neo4j instance to use")
    parser.add_argument("--memory", default=DEFAULT_SIZE, help="as REVERIE_NEO4J_MEMORY takes it")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reverie-footprint-") as work:
        figures = asyncio.run(measure(options.instance, options.memory, options.memories, Path(work)))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
