"""Dreams, dreaming runs and their results, as returned by the dreaming tools."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field, computed_field

from graph.base import Frozen
from graph.memory.models import ClaimInput, ClaimResult, ClaimStatus, ClarificationView


class DreamStatus(StrEnum):
    PROPOSED = "proposed"
    REINFORCED = "reinforced"
    STALE = "stale"
    REJECTED = "rejected"
    # The person said yes, but none of what they confirmed is a fact yet (`DreamConfirmation`
    # says what waits and why). Not final: it can be promoted again, rejected or marked stale.
    CONFIRMED = "confirmed"
    # The person said yes and memory took it: a confirmed claim became a fact, or a duplicate merged.
    PROMOTED = "promoted"


STATUS_WORDS = (
    "confirmed: the person said yes but nothing became memory yet; promoted: a confirmed claim "
    "became a fact (or a duplicate merged)"
)


STATUS_BY_WORDS = "Who set the status (as in its history's actor); null while proposed"


def sources_key(ids: Sequence[str]) -> str:
    """A dream's `pair_key`: its sources' ids, sorted, so no two dreams cite the same memories."""
    return "|".join(sorted(ids))


# What a dream proposes about its sources (no docstring: tools/list would repeat it).
class DreamKind(StrEnum):
    LINK = "link"  # two memories connected
    THEME = "theme"  # one thread through three or more memories across time
    DUPLICATE = "duplicate"  # two memories that say the same thing: keep one
    CONTRADICTION = "contradiction"  # two memories that cannot both hold now: which does?


class FeedbackDecision(StrEnum):
    REINFORCE = "reinforce"
    STALE = "stale"
    REJECT = "reject"
    PROMOTE_CANDIDATE = "promote_candidate"
    # A promoted duplicate's merge, until the person keeps it: put back what it retracted.
    UNDO_MERGE = "undo_merge"
    KEEP_MERGED = "keep_merged"


class MergeState(StrEnum):
    PENDING = "pending"  # undo_merge can still put the retracted memory back
    KEPT = "kept"  # the person confirmed it: final
    UNDONE = "undone"


Trigger = Literal["manual", "scheduled"]
RunStatus = Literal["running", "completed", "error", "interrupted"]
Phase = Literal["reflect", "re_evaluate", "dream"]
MAX_FEEDBACK_CHARS = 1_024


class DreamSource(Frozen):
    kind: Literal["fact", "claim", "fragment", "forgotten"]
    id: str
    text: str = Field(description="The first 200 characters; empty once forgotten")
    active: bool = Field(description="False once retracted, superseded, rejected or forgotten")
    status: str = Field(
        default="active",
        description="retracted: its words are left out unless asked for (show_retracted)",
    )
    at: datetime | None = Field(default=None, description="When it happened, else when it was stored")


# Who changed a dream's status (no docstring: tools/list would repeat it).
class HistoryActor(StrEnum):
    PERSON = "person"  # their answer: resolve_dream_feedback, the review page, a promotion
    RE_EVALUATION = "re_evaluation"  # the cycle, for what it found in memory
    MEMORY = "memory"  # a memory write outside a cycle: a forget, a confirmed claim becoming a fact
    UNKNOWN = "unknown"  # an earlier version changed it and did not record who


HISTORY_ACTOR_WORDS = (
    "person: the person's answer; re_evaluation: the nightly cycle, for what it found in memory; "
    "memory: a forget, or a confirmed claim that became a fact; unknown: an earlier version, "
    "which did not record who"
)


# A memory whose change moved a dream (no docstring: tools/list would repeat it).
class HistoryEvidence(Frozen):
    memory_id: str
    change: str = Field(description="What became of it: retracted, superseded, forgotten, became_fact, ...")
    text: str = Field(default="", description="Its words, shortened; empty once forgotten or retracted")


class FeedbackEntry(Frozen):
    at: datetime
    actor: HistoryActor = Field(default=HistoryActor.UNKNOWN, description=HISTORY_ACTOR_WORDS)
    decision: FeedbackDecision | None = Field(description="The person's answer; null when memory moved it")
    feedback: str | None
    reason: str | None = Field(default=None, description="Why, in words, when memory moved it")
    evidence: list[HistoryEvidence] = Field(default_factory=list, description="The memories that moved it")
    from_status: DreamStatus
    to_status: DreamStatus


# Words a dream had before it was reworded, and who wrote them (no docstring: tools/list
# would repeat it in get_dream's schema).
class DreamRevision(Frozen):
    at: datetime = Field(description="When they were replaced")
    generator: str = Field(description="Who wrote them")
    hypothesis: str
    why: str | None = None
    what_if: str
    possible_outcome: str
    statement: ClaimInput | None = None


class DreamDraft(Frozen):
    """A hypothesis a generator proposes, before it is stored."""

    kind: DreamKind = DreamKind.LINK
    hypothesis: str = Field(description="A statement about its memories the person can answer yes or no")
    why: str = Field(description="One line: the evidence for the link")
    what_if: str
    possible_outcome: str
    rationale: str
    likelihood: float = Field(ge=0, le=1)
    confidence: float = Field(ge=0, le=1)
    link_score: float = Field(description="The evidence as one number (meaning + rare shared words)")
    generator: str = Field(description="Which generator wrote the texts")
    source_ids: tuple[str, ...] = Field(min_length=2)
    pair_key: str = Field(description="The sorted source ids: no two dreams cite the same memories")
    shared_terms: list[str]
    topic: str | None = Field(
        default=None,
        description="What the dream is about, as a word root: a theme's thread, a link's rarest shared word",
    )
    builds_on: tuple[str, ...] = Field(default=(), description="Earlier dreams this one extends")
    statement: ClaimInput | None = Field(default=None, description="For the person to confirm")


# What a promoted duplicate retracted and kept, and whether the person settled it (no docstring:
# tools/list would repeat it).
class DreamMerge(Frozen):
    retracted_id: str
    kept_id: str
    state: MergeState


# A claim read in the person's confirmation, as memory holds it now (no docstring: tools/list
# would repeat it in get_dream's schema).
class ConfirmedClaim(Frozen):
    claim_id: str
    statement: str = Field(description="The claim in words: subject, predicate, object")
    status: ClaimStatus
    fact_id: str | None = Field(description="The fact it became; null while it is not memory")
    waiting: str | None = Field(
        description="Null once a fact; else why it is not memory yet and what would settle it"
    )


# What became of the person's confirmation, read from memory as it stands now (no docstring, as above).
class DreamConfirmation(Frozen):
    fragment_ids: list[str] = Field(description="The fragments holding the person's confirming words")
    claims: list[ConfirmedClaim] = Field(description="The claims those words support, in memory now")
    summary: str = Field(description="In plain words: what became memory and how much still waits")
    next_steps: str | None = Field(description="While confirmed: what the person or the host can do next")


class Dream(Frozen):
    id: str
    kind: DreamKind = DreamKind.LINK
    hypothesis: str
    why: str | None = Field(default=None, description="One line: the evidence for the link")
    what_if: str
    possible_outcome: str
    rationale: str
    likelihood: float
    confidence: float
    status: DreamStatus = Field(description=STATUS_WORDS)
    generator: str
    run_id: str | None
    created_at: datetime
    updated_at: datetime
    last_evaluated_at: datetime | None = None
    stale_reason: str | None = None
    sources: list[DreamSource] = Field(default_factory=list)
    feedback: list[FeedbackEntry] = Field(default_factory=list)
    statement: ClaimInput | None = Field(default=None, description="For the person to confirm")
    revisions: list[DreamRevision] = Field(default_factory=list, description="Earlier words, oldest first")
    builds_on: list[str] = Field(default_factory=list, description="Ids of earlier dreams this one extends")
    merge: DreamMerge | None = None
    confirmation: DreamConfirmation | None = Field(
        default=None, description="Once the person confirmed it: what became memory and what waits"
    )


class DreamSummary(Frozen):
    id: str
    kind: DreamKind = DreamKind.LINK
    hypothesis: str
    why: str | None = None
    status: DreamStatus = Field(description=STATUS_WORDS)
    status_by: HistoryActor | None = Field(default=None, description=STATUS_BY_WORDS)
    likelihood: float
    confidence: float
    created_at: datetime
    run_id: str | None


class DreamPage(Frozen):
    dreams: list[DreamSummary]
    next_cursor: str | None = Field(description="Pass back as `cursor` for the next page; null at the end")


class PhaseReport(Frozen):
    phase: Phase
    ran: bool
    duration_ms: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    dream_ids: list[str] = Field(default_factory=list)
    error: str | None = None


class DreamRun(Frozen):
    run_id: str | None = Field(description="Null for a dry run, which writes nothing")
    trigger: Trigger
    run_date: str = Field(description="The local calendar date of the run, in the dreaming time zone")
    status: RunStatus
    started_at: datetime
    completed_at: datetime | None = None
    lease_expires_at: datetime | None = Field(
        default=None,
        description="While running: renewed by the live cycle; if it lapses the run was abandoned",
    )
    late: bool = False
    phases: list[PhaseReport] = Field(default_factory=list)
    error: str | None = None
    dry_run: bool = False
    would_create: list[DreamDraft] = Field(default_factory=list, description="Dry runs only")


class LockRelease(Frozen):
    """What releasing a profile's cycle lock by hand did."""

    released_run_ids: list[str] = Field(description="Runs that were marked running, now interrupted")


