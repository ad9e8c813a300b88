"""How recall ranks: each lane's candidates are rescaled to 0..1 over their own list and
averaged, so a memory found by both lanes is lifted, a paraphrase with no shared word still gets
its semantic half, and an exact rare name keeps the lexical top score. Pure functions, no
database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from graph.memory.models import ClarificationView
from graph.recall.models import RecallItem, RecallKind, RecallLane
from graph.recall.records import FoundMemory

SEMANTIC_WEIGHT: Final = 0.5


def rescaled(scores: Sequence[float]) -> list[float]:
    """Scores mapped onto 0..1 over their own list; a lone or all-equal list counts as a full match."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    return [1.0 if high == low else (score - low) / (high - low) for score in scores]


@dataclass
class Candidate:
    memory: FoundMemory
    lexical: float = 0.0
    semantic: float = 0.0
    lanes: list[RecallLane] = field(default_factory=list)
    score: float = 0.0

    def item(self) -> RecallItem:
        return RecallItem(
            kind=self.memory.kind,
            id=self.memory.id,
            text=self.memory.text,
            score=self.score,
            lanes=self.lanes,
            status=self.memory.status,
            created_at=self.memory.created_at,
            occurred_at=self.memory.occurred_at,
            quality=self.memory.quality,
        )


def fuse(
    lexical: dict[RecallKind, list[FoundMemory]],
    semantic: dict[RecallKind, list[FoundMemory]] | None,
    limit: int,
) -> list[Candidate]:
    """The `limit` best memories of both lanes, best first, each carrying its fused score."""
    candidates: dict[str, Candidate] = {}
    for memories in lexical.values():
        for memory, scaled in zip(memories, rescaled([m.score for m in memories]), strict=True):
            found = candidates.setdefault(memory.id, Candidate(memory))
            found.lexical, found.lanes = scaled, [*found.lanes, "lexical"]
    near = [memory for memories in (semantic or {}).values() for memory in memories]
    for memory, scaled in zip(near, rescaled([m.score for m in near]), strict=True):
        found = candidates.setdefault(memory.id, Candidate(memory))
        found.semantic, found.lanes = scaled, [*found.lanes, "semantic"]
    weight = SEMANTIC_WEIGHT if semantic is not None else 0.0
    for found in candidates.values():
        found.score = round((1 - weight) * found.lexical + weight * found.semantic, 6)
    ranked = sorted(
        candidates.values(),
        key=lambda found: (-found.score, -found.memory.quality, -found.memory.created_at.timestamp()),
    )
    return ranked[:limit]


def clarifications_of(memories: Sequence[FoundMemory], limit: int) -> list[ClarificationView]:
    """The open clarifications touching the results, newest first."""
    found = {question.id: question for memory in memories for question in memory.clarifications}
    return sorted(found.values(), key=lambda question: question.created_at, reverse=True)[:limit]
