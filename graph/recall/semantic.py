"""Recall's semantic lane: the profile's memories nearest in meaning to the query.

One search of the shared vector index, filtered inside the index to this profile and the
running model (`semantic_queries.py`), so a small profile beside a large neighbour gets its own
nearest memories. Neighbours whose status their kind does not want, or that a look back in
time (`known_at`, `valid_at`) rules out, are dropped after the search; when too few are left and
the index had more to give, the lane asks again for more neighbours. An index search costs in
proportion to how many neighbours it is asked for, so the first asks for the fusion's share and
a margin.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from graph.access import PackedVector, ProfileTx
from graph.embedding.keeper import DUE_LIMIT, Unembedded
from graph.embedding.kinds import EmbeddedKind
from graph.recall import semantic_queries as q
from graph.recall.records import FoundMemory
from graph.recall.semantic_queries import SEARCHED_KINDS
from graph.rows import Row

log = logging.getLogger(__name__)

MAX_FETCH: Final = 4_000
# The index is asked for at least this many neighbours, what a recall of 10 asks anyway: an
# approximate (HNSW) search for a handful misses too often. A profile of 150 near-identical
# notes and one about a puppy had the puppy missing from the first 3 neighbours of "Does the
# person own a dog?", and first among the first 9.
MIN_FETCH: Final = 30
# Half as many again as needed: the first search's margin over the fusion's share, since some
# neighbours are not live, and a widening's margin over what the share kept suggests. The
# bench's profile of 1,000 (999 fragments, 222 facts, each beside the claim promoted into it,
# and 36 rejected or candidate claims): 200 queries kept 22 to 30 of 30 neighbours, and 35 to 45
# of 45.
HEADROOM: Final = 1.5


@dataclass(frozen=True)
class SemanticSearch:
    vector: PackedVector
    model_id: str
    statuses: Mapping[EmbeddedKind, Sequence[str]]
    limit: int
    # A search that keeps fewer than this, when the index had more to give, is asked again for more.
    enough: int
    # Nearest is not the same as related: rows scoring under this are dropped after the search.
    min_score: float
    known_at: datetime | None
    valid_at: datetime | None
    # How many memories owed a vector (`SemanticLane.due`) the search reads at most.
    due_limit: int = DUE_LIMIT

    def params(self, fetch: int) -> dict[str, Any]:
        statuses = {kind.value: list(self.statuses[kind]) for kind in SEARCHED_KINDS}
        return {
            "vector": self.vector,
            "model": self.model_id,
            "limit": self.limit,
            "known_at": self.known_at,
            "valid_at": self.valid_at,
            "statuses": statuses,
            "fetch": fetch,
            "due_limit": self.due_limit,
        }


@dataclass(frozen=True)
class SemanticLane:
    """What the semantic lane found: each searched kind's nearest memories above the floor,
    best first, the cosine score of every memory searched (`cosines`), and the profile's
    memories still without the vector another process owes them (`due`), which the search
    could not find by meaning."""

    nearest: dict[EmbeddedKind, list[FoundMemory]]
    cosines: dict[str, float]
    due: list[Unembedded]

    @classmethod
    def from_row(cls, row: Row, min_score: float) -> SemanticLane:
        """From `NEAREST`: its nearest rows under `min_score` are not kept as found, but their
        scores are, for a lexical candidate among them."""
        found = [FoundMemory.from_row(entry) for entry in row["nearest"]]
        cosines = {memory.id: memory.score for memory in found}
        nearest = {
            kind: [memory for memory in found if memory.kind == kind.value and memory.score >= min_score]
            for kind in SEARCHED_KINDS
        }
        due = [Unembedded(EmbeddedKind(str(node["kind"])), str(node["id"])) for node in row["due"]]
        return cls(nearest, cosines, due)


@dataclass(frozen=True)
class _Searched:
    lane: SemanticLane
    # How many neighbours were kept, and whether the index ran out of this profile's vectors.
    kept: int
    exhausted: bool


async def _nearest(tx: ProfileTx, search: SemanticSearch, fetch: int) -> _Searched:
    row = await tx.one(q.NEAREST, **search.params(fetch))
    lane = SemanticLane.from_row(row, search.min_score)
    return _Searched(lane, len(row["nearest"]), int(row["searched"]) < fetch)


async def semantic_lane(tx: ProfileTx, search: SemanticSearch) -> SemanticLane:
    """Each searched kind's nearest live memories of this profile."""
    fetch = first_fetch(search.limit)
    found = await _nearest(tx, search, fetch)
    while found.kept < search.enough and not found.exhausted and fetch < MAX_FETCH:
        fetch = _next_fetch(fetch, found.kept, search.enough)
        found = await _nearest(tx, search, fetch)
    if found.kept < search.enough and not found.exhausted:
        log.info("semantic lane: short of %d after %d neighbours", search.enough, fetch)
    return found.lane


def first_fetch(limit: int) -> int:
    """How many neighbours the first search asks for, when the lane is to bring `limit`."""
    return max(math.ceil(limit * HEADROOM), MIN_FETCH)


def _next_fetch(fetch: int, usable: int, enough: int) -> int:
    """How many neighbours to ask for next, from how many of the last `fetch` were usable.

    A search often keeps some of the first neighbours, just too few: the share kept
    says how far to look, with half again as margin (2 to 8 times as many). Only when none were
    kept does the search jump eightfold."""
    growth = 8 if usable == 0 else min(max(math.ceil(HEADROOM * enough / usable), 2), 8)
    return min(fetch * growth, MAX_FETCH)