class RunSummary(Frozen):
    """A past run and what became of the dreams it proposed."""

    run: DreamRun
    dreams: dict[DreamStatus, int] = Field(description="The run's dreams by their status today")

    @computed_field(description="From start to end; null while running")  # type: ignore[prop-decorator]
    @property
    def duration_s(self) -> float | None:
        if self.run.completed_at is None:
            return None
        return round((self.run.completed_at - self.run.started_at).total_seconds(), 3)


class RunPage(Frozen):
    runs: list[RunSummary]
    next_cursor: str | None = Field(description="Pass back as `cursor` for the next page; null at the end")


class PromotionStage(StrEnum):
    PROMOTED = "promoted"
    NOT_PROMOTED = "not_promoted"
    AWAITING_CLAIMS = "awaiting_claims"
    MERGED = "merged"


class PromotionReport(Frozen):
    """What a promotion created in the memory pipeline."""

    fragment_label: str = Field(description="The label of the fragment holding the person's confirmation")
    fragment_id: str
    fragment_created: bool
    claims: list[ClaimResult] = Field(description="Each confirmed claim, its verdict and promotion outcome")
    clarifications: list[ClarificationView] = Field(description="Conflicts the claims opened for the person")
    used_statement: bool = Field(default=False, description="The dream's stored statement was the claim")
    outcome: PromotionStage = Field(
        description="promoted: a claim became a fact; not_promoted: claims failed verification or "
        "gates; awaiting_claims: no claims were sent; merged: of a duplicate, one was retracted. "
        "Only promoted and merged make the dream promoted; the others leave it confirmed"
    )
    retracted_id: str | None = Field(default=None, description="merged: the fragment retracted")
    message: str


