"""Timing one search function over a list of queries, and the recall lanes compared.

A lane is an async function from a query to what came back (how many results, how many bytes).
`run_lanes` warms every lane up, then times each query once per lane, interleaving the lanes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult
from neo4j import AsyncDriver

from bench.semantic import bench_vectors
from bench.stats import Latency, Stopwatch
from graph.access import ProfileGraph
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from graph.text import fulltext_clause, profile_key


@dataclass(frozen=True)
class Answer:
    results: int
    size_bytes: int
    error: str | None = None


Lane = Callable[[str], Awaitable[Answer]]


@dataclass
class LaneResult:
    name: str
    latencies: list[float] = field(default_factory=list)
    results: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stopped_early: bool = False
    # The warm-up's own times: what the first queries after a start or a load cost.
    warmup_latencies: list[float] = field(default_factory=list)

    def latency(self) -> Latency:
        return Latency.of(self.latencies)

    def summary(self) -> dict[str, Any]:
        count = len(self.latencies)
        return {
            **self.latency().__dict__,
            "mean_results": sum(self.results) / count if count else None,
            "mean_bytes": sum(self.sizes) / count if count else None,
            "max_bytes": max(self.sizes, default=None),
            "errors": len(self.errors),
            "first_error": self.errors[0] if self.errors else None,
            "stopped_early": self.stopped_early,
        }


async def _timed(result: LaneResult, lane: Lane, query: str) -> float:
    watch = Stopwatch()
    answer = await lane(query)
    elapsed = watch.seconds
    if answer.error is not None:
        result.errors.append(answer.error)
    else:
        result.latencies.append(elapsed)
        result.results.append(answer.results)
        result.sizes.append(answer.size_bytes)
    return elapsed


async def run_lanes(
    lanes: Mapping[str, Lane], queries: Sequence[str], warmup: Sequence[str], budget_seconds: float
) -> dict[str, LaneResult]:
    """Time every lane on every query, interleaved so no lane gains from running later.

    Each query goes to all lanes, in an order that rotates from query to query, so JIT warm-up,
    caches and background work in Neo4j fall on every lane alike. A lane whose own time passes
    `budget_seconds` sits out the remaining queries (its figure says how many it ran).
    """
    results = {name: LaneResult(name) for name in lanes}
    spent = dict.fromkeys(lanes, 0.0)
    for query in warmup:
        for name, lane in lanes.items():
            watch = Stopwatch()
            await lane(query)
            results[name].warmup_latencies.append(watch.seconds)
    names = list(lanes)
    for number, query in enumerate(queries):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            if spent[name] > budget_seconds:
                results[name].stopped_early = True
                continue
            spent[name] += await _timed(results[name], lanes[name], query)
    return results


def tool_error(result: CallToolResult) -> str | None:
    """A refused call's message, shortened; None for a call that succeeded."""
    if not result.is_error:
        return None
    text = getattr(result.content[0], "text", "?") if result.content else "?"
    return str(text)[:300]


def _tool_answer(result: CallToolResult, count: Callable[[dict[str, Any]], int]) -> Answer:
    error = tool_error(result)
    if error is not None:
        return Answer(0, 0, error=error)
    payload = result.structured_content or {}
    return Answer(count(payload), len(json.dumps(payload, default=str)))


def reverie_results(payload: dict[str, Any]) -> int:
    return len(payload.get("results", []))


def mcp_lane(client: Client, tool: str, argument: str, count: Callable[[dict[str, Any]], int]) -> Lane:
    """A lane that calls one MCP tool with the query as its only argument."""

    async def call(query: str) -> Answer:
        return _tool_answer(await client.call_tool(tool, {argument: query}), count)

    return call


def direct_lane(graph: ProfileGraph) -> Lane:
    """`graph.memory.recall.recall` with the related-dreams lane, as the tool runs it, minus MCP."""

    async def call(query: str) -> Answer:
        async with bench_vectors() as vectors:
            found = await recall(graph, RecallRequest(query=query), vectors=vectors)
        return Answer(len(found.results), len(found.model_dump_json()))

    return call


RAW_FULLTEXT = (
    "CALL db.index.fulltext.queryNodes('fragment_text', $lucene, {limit: $limit}) "
    "YIELD node, score RETURN node.id AS id, node.text AS text, score"
)
# recall_memory's default limit is 10 and it oversamples each index three times.
RAW_LIMIT = 30


def raw_lucene(profile_id: str, query: str) -> str:
    """The Lucene string Reverie sends to the fragment index for this query and profile."""
    terms = fulltext_clause("text", query)
    return f"profile_key:{profile_key(profile_id)} AND status:(active) AND {terms}"


def raw_lane(driver: AsyncDriver, profile_id: str) -> Lane:
    """The fragment index's fulltext query alone, through the plain driver, auto-commit."""

    async def call(query: str) -> Answer:
        async with driver.session() as session:
            result = await session.run(RAW_FULLTEXT, lucene=raw_lucene(profile_id, query), limit=RAW_LIMIT)
            rows = await result.data()
        return Answer(len(rows), len(json.dumps(rows)))

    return call


def bearer_client(token: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=600))


def http_transport(url: str, http: httpx2.AsyncClient) -> Any:
    # No SSE event size limit: the peer answers a search with every matching entity.
    return streamable_http_client(url, http_client=http, max_sse_event_size=None)
