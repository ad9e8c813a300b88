"""Reading dreams and recording the person's feedback on them."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.base import Frozen
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.config import DreamingConfig, with_overrides
from graph.dreams.confirmations import confirmation_in
from graph.dreams.cursor import decode_cursor, encode_cursor
from graph.dreams.host import stored_statement
from graph.dreams.lifecycle import SETTLING, next_status, status_after
from graph.dreams.merges import merge_in, planned_merge, settle_in
from graph.dreams.models import (
    MAX_FEEDBACK_CHARS,
    Dream,
    DreamKind,
    DreamPage,
    DreamRun,
    DreamStatus,
    FeedbackDecision,
    FeedbackResult,
    PromotionReport,
    PromotionStage,
)
from graph.dreams.records import (
    LockedDream,
    StatusCount,
    StoredProfile,
    StoredRun,
    dream_from_row,
    dream_summary_from_row,
)
from graph.dreams.runs import run_as_of
from graph.dreams.watch import NextNight, SchedulerKind, SchedulerWatch, next_night
from graph.embedding.keeper import VectorKeeper
from graph.embedding.store import PassageVectors, embed_passages
from graph.errors import InvalidInputError, NotFoundError
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.memory.models import Authority, ClaimInput, ClaimResult, FragmentStatus, PromotionOutcome
from graph.memory.pipeline import RememberRequest, remember_in
from graph.words_gate import pass_words_gate

MAX_LIST_LIMIT = 100
RETRACTED = FragmentStatus.RETRACTED.value


class DreamingOverview(Frozen):
    config: DreamingConfig
    latest_run: DreamRun | None
    counts: dict[str, int]
    next_night: NextNight


async def list_dreams(
    graph: ProfileGraph,
    statuses: Collection[DreamStatus] = (),
    limit: int = 20,
    cursor: str | None = None,
    kinds: Collection[DreamKind] = (),
) -> DreamPage:
    """Newest first; only dreams in `statuses` and of `kinds` when any are given."""
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_LIST_LIMIT}.")
    before, before_id = decode_cursor(cursor, "list_dreams") if cursor else (None, None)
    rows = await graph.read(
        ProfileTx.run,
        q.LIST_DREAMS,
        statuses=[status.value for status in statuses],
        kinds=[kind.value for kind in kinds],
        before=before,
        before_id=before_id,
        limit=limit + 1,
    )
    dreams = [dream_summary_from_row(row) for row in rows[:limit]]
    more = len(rows) > limit
    return DreamPage(
        dreams=dreams, next_cursor=encode_cursor(dreams[-1].created_at, dreams[-1].id) if more else None
    )


async def _read_dream(tx: ProfileTx, dream_id: str, show_retracted: bool = False) -> Dream:
    row = await tx.single(q.GET_DREAM, id=dream_id)
    if row is None:
        raise NotFoundError("dream", dream_id)
    dream = dream_from_row(row)
    dream = dream.model_copy(update={"confirmation": await confirmation_in(tx, dream)})
    return _with_evidence_words(dream if show_retracted else _without_retracted_words(dream))


def _with_evidence_words(dream: Dream) -> Dream:
    """Each memory its history names, with its words as the dream shows them: a source's (none
    once forgotten, nor once retracted unless asked for), or the statement of a fact its
    confirmation became. Only ids are stored in the history, so a forget erases no word twice."""
    words = {source.id: source.text for source in dream.sources}
    if dream.confirmation is not None:
        words |= {claim.fact_id: claim.statement for claim in dream.confirmation.claims if claim.fact_id}
    history = [
        entry.model_copy(
            update={
                "evidence": [
                    item.model_copy(update={"text": words.get(item.memory_id, "")}) for item in entry.evidence
                ]
            }
        )
        for entry in dream.feedback
    ]
    return dream.model_copy(update={"feedback": history})


def _without_retracted_words(dream: Dream) -> Dream:
    """A retracted memory's words were withdrawn by the person: shown only when asked for."""
    sources = [
        source.model_copy(update={"text": ""}) if source.status == RETRACTED else source
        for source in dream.sources
    ]
    return dream.model_copy(update={"sources": sources})


