"""Recall's conversational context: the turn said right after a question recall chose.

A question is often answered in the next turn ("Any book recommendations for my trip?" then
"The Alchemist, you'll love it"), and it is the question that shares the words of a later
question about it. So once the fusion has chosen, the fragment said next (within a few minutes)
after each chosen fragment that asks something is read, scored like any candidate, and lifted
toward the question (`graph/recall/fusion.py`, `lift_neighbours`). Only after a question: the
memories a host stores one after another are often unrelated statements (on three people's ten
memories each, lifting every memory's neighbours cost one paraphrase probe its place in the top
3).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Final

from graph.access import PackedVector, ProfileTx
from graph.recall.neighbour_queries import NEXT_TURNS
from graph.recall.records import FoundMemory
from graph.recall.request import RecallRequest

# How far apart two turns may be said and still be one exchange: a conversation's turns are
# seconds to minutes apart, its sessions hours or days.
NEIGHBOUR_WINDOW: Final = timedelta(minutes=10)


def asks(memory: FoundMemory) -> bool:
    """A fragment that asks something, whose answer may be the next turn."""
    return memory.kind == "fragment" and "?" in memory.text


async def next_turns(
    tx: ProfileTx,
    request: RecallRequest,
    vector: PackedVector | None,
    model_id: str | None,
    anchor_ids: Sequence[str],
) -> list[tuple[str, FoundMemory]]:
    """The live fragment said next after each anchor, as (anchor id, next turn) pairs; each
    next turn's score is its cosine score against `vector` (0 without one)."""
    rows = await tx.run(
        NEXT_TURNS,
        anchor_ids=list(anchor_ids),
        window=NEIGHBOUR_WINDOW,
        statuses=list(request.statuses("fragment")),
        vector=vector,
        model=model_id,
        known_at=request.known_at,
        valid_at=request.valid_at,
    )
    return [(str(row["anchor_id"]), FoundMemory.from_row(row)) for row in rows]
