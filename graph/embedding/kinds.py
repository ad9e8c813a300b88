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


# What recall searches carries this second label, so one vector index (`recall_embedding`)
# serves fragments, claims and facts in a single search; dreams have their own
# (`dream_embedding`), since recall returns them apart.
RECALLABLE: Final = "Recallable"


@dataclass(frozen=True)
class KindStorage:
    label: str
    # The property a kind's range index orders it by (with profile_id), for backfill cursors.
    order_by: str
    recallable: bool


STORAGE: Final[dict[EmbeddedKind, KindStorage]] = {
    EmbeddedKind.FRAGMENT: KindStorage("SourceFragment", "created_at", recallable=True),
    EmbeddedKind.CLAIM: KindStorage("Claim", "created_at", recallable=True),
    EmbeddedKind.FACT: KindStorage("Fact", "recorded_at", recallable=True),
    EmbeddedKind.DREAM: KindStorage("Dream", "created_at", recallable=False),
}
