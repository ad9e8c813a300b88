"""Recall's semantic lane: the profile's memories nearest in meaning to the query.

The vector index is shared by every profile and cannot filter before it ranks, so a small
profile beside a large neighbour would find only the neighbour's vectors among the index's
nearest. The lane therefore picks, per kind, one of two ways that both stay inside the profile:

- up to `EXACT_LIMIT` (1,000) vectors of the profile: an exact cosine over exactly those nodes, found
  through the (profile_id, embedding_model) index: no neighbour can crowd them out;
- more: the shared index, asked for `limit * FIRST_FETCH_FACTOR` neighbours and filtered on
  profile, model and status; when too few survive it asks again for eight times as many, up to
  `MAX_FETCH`. A profile this large holds a large share of the index unless the database is
  crowded with larger ones; how far that holds is measured in bench/ (README, "Semantic memory").
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from graph.access import ProfileTx
from graph.embedding.encoder import Vector
from graph.embedding.kinds import STORAGE, EmbeddedKind
from graph.memory import semantic_queries as q

log = logging.getLogger(__name__)

# An exact scan costs about 11 microseconds a node here (reading its 384 floats), so 1,000
# stay near 12 ms; beyond that the index is cheaper.
EXACT_LIMIT: Final = 1_000
FIRST_FETCH_FACTOR: Final = 2
MAX_FETCH: Final = 4_000
Row = dict[str, Any]


@dataclass(frozen=True)
class SemanticSearch:
    vector: Vector
    model_id: str
    statuses: Mapping[EmbeddedKind, Sequence[str]]
    limit: int
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


async def semantic_lists(tx: ProfileTx, search: SemanticSearch) -> dict[EmbeddedKind, list[Row]]:
    """Each searched kind's nearest live memories of this profile, best first."""
    sizes = await tx.single(q.EMBEDDED_SIZES, model=search.model_id, cap=EXACT_LIMIT + 1) or {}
    exact = [kind for kind in q.SEARCHED_KINDS if 0 < int(sizes.get(kind.value, 0)) <= EXACT_LIMIT]
    indexed = [kind for kind in q.SEARCHED_KINDS if int(sizes.get(kind.value, 0)) > EXACT_LIMIT]
    found: dict[EmbeddedKind, list[Row]] = {kind: [] for kind in q.SEARCHED_KINDS}
    fetch = search.limit * FIRST_FETCH_FACTOR
    while exact or indexed:
        rows = await tx.run(
            q.NEAREST,
            exact=[kind.value for kind in exact],
            searches=[
                {
                    "kind": kind.value,
                    "index": STORAGE[kind].vector_index,
                    "fetch": fetch,
                    "statuses": list(search.statuses[kind]),
                }
                for kind in indexed
            ],
            statuses={kind.value: list(search.statuses[kind]) for kind in q.SEARCHED_KINDS},
            **search.filters(),
        )
        for kind in (*exact, *indexed):
            found[kind] = [row for row in rows if row["kind"] == kind.value]
        exact, indexed = [], [kind for kind in indexed if len(found[kind]) < search.limit]
        if indexed and fetch >= MAX_FETCH:
            log.info("semantic lane: %s short of %d after %d neighbours", indexed, search.limit, fetch)
            break
        fetch = min(fetch * 8, MAX_FETCH)
    return {kind: [row for row in rows if row["score"] >= search.min_score] for kind, rows in found.items()}
