"""The node kinds that carry a meaning vector, and where each keeps it.

Every kind stores `embedding` (a float32 array written by `db.create.setNodeVectorProperty`) and
`embedding_model` (the `ModelSpec.model_id` that made it). Readers only compare vectors whose
`embedding_model` equals the running model's, so two models' vectors never meet in one search.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class EmbeddedKind(StrEnum):
    FRAGMENT = "fragment"
    CLAIM = "claim"
    FACT = "fact"
    DREAM = "dream"


@dataclass(frozen=True)
class KindStorage:
    label: str
    vector_index: str
    # The property a kind's range index orders it by (with profile_id), for backfill cursors.
    order_by: str


STORAGE: Final[dict[EmbeddedKind, KindStorage]] = {
    EmbeddedKind.FRAGMENT: KindStorage("SourceFragment", "fragment_embedding", "created_at"),
    EmbeddedKind.CLAIM: KindStorage("Claim", "claim_embedding", "created_at"),
    EmbeddedKind.FACT: KindStorage("Fact", "fact_embedding", "recorded_at"),
    EmbeddedKind.DREAM: KindStorage("Dream", "dream_embedding", "created_at"),
}
