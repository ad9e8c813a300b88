"""Recall's semantic lane: the profile's memories nearest in meaning to the query.

The vector index is shared by every profile and cannot filter before it ranks, so a small
profile beside a large neighbour would find only the neighbour's vectors among the index's
nearest. Per kind, the lane therefore:

1. asks the shared index (fragments, claims and facts of every profile) for `limit`
   neighbours, filtered on profile, model and status;
2. when fewer than `enough` of those were this profile's: reads each kind of which the profile
   holds up to `EXACT_LIMIT` vectors whole (an exact cosine over exactly its nodes, found through
   the (profile_id, embedding_model) index, so no neighbour can crowd them out), and asks the
   index again for more neighbours for the larger kinds (as many more as the share of usable
   ones found so far suggests, see `_next_fetch`), up to `MAX_FETCH`.

A profile alone in its database (the usual case) is served by step 1 in one round trip. A
large profile crowded out even at `MAX_FETCH` gets fewer semantic candidates (logged); its
lexical lane is unaffected. Reading whole costs about 11 microseconds a vector here. An index
search costs in proportion to how many neighbours it is asked for (Lucene searches each segment
of the index for all of them: about 9 ms for 30 and 16 ms for 60 at 120,000 vectors), so the
first search asks for no more than the fusion takes; figures in the README ("Semantic memory").
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

log = logging.getLogger(__name__)

# Reading 1,000 vectors whole costs about 12 ms here.
EXACT_LIMIT: Final = 1_000
MAX_FETCH: Final = 4_000


@dataclass(frozen=True)
class SemanticSearch:
    vector: Vector
    model_id: str
    statuses: Mapping[EmbeddedKind, Sequence[str]]
    limit: int
    # Fewer of the profile's own memories than this among the first neighbours widens the search.
    enough: int
    # Nearest is not the same as related: rows scoring under this are dropped after the search.
    min_score: float
    known_at: datetime | None
    valid_at: datetime | None

    def filters(self) -> dict[str, Any]:
        return {
            "vector": self.vector,
            "model": self.model_id,
            "limit": self.limit,
            "known_at": self.known_at,
            "valid_at": self.valid_at,
        }


async def _nearest(
    tx: ProfileTx, search: SemanticSearch, exact: list[EmbeddedKind], indexed: list[EmbeddedKind], fetch: int
) -> list[FoundMemory]:
    rows = await tx.run(q.NEAREST, **_params(search, exact=exact, indexed=indexed, fetch=fetch))
    return [FoundMemory.from_row(row) for row in rows]


async def semantic_lists(tx: ProfileTx, search: SemanticSearch) -> dict[EmbeddedKind, list[FoundMemory]]:
    """Each searched kind's nearest live memories of this profile, best first."""
    kinds = list(q.SEARCHED_KINDS)
    found = await _nearest(tx, search, exact=[], indexed=kinds, fetch=search.limit)
    if len(found) < search.enough:
        found = await _widened(tx, search, found)
    return {
        kind: [memory for memory in found if memory.kind == kind.value and memory.score >= search.min_score]
        for kind in kinds
    }


async def _widened(tx: ProfileTx, search: SemanticSearch, first: list[FoundMemory]) -> list[FoundMemory]:
    """Too few of the index's nearest were this profile's (or live): read small kinds whole and
    ask the index again, for more neighbours each time (`_next_fetch`), for the larger ones."""
    counted = await tx.single(q.EMBEDDED_SIZES, model=search.model_id, cap=EXACT_LIMIT + 1) or {}
    sizes = {kind: int(counted.get(kind.value, 0)) for kind in q.SEARCHED_KINDS}
    exact = [kind for kind in q.SEARCHED_KINDS if 0 < sizes[kind] <= EXACT_LIMIT]
    indexed = [kind for kind in q.SEARCHED_KINDS if sizes[kind] > EXACT_LIMIT]
    kept = {kind: [memory for memory in first if memory.kind == kind.value] for kind in q.SEARCHED_KINDS}
    fetch = search.limit
    while exact or indexed:
        usable = sum(len(kept[kind]) for kind in indexed)
        fetch = _next_fetch(fetch, usable, search.enough)
        found = await _nearest(tx, search, exact=exact, indexed=indexed, fetch=fetch)
        for kind in (*exact, *indexed):
            kept[kind] = [memory for memory in found if memory.kind == kind.value]
        exact = []
        if fetch >= MAX_FETCH or sum(len(kept[kind]) for kind in indexed) >= search.enough:
            break
    if fetch >= MAX_FETCH:
        log.info("semantic lane: short of %d after %d neighbours", search.enough, fetch)
    return [memory for memories in kept.values() for memory in memories]


async def similarities(
    tx: ProfileTx, vector: Vector, model_id: str, ids: Mapping[EmbeddedKind, Sequence[str]]
) -> dict[str, float]:
    """The cosine score of each named memory (`ids` per kind) that has a vector of the model."""
    named = {kind.value: list(ids.get(kind, ())) for kind in q.SEARCHED_KINDS}
    if not any(named.values()):
        return {}  # the nearest search brought them all: no round trip
    rows = await tx.run(q.SIMILARITIES, ids=named, vector=vector, model=model_id)
    return {str(row["id"]): float(row["score"]) for row in rows}


def _next_fetch(fetch: int, usable: int, enough: int) -> int:
    """How many neighbours to ask for next, from how many of the last `fetch` were usable.

    A large profile among neighbours, or with many replaced facts and settled claims, often
    finds some of its own memories among the first neighbours, just too few: the share it did
    find says how far to look, with half again as margin (2 to 8 times as many). Only when none
    were usable does the search jump eightfold. A search costs in proportion to what it asks
    for: on the bench's 100,000-memory profile one query in ten widens, and its second search,
    now for 90 neighbours instead of 240, took 15.7 instead of 21.6 ms at the median."""
    growth = 8 if usable == 0 else min(max(math.ceil(1.5 * enough / usable), 2), 8)
    return min(fetch * growth, MAX_FETCH)


def _params(
    search: SemanticSearch, exact: list[EmbeddedKind], indexed: list[EmbeddedKind], fetch: int
) -> dict[str, Any]:
    return {
        "exact": [kind.value for kind in exact],
        "indexed": [kind.value for kind in indexed],
        "fetch": fetch,
        "statuses": {kind.value: list(search.statuses[kind]) for kind in q.SEARCHED_KINDS},
        **search.filters(),
    }
