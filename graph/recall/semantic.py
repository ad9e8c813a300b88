"""Recall's semantic lane: the profile's memories nearest in meaning to the query.

One search of the shared vector index per wanted status, filtered inside the index to this
profile, the running model and that status (`semantic_queries.py`), so a small profile beside
a large neighbour gets its own nearest memories. The same query scores the lexical lane's
candidates the search did not bring. Only a recall that looks back in time
(`known_at`, `valid_at`) drops rows after the search, and asks again for more neighbours when
too few are left. An index search costs in proportion to how many neighbours it is asked for,
so the first asks for no more than the fusion takes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from graph.access import ProfileTx
from graph.embedding.encoder import Vector
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


@dataclass(frozen=True)
class SemanticSearch:
    vector: Vector
    model_id: str
    statuses: Mapping[EmbeddedKind, Sequence[str]]
    limit: int
    # A look back in time that leaves fewer than this widens the search.
    enough: int
    # Nearest is not the same as related: rows scoring under this are dropped after the search.
    min_score: float
    known_at: datetime | None
    valid_at: datetime | None
    # The memories whose cosine score is wanted too, per kind (the lexical lane's candidates).
    named: Mapping[EmbeddedKind, Sequence[str]]

    @property
    def looks_back(self) -> bool:
        return self.known_at is not None or self.valid_at is not None

    def params(self, fetch: int) -> dict[str, Any]:
        statuses = {kind.value: list(self.statuses[kind]) for kind in SEARCHED_KINDS}
        return {
            "vector": self.vector,
            "model": self.model_id,
            "limit": self.limit,
            "known_at": self.known_at,
            "valid_at": self.valid_at,
            "statuses": statuses,
            "wanted": sorted({status for wanted in statuses.values() for status in wanted}),
            "fetch": fetch,
            "named": {kind.value: list(self.named.get(kind, ())) for kind in SEARCHED_KINDS},
        }


@dataclass(frozen=True)
class SemanticLane:
    """What the semantic lane found: each searched kind's nearest memories above the floor,
    best first, and the cosine score of every memory asked for or searched (`cosines`)."""

    nearest: dict[EmbeddedKind, list[FoundMemory]]
    cosines: dict[str, float]

    @classmethod
    def from_row(cls, row: Row, min_score: float) -> SemanticLane:
        """From `NEAREST`: its nearest rows under `min_score` are not kept as found, but their
        scores are, for a lexical candidate among them."""
        found = [FoundMemory.from_row(entry) for entry in row["nearest"]]
        cosines = {str(memory_id): float(score) for memory_id, score in row["cosines"]}
        cosines.update((memory.id, memory.score) for memory in found)
        nearest = {
            kind: [memory for memory in found if memory.kind == kind.value and memory.score >= min_score]
            for kind in SEARCHED_KINDS
        }
        return cls(nearest, cosines)


async def _nearest(tx: ProfileTx, search: SemanticSearch, fetch: int) -> tuple[SemanticLane, int]:
    """The lane from `fetch` neighbours, and how many of them a look back in time kept."""
    row = await tx.one(q.NEAREST, **search.params(fetch))
    return SemanticLane.from_row(row, search.min_score), len(row["nearest"])


async def semantic_lane(tx: ProfileTx, search: SemanticSearch) -> SemanticLane:
    """Each searched kind's nearest live memories of this profile, and the named ones' cosines."""
    fetch = max(search.limit, MIN_FETCH)
    lane, kept = await _nearest(tx, search, fetch)
    while search.looks_back and kept < search.enough and fetch < MAX_FETCH:
        fetch = _next_fetch(fetch, kept, search.enough)
        lane, kept = await _nearest(tx, search, fetch)
    if kept < search.enough and fetch >= MAX_FETCH:
        log.info("semantic lane: short of %d after %d neighbours", search.enough, fetch)
    return lane


def _next_fetch(fetch: int, usable: int, enough: int) -> int:
    """How many neighbours to ask for next, from how many of the last `fetch` were usable.

    A look back in time often keeps some of the first neighbours, just too few: the share kept
    says how far to look, with half again as margin (2 to 8 times as many). Only when none were
    kept does the search jump eightfold."""
    growth = 8 if usable == 0 else min(max(math.ceil(1.5 * enough / usable), 2), 8)
    return min(fetch * growth, MAX_FETCH)
