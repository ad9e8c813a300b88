"""Every profile query starts from an index, never from a scan of a label across all profiles.

Neo4j plans each query of the real query modules here (`EXPLAIN`: nothing runs). A composite
index on (profile_id, status, created_at) serves `(d:Dream {profile_id: $p, status: $s})` only
when the query also names `created_at`, so a query that forgets it scans every profile's dreams:
fast in a test database, and slower with every profile the server holds.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest

from graph.access import GraphStore
from graph.scope import ScopedQuery

pytestmark = pytest.mark.anyio

MODULES = (
    "graph.memory.queries",
    "graph.memory.recalled",
    "graph.recall.queries",
    "graph.recall.semantic_queries",
    "graph.recall.signal_queries",
    "graph.dreams.queries",
    "graph.dreams.host_queries",
    "graph.embedding.queries",
    "graph.forgetting.queries",
    "graph.transfer.queries",
)
SCANS = frozenset(
    {"NodeByLabelScan", "AllNodesScan", "UnionNodeByLabelsScan", "IntersectionNodeByLabelsScan"}
)


def _queries() -> Iterator[ScopedQuery]:
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            found = value.values() if isinstance(value, dict) else [value]
            yield from (query for query in found if isinstance(query, ScopedQuery))


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    yield plan["operatorType"].split("@")[0], str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _operators(child)


async def test_no_profile_query_scans_a_label(store: GraphStore) -> None:
    queries = list(_queries())
    assert len(queries) > 100
    scanning = {}
    for query in queries:
        result = await store.driver.execute_query("EXPLAIN " + query.text, database_=store.settings.database)
        scans = [details for operator, details in _operators(result.summary.plan) if operator in SCANS]
        if scans:
            scanning[query.name] = scans
    assert scanning == {}
