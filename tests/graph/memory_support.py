"""Helpers shared by the memory pipeline tests: scoped reads, claims and clock values.

Times are passed explicitly (`now=`) wherever a test reasons about when something was recorded,
so `known_at` checks never depend on the wall clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph.access import ProfileGraph, ProfileTx
from graph.memory.models import ClaimInput, ReflectionResult, RememberResult
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.reflect import reflect
from graph.recall.models import RecallResult
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from graph.scope import ScopedQuery

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

# Reads the tests need beyond what recall and reflect expose; scoped like any other query.
FACT = ScopedQuery("test_fact", "MATCH (f:Fact {profile_id: $profile_id, id: $id}) RETURN f {.*} AS fact")
CLAIM = ScopedQuery("test_claim", "MATCH (c:Claim {profile_id: $profile_id, id: $id}) RETURN c {.*} AS claim")
ACTIVE_FACTS = ScopedQuery(
    "test_active_facts",
    """
    MATCH (f:Fact {profile_id: $profile_id, predicate: $predicate})
    WHERE f.status = 'active'
    RETURN f.id AS id, f.object AS object
    """,
)
COUNTS = ScopedQuery(
    "test_counts",
    """
    CALL { MATCH (f:SourceFragment {profile_id: $profile_id}) RETURN count(f) AS fragments }
    CALL { MATCH (c:Claim {profile_id: $profile_id}) RETURN count(c) AS claims }
    CALL { MATCH (f:Fact {profile_id: $profile_id}) RETURN count(f) AS facts }
    CALL { MATCH (q:Clarification {profile_id: $profile_id}) RETURN count(q) AS clarifications }
    RETURN fragments, claims, facts, clarifications
    """,
)
NOTHING = {"fragments": 0, "claims": 0, "facts": 0, "clarifications": 0}


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def works_at(company: str, extract: float = 0.9, resolution: float = 0.8, **extra: Any) -> ClaimInput:
    return ClaimInput(
        subject="user",
        predicate="works_at",
        object=company,
        extract_conf=extract,
        resolution_conf=resolution,
        **extra,
    )


async def say(
    graph: ProfileGraph,
    content: str,
    *claims: ClaimInput,
    authority: str = "primary",
    now: datetime | None = None,
    **extra: Any,
) -> RememberResult:
    request = RememberRequest(content=content, authority=authority, claims=claims, **extra)  # type: ignore[arg-type]
    return await remember(graph, request, now=now)


async def read(graph: ProfileGraph, query: ScopedQuery, **params: Any) -> list[dict[str, Any]]:
    async def work(tx: ProfileTx) -> list[dict[str, Any]]:
        return await tx.run(query, **params)

    return await graph.read(work)


async def fact_state(graph: ProfileGraph, fact_id: str) -> dict[str, Any]:
    [row] = await read(graph, FACT, id=fact_id)
    return dict(row["fact"])


async def claim_state(graph: ProfileGraph, claim_id: str) -> dict[str, Any]:
    [row] = await read(graph, CLAIM, id=claim_id)
    return dict(row["claim"])


async def active_objects(graph: ProfileGraph, predicate: str = "works_at") -> list[str]:
    return sorted(row["object"] for row in await read(graph, ACTIVE_FACTS, predicate=predicate))


async def counts(graph: ProfileGraph) -> dict[str, int]:
    [row] = await read(graph, COUNTS)
    return row


async def find(graph: ProfileGraph, query: str, **options: Any) -> RecallResult:
    return await recall(graph, RecallRequest(query=query, limit=50, **options))


def ids(result: RecallResult, kind: str) -> set[str]:
    return {item.id for item in result.results if item.kind == kind}


async def health(graph: ProfileGraph) -> ReflectionResult:
    return await reflect(graph, limit=100)
