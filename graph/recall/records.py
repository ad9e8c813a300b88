"""What recall reads back from the graph, as frozen records with one parser each.

Rows come from `graph/recall/queries.py` and `graph/recall/semantic_queries.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast, get_args

from graph.dreams.models import DreamStatus
from graph.memory.models import ClarificationView
from graph.recall.models import Evidence, RecallKind, RelatedDream
from graph.rows import Row, time_of


@dataclass(frozen=True)
class RecalledDream:
    """An open dream as recall reads it: with a candidate memory (`CITING_DREAMS`) or because
    its text matches the query (`DREAMS_MATCHING`)."""

    id: str
    hypothesis: str
    status: DreamStatus
    likelihood: float
    confidence: float
    source_ids: tuple[str, ...]
    # Its words beyond the hypothesis (the what-if), read only for a dream found by its words.
    text: str = ""

    @classmethod
    def from_map(cls, dream: Row) -> RecalledDream:
        return cls(
            id=dream["id"],
            hypothesis=dream["hypothesis"],
            status=DreamStatus(dream["status"]),
            likelihood=float(dream["likelihood"]),
            confidence=float(dream["confidence"]),
            source_ids=tuple(dream["source_ids"]),
            text=dream.get("text") or "",
        )

    def related(
        self, reason: str, cites_recalled: Sequence[str] = (), shared_words: Sequence[str] = ()
    ) -> RelatedDream:
        return RelatedDream(
            dream_id=self.id,
            hypothesis=self.hypothesis,
            status=self.status.value,
            likelihood=self.likelihood,
            confidence=self.confidence,
            reason=reason,
            source_ids=list(self.source_ids),
            cites_recalled=list(cites_recalled),
            shared_words=list(shared_words),
        )


@dataclass(frozen=True)
class OwnedEvidence:
    """A fragment supporting a recalled claim or fact (its owner)."""

    owner_id: str
    evidence: Evidence

    @classmethod
    def from_row(cls, row: Row) -> OwnedEvidence:
        """From `CLAIM_EVIDENCE` or `FACT_EVIDENCE`."""
        fields = {name: value for name, value in row.items() if name != "owner_id"}
        return cls(str(row["owner_id"]), Evidence.model_validate(fields))


@dataclass(frozen=True)
class FoundMemory:
    """A memory one of recall's lanes found: what the fusion ranks and the result shows."""

    kind: RecallKind
    id: str
    text: str
    status: str
    created_at: datetime
    occurred_at: datetime | None
    quality: float
    score: float
    clarifications: tuple[ClarificationView, ...]
    # The open dreams that cite it.
    dreams: tuple[RecalledDream, ...]

    @classmethod
    def from_row(cls, row: Row) -> FoundMemory:
        """From the lexical and semantic searches (`RESULT_FIELDS` with a `kind` column)."""
        kind = row["kind"]
        if kind not in get_args(RecallKind):
            raise ValueError(f"recall row of unknown kind {kind!r}")
        return cls(
            kind=cast(RecallKind, kind),
            id=row["id"],
            text=row["text"],
            status=row["status"],
            created_at=time_of(row["created_at"]),
            occurred_at=None if row["occurred_at"] is None else time_of(row["occurred_at"]),
            quality=float(row["quality"]),
            score=float(row["score"]),
            clarifications=tuple(map(ClarificationView.model_validate, row["clarifications"])),
            dreams=tuple(map(RecalledDream.from_map, row["dreams"])),
        )
