"""Turning the REVERIE_EMBEDDING_MODEL setting into a loaded model, or into 'semantic lane off'."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from graph.embedding.catalog import SEMANTIC_OFF, model_spec
from graph.embedding.encoder import Embedder, OnnxEncoder
from graph.embedding.provision import install_model


@cache  # one loaded model per process, shared by every server and profile it serves
def load_embedder(home: Path, name: str) -> Embedder | None:
    """The named model, provisioned when missing; None when the semantic lane is turned off.

    A model that cannot be fetched or loaded raises ModelUnavailableError: recall never falls
    back to lexical-only without the operator having said so."""
    if name == SEMANTIC_OFF:
        return None
    return Embedder(OnnxEncoder(install_model(home, model_spec(name))))
