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

A candidate said in the days the question names (`graph/recall/dated.py`) is lifted a share of
the way from its score to 1, and the turn said right after a chosen question then takes a share
of that question's lead over its own score (`lift_neighbours`; `graph/recall/neighbours.py`
says why).

The old fusion rescaled each lane onto 0..1 over its own candidates, so the best lexical
candidate scored 1 even when all it matched was a word every memory has; on ten memories about
Ada, 5 of 9 paraphrase questions found their memory in the top 3, and 9 of 9 with these scores.
The weight was chosen on the LoCoMo development split holding out each conversation in turn
(docs/recall.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Final

from graph.embedding.catalog import cosine_of_score
from graph.memory.models import ClarificationView
from graph.recall.models import RecallItem, RecallKind, RecallLane
from graph.recall.periods import Period, nearness
from graph.recall.records import FoundMemory

SEMANTIC_WEIGHT: Final = 0.65
# The share of a chosen question's lead over its own score that the turn said next takes. Chosen
# on the LoCoMo development split holding out each conversation in turn (0, 0.25, 0.5, 0.75 and
# 1 tried; every fold chose 0.75): docs/recall.md.
NEIGHBOUR_SHARE: Final = 0.75
# The share of the way to 1 that a candidate said in the days the question names is lifted.
# Chosen on the LoCoMo development split holding out each conversation in turn: docs/recall.md.
DATE_SHARE: Final = 0.25
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
    # The Neo4j cosine score of each lexical candidate (and of what the semantic lane brought).
    similarities: dict[str, float] = field(default_factory=dict)
    # The days the question names, and the fragments said in them (scores are cosine scores).
    periods: tuple[Period, ...] = ()
    dated: list[FoundMemory] = field(default_factory=list)


@dataclass
class Candidate:
    memory: FoundMemory
    lexical: float = 0.0
    semantic: float = 0.0
    score: float = 0.0
    # Its score was raised by the chosen question it answers.
    lifted: bool = False
    # How near the days the question names it was said (`graph.recall.periods.nearness`).
    said_near: float = 0.0

    @property
    def lanes(self) -> list[RecallLane]:
        """The lanes that found it: its words match the query's, its meaning is above the floor,
        it was said when the question says, it answers a stronger result's question."""
        found: list[RecallLane] = []
        if self.lexical > 0:
            found.append("lexical")
        if self.semantic > 0:
            found.append("semantic")
        if self.said_near > 0:
            found.append("date")
        if self.lifted:
            found.append("context")
        return found

    def own_score(self, weight: float) -> float:
        """Its two lanes' shares, weighed (`weight` is the meaning share's), lifted toward 1
        when it was said in a day the question names."""
        score = (1 - weight) * self.lexical + weight * self.semantic
        score += DATE_SHARE * self.said_near * (1 - score)
        return round(score, 6)

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
    nearest = (memory for memories in (lanes.semantic or {}).values() for memory in memories)
    for memory in chain(nearest, lanes.dated):
        found = candidates.setdefault(memory.id, Candidate(memory, lexical=lanes.shares.get(memory.id, 0.0)))
        if lanes.semantic is not None:
            found.semantic = meaning_share(memory.score, min_cosine)
    for found in candidates.values():
        found.said_near = nearness(found.memory.occurred_at, lanes.periods)
    return candidates


def _lane_weight(lanes: LaneResults) -> float:
    return SEMANTIC_WEIGHT if lanes.semantic is not None else 0.0


def _ranked(candidates: Iterable[Candidate], limit: int) -> list[Candidate]:
    ranked = sorted(
        candidates,
        key=lambda found: (-found.score, -found.memory.quality, -found.memory.created_at.timestamp()),
    )
    return ranked[:limit]


def fuse(lanes: LaneResults, min_cosine: float, limit: int) -> list[Candidate]:
    """The `limit` best memories of both lanes, best first, each carrying its fused score."""
    weight = _lane_weight(lanes)
    candidates = _candidates(lanes, min_cosine)
    for found in candidates.values():
        found.score = found.own_score(weight)
    return _ranked(candidates.values(), limit)


def lift_neighbours(
    chosen: Sequence[Candidate],
    neighbours: Sequence[tuple[str, FoundMemory]],
    lanes: LaneResults,
    min_cosine: float,
    limit: int,
) -> list[Candidate]:
    """`chosen` and the turns said right after its questions (`neighbours`: pairs of a chosen
    question's id and the next turn, scored by cosine), the `limit` best. A next turn scores as
    any candidate would, and at least its own score plus `NEIGHBOUR_SHARE` of the question's
    lead."""
    weight = _lane_weight(lanes)
    anchors = {found.memory.id: found.score for found in chosen}
    pool = {found.memory.id: found for found in chosen}
    for anchor_id, memory in neighbours:
        found = pool.get(memory.id)
        if found is None:
            lexical = lanes.shares.get(memory.id, 0.0)
            semantic = meaning_share(memory.score, min_cosine) if weight else 0.0
            found = pool[memory.id] = Candidate(memory, lexical=lexical, semantic=semantic)
            found.said_near = nearness(memory.occurred_at, lanes.periods)
        own = found.own_score(weight)
        found.score = max(found.score, own)
        lifted = round(own + NEIGHBOUR_SHARE * (anchors[anchor_id] - own), 6)
        if lifted > found.score:
            found.score, found.lifted = lifted, True
    return _ranked(pool.values(), limit)


def clarifications_of(memories: Sequence[FoundMemory], limit: int) -> list[ClarificationView]:
    """The open clarifications touching the results, newest first."""
    found = {question.id: question for memory in memories for question in memory.clarifications}
    return sorted(found.values(), key=lambda question: question.created_at, reverse=True)[:limit]