async def get_dream(graph: ProfileGraph, dream_id: str, show_retracted: bool = False) -> Dream:
    return await graph.read(_read_dream, dream_id, show_retracted)


async def _read_overview(
    tx: ProfileTx, defaults: DreamingConfig, here: SchedulerKind | None
) -> DreamingOverview:
    now = utcnow()
    profile = await tx.single(q.PROFILE_SETTINGS)
    config = with_overrides(defaults, StoredProfile.from_row(profile).overrides)
    latest = await tx.single(q.LATEST_RUN)
    counts = {
        found.status.value: found.count
        for found in map(
            StatusCount.from_row, await tx.run(q.DREAM_COUNTS, statuses=[s.value for s in DreamStatus])
        )
    }
    return DreamingOverview(
        config=config,
        latest_run=run_as_of(StoredRun.from_row(latest), now) if latest else None,
        counts=counts,
        next_night=next_night(config, SchedulerWatch.from_row(profile), now, here),
    )


async def overview(
    graph: ProfileGraph, defaults: DreamingConfig, here: SchedulerKind | None = None
) -> DreamingOverview:
    """The profile's dreaming at a glance; `here` is the scheduler the asking process runs for
    this profile, if any."""
    return await graph.read(_read_overview, defaults, here)


@dataclass(frozen=True)
class Confirmation:
    """The person's words on promoting a dream, and the claims the host read in them."""

    words: str
    claims: Sequence[ClaimInput] = ()
    authority: Authority = "primary"
    # The claims are the statement the dream holds, sent by no one in this call.
    from_statement: bool = False


def _check_feedback(
    decision: FeedbackDecision, feedback: str | None, claims: Sequence[ClaimInput], authority: Authority
) -> Confirmation | None:
    """Refuse bad input before anything is read or written."""
    if feedback is not None and len(feedback) > MAX_FEEDBACK_CHARS:
        raise InvalidInputError(
            f"feedback has {len(feedback)} characters; the limit is {MAX_FEEDBACK_CHARS}."
        )
    if decision is not FeedbackDecision.PROMOTE_CANDIDATE:
        if claims:
            raise InvalidInputError(
                "claims are taken only with promote_candidate: they state what the person confirmed."
            )
        return None
    if feedback is None or not feedback.strip():
        raise InvalidInputError(
            "promote_candidate needs the person's own words in feedback (what they confirmed); "
            "the dream's text is never evidence."
        )
    return Confirmation(feedback, claims, authority)


def _promotion_outcome(claims: Sequence[ClaimResult], fragment_id: str) -> tuple[PromotionStage, str]:
    if not claims:
        return PromotionStage.AWAITING_CLAIMS, (
            "Nothing became memory: the dream is confirmed, not promoted. The person's words are kept "
            "as evidence, but no statement was read from them: call remember with what they confirmed "
            f"as claims and supported_by naming {fragment_id} (the dream is then promoted by itself), or "
            "promote it again with claims."
        )
    if any(claim.outcome is PromotionOutcome.PROMOTED for claim in claims):
        return PromotionStage.PROMOTED, "At least one confirmed claim passed the gates and is now a fact."
    return PromotionStage.NOT_PROMOTED, (
        "Nothing became memory: the dream is confirmed, not promoted. The confirmed claims were stored "
        "but did not pass verification and the promotion gates: each claim's outcome says why, and the "
        "dream's confirmation what would settle it."
    )


async def _promote(
    tx: ProfileTx, verdict: _Verdict, confirmation: Confirmation, earlier: int
) -> PromotionReport:
    """The person's confirmation becomes a fragment; its claims pass the ordinary gates. `earlier`
    counts the person's confirmations of this dream before this one."""
    request = _confirmation_request(verdict.dream_id, confirmation, earlier)
    result = await remember_in(tx, request, verdict.at, vectors=verdict.vectors)
    await tx.run(q.LINK_FEEDBACK_FRAGMENT, id=verdict.dream_id, fragment_id=result.fragment.id)
    stage, message = _promotion_outcome(result.claims, result.fragment.id)
    return PromotionReport(
        fragment_label=DREAM_FEEDBACK_LABEL,
        fragment_id=result.fragment.id,
        fragment_created=result.fragment.created,
        claims=result.claims,
        clarifications=result.clarifications,
        used_statement=confirmation.from_statement,
        outcome=stage,
        message=message,
    )


