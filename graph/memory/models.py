"""Inputs and results of the memory pipeline.

They are frozen Pydantic models so the MCP tools can return them as they are: one definition
gives the graph layer its types and MCP clients their output schema.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from graph.base import Frozen
from graph.clock import storable_time
from graph.memory.predicates import PREDICATE_RULES

MAX_CONTENT_CHARS = 8_000
MAX_LABELS = 20
MAX_LABEL_CHARS = 64
MAX_CLAIMS = 50
MAX_SOURCE_CHARS = 500
MAX_EVIDENCE_CHARS = 300

Authority = Literal["primary", "secondary", "other"]
# What the person shared rather than said: text that came with a photo, a link or a forwarded
# message. Stored on the fragment as `shared`; absent (None, and every fragment stored before
# the field existed) means the person's own words. The dream finder reads shared text as context
# of what the person said, never as a thread or a duplicate of their own (docs/dreaming.md).
SharedKind = Literal["photo_caption", "link_title", "quoted_message", "attachment"]
Modality = Literal["assertion", "belief", "hypothetical", "question", "plan"]


class Polarity(StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"


UtcDatetime = Annotated[datetime, AfterValidator(storable_time)]


class Verdict(StrEnum):
    """What a verifier concluded about a claim from its supporting fragments."""

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    INSUFFICIENT = "insufficient"


class FragmentStatus(StrEnum):
    ACTIVE = "active"
    RETRACTED = "retracted"


class ClaimStatus(StrEnum):
    CANDIDATE = "candidate"
    VALIDATED = "validated"
    DISPUTED = "disputed"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"
    PROMOTED = "promoted"


class FactStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    NEEDS_REVALIDATION = "needs_revalidation"


class PromotionOutcome(StrEnum):
    PROMOTED = "promoted"
    CLARIFICATION_REQUIRED = "clarification_required"
    REJECTED_WEAKER = "rejected_weaker"
    GATE_REJECTED = "gate_rejected"
    PREDICATE_NOT_SUPPORTED = "predicate_not_supported"
    NOT_VALIDATED = "not_validated"
    NOT_ATTEMPTED = "not_attempted"


def _supported_predicates(schema: dict[str, Any]) -> None:
    """Advertise the predicates as an enum, so a host's model need not guess them."""
    schema["enum"] = sorted(PREDICATE_RULES)


# A claim the host read in what the person said (no docstring: every tool taking claims would
# repeat it in tools/list, which a host pays for in every conversation).
class ClaimInput(Frozen):
    subject: str = Field(min_length=1, max_length=200, description="Who it is about; 'user' = the person")
    # The enum lists the predicates: a description would only repeat it.
    predicate: str = Field(min_length=1, max_length=64, json_schema_extra=_supported_predicates)
    object: str = Field(min_length=1, max_length=500, description="The value, e.g. 'Acme Corp'")
    extract_conf: float = Field(ge=0, le=1, description="How sure it was said")
    resolution_conf: float = Field(ge=0, le=1, description="How sure subject and object are right")
    modality: Modality = "assertion"
    polarity: Polarity = Polarity.POSITIVE
    valid_from: UtcDatetime | None = Field(default=None, description="Became true; no offset = UTC")
    valid_to: UtcDatetime | None = Field(default=None, description="Stopped being true; no offset = UTC")
    supported_by: list[str] = Field(
        default_factory=list, max_length=20, description="Earlier fragments that also support it"
    )
    evidence: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EVIDENCE_CHARS,
        description="The words of content that say it, copied exactly",
    )


class FragmentRef(Frozen):
    id: str
    created: bool = Field(description="False when this content was already remembered")
    duplicate_of: str | None = Field(default=None, description="The original fragment when a duplicate")
    duplicate_by: Literal["idempotency_key", "content_hash"] | None = None


class FactView(Frozen):
    id: str
    subject: str
    predicate: str
    object: str
    status: FactStatus
    truth_score: float
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime
    superseded_by: str | None = None


# A clarification's question ends with how a host answers it: this opens that part.
CONFIRM_HINT_OPENER = " (confirm_memory "


class ClarificationView(Frozen):
    id: str
    question: str
    claim_id: str
    fact_id: str
    status: Literal["open", "resolved"]
    created_at: datetime

    @property
    def asked(self) -> str:
        """The question for the person, without the tool call it ends with for a host."""
        return self.question.split(CONFIRM_HINT_OPENER, 1)[0]


class ClaimResult(Frozen):
    claim_id: str
    subject: str
    predicate: str
    object: str
    status: ClaimStatus
    verdict: Verdict
    verifier: str
    verification_reason: str
    outcome: PromotionOutcome
    failed_gates: list[str] = Field(default_factory=list)
    fact: FactView | None = None
    superseded_fact_id: str | None = None
    clarification: ClarificationView | None = None
    flagged_fact_id: str | None = Field(
        default=None,
        description="An active fact this claim's new evidence contradicts; now needs_revalidation",
    )


class RememberResult(Frozen):
    fragment: FragmentRef
    claims: list[ClaimResult]
    clarifications: list[ClarificationView]


class ConfirmResult(Frozen):
    claim: ClaimResult
    resolved_clarification_id: str | None


class RetractResult(Frozen):
    id: str
    kind: Literal["fragment", "fact"]
    status: Literal["retracted"]
    already_retracted: bool
    unsupported_claim_ids: list[str]
    facts_needing_revalidation: list[str]
    reinstated_fact: FactView | None = Field(
        default=None, description="The fact the retracted one had replaced, current again"
    )
    reconsidered_claims: list[ClaimResult] = Field(
        default_factory=list,
        description="Claims whose open question was about the retracted fact, weighed again",
    )


class StaleFact(Frozen):
    id: str
    text: str
    status: FactStatus
    recorded_at: datetime
    reason: str


class ClaimSummary(Frozen):
    id: str
    text: str
    status: ClaimStatus
    verdict: str
    created_at: datetime


class ReflectionCounts(Frozen):
    stale_facts: int
    candidate_claims: int
    disputed_claims: int
    open_clarifications: int


class RecalledMemory(Frozen):
    id: str
    kind: Literal["fact", "claim", "fragment"]
    text: str
    recall_count: int = Field(description="How many recalls returned it")
    last_recalled_at: datetime


class RecalledQuestion(Frozen):
    query: str
    at: datetime
    memory_ids: list[str] = Field(description="What that recall returned, best first")


class RecallSignals(Frozen):
    most_recalled: list[RecalledMemory] = Field(description="Returned most often, then most recently")
    recent_questions: list[RecalledQuestion] = Field(description="What recall was asked, newest first")


class ReflectionResult(Frozen):
    counts: ReflectionCounts
    stale_facts: list[StaleFact]
    candidate_claims: list[ClaimSummary]
    disputed_claims: list[ClaimSummary]
    clarifications: list[ClarificationView]
    recall: RecallSignals = Field(description="Recall counts and questions")
