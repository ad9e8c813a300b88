"""What the memory pipeline reads back from the graph, as frozen records with one parser each.

Rows come from the queries in `graph/memory/queries.py`; everything after the parser works on
typed fields, so a renamed property fails here, in one place, not deep in a rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from graph.memory.models import (
    ClaimStatus,
    ClarificationView,
    FactView,
    FragmentStatus,
    Modality,
    Polarity,
)
from graph.rows import Row


@dataclass(frozen=True)
class StoredClaim:
    """A claim node: the statement, its identity keys, the extractor's confidence, its status."""

    id: str
    subject: str
    predicate: str
    object: str
    text: str
    claim_key: str
    slot: str
    polarity: Polarity
    modality: Modality
    extract_conf: float
    resolution_conf: float
    status: ClaimStatus
    # Optional on the node: a claim stored before validity or evidence spans were read has none.
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: str | None = None

    @classmethod
    def from_row(cls, row: Row) -> StoredClaim:
        """From a query's `claim` column (`CLAIM_FIELDS`)."""
        claim = row["claim"]
        return cls(
            id=claim["id"],
            subject=claim["subject"],
            predicate=claim["predicate"],
            object=claim["object"],
            text=claim["text"],
            claim_key=claim["claim_key"],
            slot=claim["slot"],
            polarity=Polarity(claim["polarity"]),
            modality=claim["modality"],
            extract_conf=float(claim["extract_conf"]),
            resolution_conf=float(claim["resolution_conf"]),
            status=ClaimStatus(claim["status"]),
            valid_from=claim.get("valid_from"),
            valid_to=claim.get("valid_to"),
            evidence=claim.get("evidence"),
        )

    def with_status(self, status: ClaimStatus) -> StoredClaim:
        return replace(self, status=status)


@dataclass(frozen=True)
class ClaimSupport:
    """A claim's active supporting fragments: how many, the best quality, the newest texts."""

    support_count: int
    best_quality: float
    texts: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Row) -> ClaimSupport:
        """From `CLAIM_SUPPORT`."""
        return cls(int(row["support_count"]), float(row["best_quality"]), tuple(row["texts"]))


@dataclass(frozen=True)
class SlotFact:
    """An active fact in a claim's slot, as promotion weighs a new claim against it."""

    view: FactView
    claim_key: str

    @property
    def id(self) -> str:
        return self.view.id

    @classmethod
    def from_row(cls, row: Row) -> SlotFact | None:
        """From `LOCK_SLOT_ACTIVE_FACTS`; None for the row of an empty slot."""
        fact = row["fact"]
        if fact is None:
            return None
        return cls(FactView.model_validate(fact), fact["claim_key"])


@dataclass(frozen=True)
class KeyedFragment:
    """What holds an idempotency key: a fragment with its content's hash, or a tombstone."""

    id: str
    content_hash: str | None
    forgotten: bool

    @classmethod
    def from_row(cls, row: Row) -> KeyedFragment:
        """From `FIND_FRAGMENT_BY_KEY`."""
        return cls(str(row["id"]), row["content_hash"], bool(row["forgotten"]))


@dataclass(frozen=True)
class FragmentState:
    id: str
    status: FragmentStatus

    @classmethod
    def from_row(cls, row: Row) -> FragmentState:
        """From `ACTIVE_FRAGMENTS`."""
        return cls(str(row["id"]), FragmentStatus(row["status"]))


@dataclass(frozen=True)
class LostSupport:
    """A claim left without active support, and the facts it stated (now needing revalidation);
    with its status and `unsupported` flag before, and its status after."""

    claim_id: str
    fact_ids: tuple[str, ...]
    status_before: str
    unsupported_before: bool | None
    status_after: str

    @classmethod
    def from_row(cls, row: Row) -> LostSupport:
        """From `CLAIMS_LOSING_SUPPORT`."""
        return cls(
            str(row["claim_id"]),
            tuple(row["fact_ids"]),
            str(row["status_before"]),
            row["unsupported_before"],
            str(row["status_after"]),
        )


@dataclass(frozen=True)
class FragmentRetraction:
    """What retracting one fragment changed, enough to put it back exactly: the properties it
    overwrote (`active_hash`, `retracted_at`, `retract_reason`, as they were), the reason and
    instant it now holds, and the claims that lost their only support with it."""

    fragment_id: str
    already: bool
    active_hash: str | None
    retracted_at: datetime | None
    retract_reason: str | None
    reason: str
    at: datetime
    lost: tuple[LostSupport, ...]

    @classmethod
    def from_rows(cls, fragment_id: str, row: Row, lost: Sequence[Row]) -> FragmentRetraction:
        """From `RETRACT_FRAGMENT` and `CLAIMS_LOSING_SUPPORT`."""
        return cls(
            fragment_id,
            bool(row["already"]),
            row["active_hash"],
            row["retracted_at"],
            row["retract_reason"],
            str(row["reason"]),
            row["at"],
            tuple(map(LostSupport.from_row, lost)),
        )


@dataclass(frozen=True)
class RetractedFragment:
    """From `RETRACTED_FRAGMENT`: a fragment's status and retraction reason (None when it is no
    fragment, say forgotten since), and the fragment holding its words now, if another does."""

    status: str | None
    reason: str | None
    held_by: str | None

    @classmethod
    def from_row(cls, row: Row) -> RetractedFragment:
        return cls(row["status"], row["reason"], row["held_by"])


@dataclass(frozen=True)
class Retraction:
    """What a fact's retraction found: whether it was retracted before, whether it was current
    and which slot it held (a fragment's is a `FragmentRetraction`)."""

    already: bool
    current: bool
    slot: str | None

    @classmethod
    def from_row(cls, row: Row) -> Retraction:
        """From `RETRACT_FACT`."""
        return cls(bool(row["already"]), bool(row["current"]), row["slot"])


@dataclass(frozen=True)
class OpenQuestion:
    """An open clarification, by id, and the claim it asks about."""

    id: str
    claim_id: str

    @classmethod
    def from_row(cls, row: Row) -> OpenQuestion:
        """From `OPEN_CLARIFICATIONS_ABOUT_FACT`."""
        return cls(str(row["id"]), str(row["claim_id"]))


def fact_view(row: Row) -> FactView:
    """From a query's `fact` column (`FACT_FIELDS`)."""
    return FactView.model_validate(row["fact"])


def clarification_view(row: Row) -> ClarificationView:
    """From a query's `clarification` column (`CLARIFICATION_FIELDS`)."""
    return ClarificationView.model_validate(row["clarification"])
