"""The related_dreams part of recall: open dreams that touch the recalled memories or the query.

Dreams that cite a returned memory come first, those citing the most returned memories (then
the most confident) ahead; recall's searches bring each candidate's citing dreams along
(`CITING_DREAMS`). Then come dreams whose own text matches the query, which recall's lexical
search finds (`DREAMS_MATCHING`).
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.recall.models import RelatedDream
from graph.recall.records import RecalledDream

RELATED_DREAMS_LIMIT = 5


def related_dreams(
    recalled: Sequence[tuple[str, Sequence[RecalledDream]]], matching: Sequence[RecalledDream]
) -> list[RelatedDream]:
    """`recalled` holds each returned memory's id with the open dreams citing it, in result order."""
    dreams: dict[str, RecalledDream] = {}
    shared: dict[str, list[str]] = {}
    for memory_id, citing in recalled:
        for dream in citing:
            dreams[dream.id] = dream
            shared.setdefault(dream.id, []).append(memory_id)
    ranked = sorted(shared, key=lambda dream_id: -(len(shared[dream_id]) + dreams[dream_id].confidence))
    related = [
        dreams[dream_id].related(f"cites recalled memory {', '.join(shared[dream_id])}")
        for dream_id in ranked
    ]
    related += [dream.related("its text matches the query") for dream in matching if dream.id not in shared]
    return related[:RELATED_DREAMS_LIMIT]
