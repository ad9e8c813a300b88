"""reflect_memories: the health of a profile's memory, with exact counts and bounded lists."""

from __future__ import annotations

from datetime import datetime, timedelta

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.errors import InvalidInputError
from graph.memory import queries as q
from graph.memory.models import (
    ClaimStatus,
    ClaimSummary,
    ReflectionCounts,
    ReflectionResult,
    StaleFact,
)
from graph.memory.recalled import recall_signals
from graph.memory.records import clarification_view

MAX_REFLECT_LIMIT = 100
MAX_STALE_AFTER_DAYS = 36_500


async def count_health(tx: ProfileTx, cutoff: datetime | None) -> ReflectionCounts:
    """The exact counts alone, in one query (the dream cycle's reflect phase needs no lists)."""
    return ReflectionCounts.model_validate(await tx.one(q.COUNT_HEALTH, cutoff=cutoff))


async def read_health(
    tx: ProfileTx, limit: int, stale_after_days: int | None, now: datetime
) -> ReflectionResult:
    """Counts are exact; each list is capped at `limit`, oldest stale facts and newest claims first."""
    cutoff = now - timedelta(days=stale_after_days) if stale_after_days is not None else None
    counts = await count_health(tx, cutoff)
    stale = await tx.run(q.STALE_FACTS, cutoff=cutoff, limit=limit)
    candidates = await tx.run(q.CLAIMS_BY_STATUS, status=ClaimStatus.CANDIDATE.value, limit=limit)
    disputed = await tx.run(q.CLAIMS_BY_STATUS, status=ClaimStatus.DISPUTED.value, limit=limit)
    clarifications = await tx.run(q.OPEN_CLARIFICATIONS, limit=limit)
    recalled = await recall_signals(tx, limit)
    return ReflectionResult(
        counts=counts,
        stale_facts=[StaleFact.model_validate(row) for row in stale],
        candidate_claims=[ClaimSummary.model_validate(row) for row in candidates],
        disputed_claims=[ClaimSummary.model_validate(row) for row in disputed],
        clarifications=[clarification_view(row) for row in clarifications],
        recall=recalled,
    )


async def reflect(
    graph: ProfileGraph, limit: int = 20, stale_after_days: int | None = None, now: datetime | None = None
) -> ReflectionResult:
    if not 1 <= limit <= MAX_REFLECT_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_REFLECT_LIMIT}.")
    if stale_after_days is not None and not 1 <= stale_after_days <= MAX_STALE_AFTER_DAYS:
        raise InvalidInputError(
            f"stale_after_days must be 1 to {MAX_STALE_AFTER_DAYS} (a century), or left out."
        )
    return await graph.read(read_health, limit, stale_after_days, now or utcnow())
