"""Every profile query starts from an index, never from a scan of a label across all profiles.

Neo4j plans each query of the real query modules here (`EXPLAIN`: nothing runs). A composite
index on (profile_id, status, created_at) serves `(d:Dream {profile_id: $p, status: $s})` only
when the query also names `created_at`, so a query that forgets it scans every profile's dreams:
fast in a test database, and slower with every profile the server holds.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest

import graph
from graph.access import GraphStore
from graph.recall.queries import FULLTEXT_SEARCH
from graph.recall.request import RecallRequest, search_terms, search_words
from graph.recall.search import fulltext_params
from graph.scope import ScopedQuery
from graph.text import profile_key

pytestmark = pytest.mark.anyio

SCANS = frozenset(
    {"NodeByLabelScan", "AllNodesScan", "UnionNodeByLabelsScan", "IntersectionNodeByLabelsScan"}
)


def _queries() -> Iterator[ScopedQuery]:
    """Every query any module of `graph` defines, each once (a new query module needs no list)."""
    seen: set[int] = set()
    for module in pkgutil.walk_packages(graph.__path__, "graph."):
        for value in vars(importlib.import_module(module.name)).values():
            found = value.values() if isinstance(value, dict) else [value]
            for query in found:
                if isinstance(query, ScopedQuery) and id(query) not in seen:
                    seen.add(id(query))
                    yield query


def _steps(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every operator of a plan, the root first."""
    yield plan
    for child in plan.get("children", []):
        yield from _steps(child)


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for step in _steps(plan):
        yield step["operatorType"].split("@")[0], str(step.get("args", {}).get("Details", ""))


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


async def _db_hits_of_a_recall(store: GraphStore, profile_id: str, query: str) -> int:
    request = RecallRequest(query)
    params = {
        **fulltext_params(request, search_words(request), search_terms(request)),
        "profile_id": profile_id,
        "profile_key": profile_key(profile_id),
    }
    result = await store.driver.execute_query(
        "PROFILE " + FULLTEXT_SEARCH.text, params, database_=store.settings.database
    )
    return sum(int(step.get("dbHits", 0)) for step in _steps(result.summary.profile))


async def test_memories_no_longer_live_cost_a_recall_nothing(store: GraphStore, profile_id: str) -> None:
    """The lane counts a profile's live memories of each kind (its term statistics' N) through the
    indexes that hold the status. Counted through the time indexes instead, every promoted claim
    and superseded fact of the profile was read again on every recall."""
    before = await _db_hits_of_a_recall(store, profile_id, "lighthouse keeper")
    # Rows written directly: this test is about what a recall reads, not how they came to be. Their
    # ids carry the profile's, as ids are unique across the database the suite keeps between runs.
    await store.driver.execute_query(
        """
        UNWIND range(1, 40) AS n
        CREATE (:Claim {profile_id: $profile_id, id: $profile_id + ':c' + n, status: 'promoted',
                        text: 'moved to Porto', created_at: datetime()})
        CREATE (:Fact {profile_id: $profile_id, id: $profile_id + ':f' + n, status: 'superseded',
                       text: 'lives in Lisbon', recorded_at: datetime()})
        """,
        profile_id=profile_id,
        database_=store.settings.database,
    )
    assert await _db_hits_of_a_recall(store, profile_id, "lighthouse keeper") == before
