"""What a profile's semantic lane can see: the model in use and how many memories await a vector."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph.access import ProfileGraph
from graph.embedding.encoder import Embedder
from graph.embedding.healer import HealState, VectorHealer
from graph.embedding.store import vector_counts

_NO_MODEL = "-"  # matches no stored vector, so every memory counts as pending


class SemanticStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    enabled: bool = Field(description="False when REVERIE_EMBEDDING_MODEL=off: recall is lexical only")
    model: str | None = Field(description="The embedding model whose vectors recall compares")
    embedded: int = Field(description="Memories (fragments, claims, facts, dreams) with this model's vector")
    pending: int = Field(
        description="Memories without it, found only by their words: those just remembered until "
        "their vectors follow (a moment), older ones until a backfill reaches them (the server's own "
        "after it starts, or `reverie embeddings backfill`)"
    )
    pending_by_kind: dict[str, int]
    backfill: HealState | None = Field(
        default=None,
        description="This server's background backfill of the memories pending when it started: "
        "queued, running, waiting (for Neo4j), done or failed; null when it has none for the profile",
    )
    backfilled: int = Field(default=0, description="Vectors that backfill has written so far")


async def semantic_status(
    graph: ProfileGraph, embedder: Embedder | None, healer: VectorHealer | None = None
) -> SemanticStatus:
    counts = await vector_counts(graph, embedder.model_id if embedder else _NO_MODEL)
    healing = healer.progress(graph.profile_id) if healer is not None else None
    return SemanticStatus(
        backfill=healing.state if healing else None,
        backfilled=healing.written if healing else 0,
        enabled=embedder is not None,
        model=embedder.model_id if embedder else None,
        embedded=sum(count.embedded for count in counts),
        pending=sum(count.pending for count in counts),
        pending_by_kind={count.kind.value: count.pending for count in counts},
    )
