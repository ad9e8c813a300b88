"""The related_dreams lane of recall: open dreams that touch the recalled memories or the query.

Dreams that cite a returned memory come first (found by following DREAMED_FROM edges from the
memories), then dreams whose own text matches the query.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.access import ProfileGraph, ProfileTx
from graph.dreams import queries as q
from graph.dreams.records import related_dream_from_row
from graph.memory.models import RelatedDream
from graph.text import fulltext_clause

RELATED_DREAMS_LIMIT = 5


async def _related(tx: ProfileTx, query: str, memory_ids: Sequence[str]) -> list[RelatedDream]:
    rows = await tx.run(
        q.RELATED_DREAMS,
        ids=list(memory_ids),
        terms=fulltext_clause("text", query),
        limit=RELATED_DREAMS_LIMIT,
    )
    found: dict[str, RelatedDream] = {}
    for dream in map(related_dream_from_row, rows):
        found.setdefault(dream.dream_id, dream)
    return list(found.values())[:RELATED_DREAMS_LIMIT]


async def related_dreams(graph: ProfileGraph, query: str, memory_ids: Sequence[str]) -> list[RelatedDream]:
    return await graph.read(_related, query, memory_ids)
