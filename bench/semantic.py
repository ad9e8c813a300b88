"""The embedding model the bench's direct calls use: the one its servers load, so both measure
the same work (REVERIE_EMBEDDING_MODEL, default e5-small-v2; `off` measures lexical recall)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from graph.embedding.encoder import Embedder
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from server.settings import load_settings


def bench_embedder() -> Embedder | None:
    settings = load_settings()
    return load_embedder(settings.reverie_home, settings.reverie_embedding_model)


def bench_vectors() -> AbstractAsyncContextManager[VectorKeeper | None]:
    """The model as the server holds it; leaving the block writes the vectors still queued."""
    return keeping(bench_embedder())
