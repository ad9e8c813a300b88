"""Keeping a profile's vectors in step with the running model.

`embed_missing` is the backfill: it claims a batch of nodes whose vector is missing or from
another model, embeds them outside any transaction (a model run must never sit inside a
transaction the driver may retry), writes the batch, and moves on. Each batch commits on its
own, so an interrupted backfill resumes where it stopped and a finished one finds nothing to do.
The claim keeps several processes serving one profile from running the model on one node: a
backfill passes over nodes another holds, and `claimed_elsewhere` says when any remain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.embedding import queries as q
from graph.embedding.encoder import Embedder, Vector
from graph.embedding.kinds import EmbeddedKind
from graph.rows import Row

BACKFILL_BATCH: Final = 64
# How long a claimed batch is left to its process: far longer than a batch takes, short enough
# that a process that died holds nothing for long.
CLAIM_SECONDS: Final = 120.0
_START: Final = datetime(1, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class KindCounts:
    kind: EmbeddedKind
    total: int
    embedded: int

    @property
    def pending(self) -> int:
        return self.total - self.embedded

    @classmethod
    def from_row(cls, kind: EmbeddedKind, row: Row | None) -> KindCounts:
        """From `COUNT_VECTORS[kind]`; no row counts nothing."""
        if row is None:
            return cls(kind, 0, 0)
        return cls(kind, int(row["total"]), int(row["embedded"]))


@dataclass(frozen=True)
class TextVector:
    """A node's vector, with the text it was computed from."""

    id: str
    text: str
    vector: Vector


async def write_vectors(
    tx: ProfileTx, kind: EmbeddedKind, model_id: str, vectors: Sequence[TextVector]
) -> None:
    """Each vector lands only on a node that still holds the text it came from: words reworded
    or erased by forgetting while the model ran get no vector of what they used to say."""
    rows = [{"id": item.id, "text": item.text, "vector": item.vector} for item in vectors]
    if rows:
        await tx.run(q.SET_VECTORS[kind], rows=rows, model=model_id)


async def vector_counts(graph: ProfileGraph, model_id: str) -> list[KindCounts]:
    return await graph.read(_vector_counts, model_id)


async def _vector_counts(tx: ProfileTx, model_id: str) -> list[KindCounts]:
    return [
        KindCounts.from_row(kind, await tx.single(q.COUNT_VECTORS[kind], model=model_id))
        for kind in EmbeddedKind
    ]


@dataclass(frozen=True)
class _Missing:
    """A node lacking the model's vector, where it stands in its kind's order, and whether this
    backfill holds its claim (not another process)."""

    id: str
    text: str
    position: datetime
    claimed: bool

    @classmethod
    def from_row(cls, row: Row) -> _Missing:
        """From `CLAIM_BATCH[kind]`."""
        return cls(str(row["id"]), str(row["text"]), row["position"], bool(row["claimed"]))


@dataclass(frozen=True)
class _Batch:
    ids: list[str]
    texts: list[str]
    last_position: datetime
    last_id: str


async def _claim(
    tx: ProfileTx, kind: EmbeddedKind, model_id: str, after: datetime, after_id: str, size: int
) -> list[_Missing]:
    now = datetime.now(UTC)
    until = now + timedelta(seconds=CLAIM_SECONDS)
    rows = await tx.run(
        q.CLAIM_BATCH[kind], model=model_id, after=after, after_id=after_id, limit=size, now=now, until=until
    )
    return [_Missing.from_row(row) for row in rows]


async def claimed_elsewhere(graph: ProfileGraph, kind: EmbeddedKind, model_id: str) -> bool:
    """Whether a node of `kind` still lacks the vector under a claim not yet lapsed."""
    return await graph.read(_held, kind, model_id)


async def _held(tx: ProfileTx, kind: EmbeddedKind, model_id: str) -> bool:
    return await tx.single(q.CLAIMED_ELSEWHERE[kind], model=model_id, now=datetime.now(UTC)) is not None


async def _next_batch(
    graph: ProfileGraph, kind: EmbeddedKind, model_id: str, after: datetime, after_id: str, size: int
) -> _Batch | None:
    missing = await graph.write(_claim, kind, model_id, after, after_id, size)
    if not missing:
        return None
    last, ours = missing[-1], [node for node in missing if node.claimed]
    return _Batch([node.id for node in ours], [node.text for node in ours], last.position, last.id)


async def embed_missing(
    graph: ProfileGraph,
    embedder: Embedder,
    kind: EmbeddedKind,
    batch_size: int = BACKFILL_BATCH,
    on_batch: Callable[[int], None] | None = None,
    rest: float = 0.0,
) -> int:
    """Embed every node of `kind` lacking the model's vector; returns how many were written.

    With `rest`, each batch is followed by a pause of `rest` times as long as it took."""
    written, after, after_id = 0, _START, ""
    started = anyio.current_time()
    while batch := await _next_batch(graph, kind, embedder.model_id, after, after_id, batch_size):
        if batch.ids:
            vectors = await embedder.passages(batch.texts)
            computed = list(map(TextVector, batch.ids, batch.texts, vectors))
            await graph.write(write_vectors, kind, embedder.model_id, computed)
            written += len(batch.ids)
        after, after_id = batch.last_position, batch.last_id
        if on_batch is not None:
            on_batch(len(batch.ids))
        if rest:
            await anyio.sleep(rest * (anyio.current_time() - started))
            started = anyio.current_time()
    return written


@dataclass(frozen=True)
class PassageVectors:
    """Vectors computed before a write transaction opens, stored by it for the texts it writes."""

    model_id: str
    by_text: dict[str, Vector]

    def properties(self, text: str) -> dict[str, object]:
        """`embedding` and `embedding_model` for a query that stores the node's vector itself."""
        vector = self.by_text.get(text)
        return {"embedding": vector, "embedding_model": self.model_id if vector is not None else None}


def vector_properties(vectors: PassageVectors | None, text: str) -> dict[str, object]:
    """`embedding` and `embedding_model` parameters for a query that creates a node: null without a vector."""
    if vectors is None:
        return {"embedding": None, "embedding_model": None}
    return vectors.properties(text)


async def embed_passages(embedder: Embedder | None, texts: Sequence[str]) -> PassageVectors | None:
    if embedder is None:
        return None
    unique = list(dict.fromkeys(texts))
    return PassageVectors(embedder.model_id, dict(zip(unique, await embedder.passages(unique), strict=True)))