def _confirmation_request(dream_id: str, confirmation: Confirmation, earlier: int = 0) -> RememberRequest:
    # Only the person's words are stored: the dream's generated text never becomes evidence. A
    # confirmed dream may be confirmed again: each confirmation has a key of its own, else a
    # second one in the same words would be taken for a retry and its claims never read.
    key = f"dream-feedback:{dream_id}" + (f":{earlier + 1}" if earlier else "")
    return RememberRequest(
        content=confirmation.words,
        source=f"dream:{dream_id}",
        authority=confirmation.authority,
        idempotency_key=key,
        labels=[DREAM_FEEDBACK_LABEL],
        claims=confirmation.claims,
    )


async def resolve_feedback(
    graph: ProfileGraph,
    dream_id: str,
    decision: FeedbackDecision,
    feedback: str | None = None,
    claims: Sequence[ClaimInput] = (),
    authority: Authority = "primary",
    now: datetime | None = None,
    vectors: VectorKeeper | None = None,
) -> FeedbackResult:
    """Record the person's verdict. promote_candidate stores their words (and the claims the
    host extracted from them) through the same verification and gates as `remember`; sent no
    claims, it takes the statement the dream holds (`graph/dreams/host.py`), for which the
    person's words are the evidence all the same."""
    confirmation = _check_feedback(decision, feedback, claims, authority)
    if confirmation is not None and not confirmation.claims:
        statement = await graph.read(stored_statement, dream_id)
        if statement is not None:
            confirmation = replace(confirmation, claims=(statement,), from_statement=True)
    passages = None
    if confirmation is not None:
        # The confirmation is written inside the verdict's transaction, with its vectors: the
        # model runs before that transaction opens (the driver may retry one, never a model).
        request = _confirmation_request(dream_id, confirmation)
        passages = await embed_passages(vectors.embedder if vectors else None, request.passages())
    verdict = _Verdict(dream_id, decision, feedback, confirmation, now or utcnow(), passages)
    return await graph.write(_record_verdict, verdict)


@dataclass(frozen=True)
class _Verdict:
    dream_id: str
    decision: FeedbackDecision
    feedback: str | None
    confirmation: Confirmation | None
    at: datetime
    vectors: PassageVectors | None


async def _record_verdict(tx: ProfileTx, verdict: _Verdict) -> FeedbackResult:
    # A verdict stores the person's words beside the dream; a forget erasing that dream goes
    # wholly before (the dream is stale, and the verdict refused) or wholly after (and erases
    # the confirmation with the dream).
    await pass_words_gate(tx)
    row = await tx.single(q.LOCK_DREAM, id=verdict.dream_id, now=verdict.at)
    if row is None:
        raise NotFoundError("dream", verdict.dream_id)
    locked = LockedDream.from_row(row)
    target = next_status(verdict.dream_id, locked.status, verdict.decision)
    promotion = settlement = None
    if verdict.confirmation is not None and target is DreamStatus.CONFIRMED:
        # Checked before anything is written: a duplicate that must not merge changes nothing.
        duplicate = locked.kind is DreamKind.DUPLICATE
        merge = planned_merge(verdict.dream_id, locked.fragments) if duplicate else None
        promotion = await _promote(tx, verdict, verdict.confirmation, locked.confirmations)
        if merge is not None:
            promotion = await merge_in(tx, verdict.dream_id, merge, verdict.at, promotion)
        # The person said yes; the dream is promoted only if memory took it.
        target = status_after(promotion.outcome)
    elif verdict.decision in SETTLING:
        settlement = await settle_in(tx, verdict.dream_id, locked, verdict.decision, verdict.at)
    await tx.run(
        q.APPEND_FEEDBACK,
        id=verdict.dream_id,
        now=verdict.at,
        decision=verdict.decision.value,
        feedback=verdict.feedback,
        to_status=target.value,
    )
    dream = await _read_dream(tx, verdict.dream_id)
    return FeedbackResult(dream=dream, promotion=promotion, merge=settlement)
