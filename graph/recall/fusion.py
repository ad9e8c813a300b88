"""How recall ranks: each candidate gets two scores on a scale of their own, 0 to 1, that mean
the same whatever else the profile or the database holds, and the fused score is their weighted
sum. Pure functions, no database.

- The lexical share: how much of the query's word weight the memory matches. A word's weight
  is its inverse document frequency among the profile's own live memories of the kind (Okapi
  BM25's idf, counted by `graph/recall/queries.py`), so a word in every memory (the person's
  name in a profile about her) weighs next to nothing and a rare one nearly everything; the
  matched weight is damped by the memory's length as BM25 damps it (term frequency taken as
  one: memories are short), and divided by the most any memory could score. A memory matching
  every word of the query at average length scores about 0.6, one matching only the name
  about 0.
- The meaning share: the cosine between query and memory above the model's floor
  (`ModelSpec.min_cosine`, under which a memory is not related), as a share of the way from
  that floor to 1. Each candidate's cosine is exact, whichever lane brought it.

The old fusion rescaled each lane onto 0..1 over its own candidates, so the best lexical
candidate scored 1 even when all it matched was a word every memory has; on ten memories about
Ada, 5 of 9 paraphrase questions found their memory in the top 3, and 9 of 9 with these scores.
The weight was chosen on the LoCoMo development split holding out each conversation in turn
(docs/recall.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from graph.embedding.catalog import cosine_of_score
from graph.memory.models import ClarificationView
from graph.recall.models import RecallItem, RecallKind, RecallLane
from graph.recall.records import FoundMemory

SEMANTIC_WEIGHT: Final = 0.65
# Okapi BM25's saturation and length normalisation, as Lucene sets them.
K1: Final = 1.2
B: Final = 0.75
# The most a matched word's length damping can give (a memory of no length): the share's divisor.
MOST_DAMPING: Final = (K1 + 1) / (1 + K1 * (1 - B))


def meaning_share(score: float, min_cosine: float) -> float:
    """A Neo4j cosine score (0..1) as the share of the way from the model's floor to a perfect match."""
    cosine = cosine_of_score(score)
    return min(max((cosine - min_cosine) / (1.0 - min_cosine), 0.0), 1.0)


@dataclass
class LaneResults:
    """What the lanes found: each lane's candidates per kind, best first, and the other lane's
    score of every candidate it did not bring itself."""

    # Scores are lexical shares.
    lexical: dict[RecallKind, list[FoundMemory]] = field(default_factory=dict)
    # The lexical share of each kind's best-matching memories (more than the candidates).
    shares: dict[str, float] = field(default_factory=dict)
    # Scores are Neo4j cosine scores; None when the semantic lane is off.
    semantic: dict[RecallKind, list[FoundMemory]] | None = None
    # The Neo4j cosine score of each lexical candidate the semantic lane did not bring.
    similarities: dict[str, float] = field(default_factory=dict)


@dataclass
class Candidate:
    memory: FoundMemory
    lexical: float = 0.0
    semantic: float = 0.0
    score: float = 0.0

    @property
    def lanes(self) -> list[RecallLane]:
        """The lanes that found it: its words match the query's, its meaning is above the floor."""
        found: list[RecallLane] = []
        if self.lexical > 0:
            found.append("lexical")
        if self.semantic > 0:
            found.append("semantic")
        return found

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


def _candidates(lanes: LaneResults, min_cosine: float) -> dict[str, Candidate]:
    candidates: dict[str, Candidate] = {}
    for memory in (memory for memories in lanes.lexical.values() for memory in memories):
        candidates[memory.id] = Candidate(memory, lexical=memory.score)
        if memory.id in lanes.similarities:
            candidates[memory.id].semantic = meaning_share(lanes.similarities[memory.id], min_cosine)
    for memory in (memory for memories in (lanes.semantic or {}).values() for memory in memories):
        found = candidates.setdefault(memory.id, Candidate(memory, lexical=lanes.shares.get(memory.id, 0.0)))
        found.semantic = meaning_share(memory.score, min_cosine)
    return candidates


def fuse(lanes: LaneResults, min_cosine: float, limit: int) -> list[Candidate]:
    """The `limit` best memories of both lanes, best first, each carrying its fused score."""
    weight = SEMANTIC_WEIGHT if lanes.semantic is not None else 0.0
    candidates = _candidates(lanes, min_cosine)
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


def lexical_ids(lexical: Mapping[RecallKind, Sequence[FoundMemory]]) -> dict[RecallKind, list[str]]:
    """The ids of the lexical candidates per kind (whose cosines the semantic lane then reads)."""
    return {kind: [memory.id for memory in memories] for kind, memories in lexical.items()}
