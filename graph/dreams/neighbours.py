"""Neighbourhoods in meaning for the dream phase, kept inside one profile.

A profile of up to `EXACT_LIMIT` vectors is read whole once per cycle and compared in the
process (a few milliseconds with numpy): exact, and no other profile's vectors can crowd it.
A larger profile is searched through the shared vector index, which filters to the profile's
live memories inside the index, so no other profile can crowd it out. Every cosine here is the
plain cosine (-1..1), not Neo4j's 0..1 score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Final, Protocol

import anyio
import numpy as np
from numpy.typing import NDArray

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.records import EmbeddedMemory, Memory, Neighbour, PairCosine
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.rows import count_of
from graph.schema import VECTOR_DIMENSIONS

EXACT_LIMIT: Final = 2_000
# Found beside the neighbours wanted and then dropped: the member itself, and the few answers the
# person gave to dreams (live fragments too, but never a dream's source).
_SEARCH_MARGIN: Final = 5
# Member id -> its nearest memories and their cosines, nearest first.
Neighbours = dict[str, list[tuple[Memory, float]]]


def pair_id(first: str, second: str) -> tuple[str, str]:
    first, second = sorted((first, second))
    return first, second


class MeaningSpace(Protocol):
    async def neighbours(self, members: Sequence[Memory], count: int) -> Neighbours: ...

    async def cosines(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]: ...


class ExactSpace:
    """The whole profile's vectors in memory."""

    def __init__(self, memories: list[Memory], vectors: NDArray[np.float32]) -> None:
        self.memories = memories
        self._vectors = vectors
        self._index = {memory.id: position for position, memory in enumerate(memories)}

    # Both compare and rank in a worker thread: over a whole profile that is tens of milliseconds
    # at a time, which a server's event loop would otherwise spend not answering recalls.
    async def neighbours(self, members: Sequence[Memory], count: int) -> Neighbours:
        return await anyio.to_thread.run_sync(self._nearest, members, count)

    async def cosines(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        return await anyio.to_thread.run_sync(self._cosines, pairs)

    def _nearest(self, members: Sequence[Memory], count: int) -> Neighbours:
        found: Neighbours = {}
        known = [member.id for member in members if member.id in self._index]
        if not known or len(self.memories) < 2:
            return found
        rows = np.array([self._index[member_id] for member_id in known])
        similarity = self._vectors[rows] @ self._vectors.T
        similarity[np.arange(len(rows)), rows] = -np.inf  # a memory is not its own neighbour
        take = min(count, len(self.memories) - 1)
        nearest = np.argpartition(-similarity, take - 1, axis=1)[:, :take]
        for row, member_id in enumerate(known):
            ranked = sorted(nearest[row], key=lambda i: -similarity[row, i])
            found[member_id] = [(self.memories[i], float(similarity[row, i])) for i in ranked]
        return found

    def _cosines(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        index = self._index
        return {
            pair_id(a, b): float(self._vectors[index[a]] @ self._vectors[index[b]])
            for a, b in pairs
            if a in index and b in index
        }


class IndexSpace:
    """The shared vector index, filtered to the profile."""

    def __init__(self, tx: ProfileTx, model: str) -> None:
        self._tx, self._model = tx, model

    async def neighbours(self, members: Sequence[Memory], count: int) -> Neighbours:
        rows = await self._tx.run(
            q.NEAREST_NEIGHBOURS,
            fragments=[m.id for m in members if m.kind == "fragment"],
            facts=[m.id for m in members if m.kind == "fact"],
            model=self._model,
            fetch=count + _SEARCH_MARGIN,
            per_member=count,
            feedback_label=DREAM_FEEDBACK_LABEL,
        )
        found: Neighbours = defaultdict(list)
        for neighbour in map(Neighbour.from_row, rows):
            found[neighbour.member_id].append((neighbour.memory, neighbour.cosine))
        return dict(found)

    async def cosines(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
        rows = await self._tx.run(q.PAIR_SIMILARITY, pairs=[list(pair) for pair in pairs], model=self._model)
        return {pair_id(pair.first, pair.second): pair.cosine for pair in map(PairCosine.from_row, rows)}


async def open_space(tx: ProfileTx, model: str) -> MeaningSpace:
    if count_of(await tx.single(q.PROFILE_VECTOR_COUNT, model=model, cap=EXACT_LIMIT + 1)) > EXACT_LIMIT:
        return IndexSpace(tx, model)
    rows = await tx.run(q.PROFILE_VECTORS, model=model, cap=EXACT_LIMIT, feedback_label=DREAM_FEEDBACK_LABEL)
    embedded = [EmbeddedMemory.from_row(row) for row in rows]
    # Shaped explicitly so a profile with no live vectors yet (all retracted, say) is an empty
    # space rather than an error.
    vectors = np.array([item.embedding for item in embedded], dtype=np.float32).reshape(
        len(embedded), VECTOR_DIMENSIONS
    )
    return ExactSpace([item.memory for item in embedded], vectors)