# What keep_merged or undo_merge did to a duplicate's merge (no docstring: tools/list would
# repeat it).
class MergeSettlement(Frozen):
    state: MergeState
    restored_claim_ids: list[str] = Field(default_factory=list, description="Claims put back as they were")
    message: str


class FeedbackResult(Frozen):
    dream: Dream
    promotion: PromotionReport | None = None
    merge: MergeSettlement | None = None


class CandidateMemory(Frozen):
    id: str
    kind: Literal["fact", "fragment"]
    text: str = Field(description="Its words, shortened past 400 characters")
    occurred_at: datetime = Field(description="When it happened, else when it was stored")
    stored_at: datetime


# Two memories the dream phase would link, with the evidence it saw (no docstring, as above).
class DreamCandidate(Frozen):
    source_ids: list[str] = Field(description="Cite these in write_dream")
    memories: list[CandidateMemory]
    shared_terms: list[str] = Field(description="Rare words both use, strongest first")
    why: str = Field(description="The evidence in one line")
    link_score: float
    likelihood: float
    confidence: float


class CandidateList(Frozen):
    candidates: list[DreamCandidate]


HostOutcome = Literal["written", "reworded", "judged_empty"]


# What write_dream did (no docstring, as above).
class HostDreamResult(Frozen):
    outcome: HostOutcome
    dream_id: str | None
    generator: str = Field(description="Who wrote it: host:<client name>")
    likelihood: float | None
    confidence: float | None
