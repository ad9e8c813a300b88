"""Recall's semantic lane: the profile's memories nearest in meaning to the query.

One search of the shared vector index per wanted status, filtered inside the index to this
profile, the running model and that status (`semantic_queries.py`), so a small profile beside
a large neighbour gets its own nearest memories. Only a recall that looks back in time
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
        }


async def _nearest(tx: ProfileTx, search: SemanticSearch, fetch: int) -> list[FoundMemory]:
    return [FoundMemory.from_row(row) for row in await tx.run(q.NEAREST, **search.params(fetch))]


async def semantic_lists(tx: ProfileTx, search: SemanticSearch) -> dict[EmbeddedKind, list[FoundMemory]]:
    """Each searched kind's nearest live memories of this profile, best first."""
    fetch = max(search.limit, MIN_FETCH)
    found = await _nearest(tx, search, fetch)
    while search.looks_back and len(found) < search.enough and fetch < MAX_FETCH:
        fetch = _next_fetch(fetch, len(found), search.enough)
        found = await _nearest(tx, search, fetch)
    if len(found) < search.enough and fetch >= MAX_FETCH:
        log.info("semantic lane: short of %d after %d neighbours", search.enough, fetch)
    return {
        kind: [memory for memory in found if memory.kind == kind.value and memory.score >= search.min_score]
        for kind in SEARCHED_KINDS
    }


async def similarities(
    tx: ProfileTx, vector: Vector, model_id: str, ids: Mapping[EmbeddedKind, Sequence[str]]
) -> dict[str, float]:
    """The cosine score of each named memory (`ids` per kind) that has a vector of the model."""
    named = {kind.value: list(ids.get(kind, ())) for kind in SEARCHED_KINDS}
    if not any(named.values()):
        return {}  # the nearest search brought them all: no round trip
    rows = await tx.run(q.SIMILARITIES, ids=named, vector=vector, model=model_id)
    return {str(row["id"]): float(row["score"]) for row in rows}


def _next_fetch(fetch: int, usable: int, enough: int) -> int:
    """How many neighbours to ask for next, from how many of the last `fetch` were usable.

    A look back in time often keeps some of the first neighbours, just too few: the share kept
    says how far to look, with half again as margin (2 to 8 times as many). Only when none were
    kept does the search jump eightfold."""
    growth = 8 if usable == 0 else min(max(math.ceil(1.5 * enough / usable), 2), 8)
    return min(fetch * growth, MAX_FETCH)
