"""A claim's identity, its verification against its evidence, and its promotion to a fact.

The functions here run inside the caller's write transaction: `remember`, `confirm_memory`
and a promoted dream all pass claims through exactly this path.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.access import ProfileTx
from graph.embedding.keeper import Unembedded
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import PassageVectors, vector_properties
from graph.errors import InvalidInputError, NotFoundError
from graph.memory import queries as q
from graph.memory.models import (
    CONFIRM_HINT_OPENER,
    ClaimInput,
    ClaimResult,
    ClaimStatus,
    ClarificationView,
    FactView,
    PromotionOutcome,
)
from graph.memory.policy import ClaimEvidence, Strength, check_gates, compare_strength, truth_score
from graph.memory.predicates import PredicatePolicy, PredicateRule, names_a_date, rule_for
from graph.memory.records import ClaimSupport, SlotFact, StoredClaim, clarification_view, fact_view
from graph.memory.sentences import find_span, read_fragment
from graph.memory.verifier import SELF_SUBJECTS, ClaimVerifier, Verdict, Verification, statement_of
from graph.rows import id_of
from graph.text import normalize

# Fragments with this label hold a person's own words on confirming a dream. They are evidence
# like anything else the person says (only their words are stored, never the dream's text), but
# the dream phase never dreams about them, so dreams cannot feed on their own reviews.
DREAM_FEEDBACK_LABEL = "dream_feedback"
# How many of a claim's newest supporting fragments the verifier reads. Older evidence still
# counts towards the evidence gate; it just is not re-read on every restatement.
VERIFY_WINDOW = 25
_STATUS_BY_VERDICT = {
    Verdict.ENTAILED: ClaimStatus.VALIDATED,
    Verdict.CONTRADICTED: ClaimStatus.DISPUTED,
    Verdict.INSUFFICIENT: ClaimStatus.CANDIDATE,
}


def subject_key(subject: str) -> str:
    key = normalize(subject)
    return "user" if key in SELF_SUBJECTS else key


def identity_key(*parts: str) -> str:
    """Parts joined so that no two different lists of parts give one key, whatever the parts
    hold (a JSON array: a '|' or quote inside a part stays inside it)."""
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":"))


def claim_keys(subject: str, predicate: str, obj: str, polarity: str, exclusive: bool) -> tuple[str, str]:
    """(claim_key, slot): the statement's identity, and the slot it competes in for a fact."""
    key = identity_key(subject, predicate, normalize(obj), polarity)
    # One active fact per slot for single_current predicates; one per statement otherwise.
    return key, identity_key(subject, predicate) if exclusive else key


def check_claim(claim: ClaimInput) -> None:
    """What every claim meets before anything is stored, wherever it comes from (remember, a
    promotion, a dream's statement): a predicate Reverie has, an object of the kind it needs,
    a validity window that runs forward."""
    rule = rule_for(claim.predicate)
    if rule.object_is_date and not names_a_date(claim.object):
        raise InvalidInputError(
            f"claim {claim.predicate!r}: {claim.object!r} is not a date; give the day, e.g. 1990-03-14 "
            "or 14 March 1990."
        )
    if claim.valid_from and claim.valid_to and claim.valid_from >= claim.valid_to:
        raise InvalidInputError(f"claim {claim.predicate!r}: valid_from must be before valid_to.")


def check_evidence(claim: ClaimInput, content: str) -> None:
    """A claim's evidence span must be words of the content it comes with, so the verifier can
    find it there and read it in its sentence."""
    if claim.evidence is not None and find_span(read_fragment(content), claim.evidence) is None:
        raise InvalidInputError(
            f"claim {claim.predicate!r}: evidence {claim.evidence!r} is not in content. Copy the exact "
            "words of content that say the claim (a few words to a sentence), or leave evidence out."
        )


def claim_fields(claim: ClaimInput) -> dict[str, Any]:
    """The stored identity of a claim: the same statement always maps to the same keys."""
    rule = rule_for(claim.predicate)
    subject = subject_key(claim.subject)
    exclusive = rule.policy is PredicatePolicy.SINGLE_CURRENT and claim.polarity == "positive"
    claim_key, slot = claim_keys(subject, claim.predicate, claim.object, claim.polarity, exclusive)
    negation = "not " if claim.polarity == "negative" else ""
    return {
        "subject": claim.subject,
        "subject_key": subject,
        "predicate": claim.predicate,
        "object": claim.object,
        "claim_key": claim_key,
        "slot": slot,
        "text": f"{claim.subject} {negation}{claim.predicate.replace('_', ' ')} {claim.object}",
        "extract_conf": claim.extract_conf,
        "resolution_conf": claim.resolution_conf,
        "modality": claim.modality,
        "polarity": claim.polarity,
        "valid_from": claim.valid_from,
        "valid_to": claim.valid_to,
        "evidence": claim.evidence,
    }


async def upsert_claim(
    tx: ProfileTx,
    claim: ClaimInput,
    fragment_ids: list[str],
    now: datetime,
    vectors: PassageVectors | None = None,
) -> StoredClaim:
    """Reuse the open claim with the same statement, or create it; then link its support.

    With `vectors` (computed before the transaction), the claim gets its statement's vector."""
    fields = claim_fields(claim)
    row = await tx.one(
        q.UPSERT_OPEN_CLAIM,
        claim_key=fields["claim_key"],
        id=str(uuid.uuid4()),
        fields=fields,
        fragment_ids=fragment_ids,
        now=now,
        **vector_properties(vectors, fields["text"]),
    )
    return StoredClaim.from_row(row)


@dataclass(frozen=True)
class Assessment:
    verification: Verification
    evidence: ClaimEvidence
    status: ClaimStatus


async def load_claim(tx: ProfileTx, claim_id: str) -> StoredClaim:
    row = await tx.single(q.GET_CLAIM, id=claim_id)
    if row is None:
        raise NotFoundError("claim", claim_id)
    return StoredClaim.from_row(row)


async def assess_claim(tx: ProfileTx, claim: StoredClaim, verifier: ClaimVerifier) -> Assessment:
    """Verify a stored claim against its active, independent supporting fragments."""
    support = ClaimSupport.from_row(await tx.one(q.CLAIM_SUPPORT, claim_id=claim.id, window=VERIFY_WINDOW))
    statement = statement_of(claim)
    verification = verifier.verify(statement, list(support.texts))
    evidence = ClaimEvidence(
        extract_conf=claim.extract_conf,
        resolution_conf=claim.resolution_conf,
        modality=claim.modality,
        verdict=verification.verdict,
        support_count=support.support_count,
        best_source_quality=support.best_quality,
    )
    status = _STATUS_BY_VERDICT[verification.verdict]
    if claim.status is ClaimStatus.PROMOTED and status is ClaimStatus.VALIDATED:
        status = ClaimStatus.PROMOTED
    return Assessment(verification, evidence, status)


@dataclass(frozen=True)
class Promotion:
    outcome: PromotionOutcome
    failed_gates: tuple[str, ...] = ()
    fact: FactView | None = None
    superseded_fact_id: str | None = None
    clarification: ClarificationView | None = None
    status: ClaimStatus | None = None


async def _promote_claim(
    tx: ProfileTx,
    claim: StoredClaim,
    assessment: Assessment,
    now: datetime,
    *,
    overrule: str | None = None,
) -> Promotion:
    """Apply the gates and the slot's policy. `overrule` names a fact the person chose to replace.

    The claim's new status is returned in `Promotion.status`, and `settle_claim` records it
    together with the verdict, in one write."""
    if assessment.verification.verdict is not Verdict.ENTAILED:
        return Promotion(PromotionOutcome.NOT_VALIDATED)
    rule = rule_for(claim.predicate)
    gates = check_gates(rule, assessment.evidence)
    if not gates.passed:
        return Promotion(PromotionOutcome.GATE_REJECTED, failed_gates=tuple(str(g) for g in gates.failed))
    score = truth_score(rule, assessment.evidence)
    rows = await tx.run(q.LOCK_SLOT_ACTIVE_FACTS, slot=claim.slot, now=now)
    active = [fact for fact in map(SlotFact.from_row, rows) if fact is not None]
    same = next((fact for fact in active if fact.claim_key == claim.claim_key), None)
    if same is not None:
        fact = fact_view(await tx.one(q.UPDATE_FACT_SCORE, id=same.id, truth_score=score))
        return Promotion(PromotionOutcome.PROMOTED, fact=fact, status=ClaimStatus.PROMOTED)
    conflicting = active[0] if active and rule.policy is PredicatePolicy.SINGLE_CURRENT else None
    if conflicting is None:
        return await _create_fact(tx, claim, rule, score, now, replaces=None)
    if overrule == conflicting.id:
        return await _create_fact(tx, claim, rule, score, now, replaces=conflicting.id)
    strength = compare_strength(score, conflicting.view.truth_score)
    if strength is Strength.STRONGER:
        return await _create_fact(tx, claim, rule, score, now, replaces=conflicting.id)
    if strength is Strength.WEAKER:
        return Promotion(PromotionOutcome.REJECTED_WEAKER, status=ClaimStatus.REJECTED)
    clarification = await _open_clarification(tx, claim, conflicting, now)
    return Promotion(
        PromotionOutcome.CLARIFICATION_REQUIRED, clarification=clarification, status=ClaimStatus.DISPUTED
    )


async def _create_fact(
    tx: ProfileTx,
    claim: StoredClaim,
    rule: PredicateRule,
    score: float,
    now: datetime,
    *,
    replaces: str | None,
) -> Promotion:
    row = await tx.one(
        q.PROMOTE_TO_FACT,
        claim_id=claim.id,
        id=str(uuid.uuid4()),
        slot=claim.slot,
        truth_score=score,
        now=now,
    )
    fact = fact_view(row)
    if replaces is not None:
        await tx.run(q.SUPERSEDE_FACT, old_id=replaces, new_id=fact.id, now=now)
    return Promotion(
        PromotionOutcome.PROMOTED, fact=fact, superseded_fact_id=replaces, status=ClaimStatus.PROMOTED
    )


async def _open_clarification(
    tx: ProfileTx, claim: StoredClaim, fact: SlotFact, now: datetime
) -> ClarificationView:
    held = fact.view
    question = (
        f"Memory says {held.subject} {held.predicate.replace('_', ' ')} {held.object}, but a new "
        f"statement says {claim.object}, with equal support. Which is right now?"
        f"{CONFIRM_HINT_OPENER}claim_id={claim.id}: accept_claim or keep_existing)"
    )
    row = await tx.one(
        q.OPEN_CLARIFICATION,
        claim_id=claim.id,
        fact_id=fact.id,
        id=str(uuid.uuid4()),
        question=question,
        now=now,
    )
    return clarification_view(row)


async def settle_claim(
    tx: ProfileTx,
    claim: StoredClaim,
    verifier: ClaimVerifier,
    now: datetime,
    *,
    promote: bool,
    overrule: str | None = None,
) -> ClaimResult:
    """Verify a claim, record the verdict, and (when asked) try to promote it."""
    assessment = await assess_claim(tx, claim, verifier)
    final = claim.status in (ClaimStatus.REJECTED, ClaimStatus.SUPERSEDED)
    promotion = (
        await _promote_claim(tx, claim, assessment, now, overrule=overrule)
        if promote and not final
        else Promotion(PromotionOutcome.NOT_ATTEMPTED)
    )
    # A rejected or superseded claim keeps its status; a fresh verdict only informs.
    status = promotion.status or (claim.status if final else assessment.status)
    flagged = None
    if claim.status is ClaimStatus.PROMOTED and assessment.verification.verdict is Verdict.CONTRADICTED:
        row = await tx.single(
            q.FLAG_CONTRADICTED_FACT, claim_id=claim.id, now=now, reason=assessment.verification.reason
        )
        flagged = id_of(row) if row else None
    fields = {
        "status": status.value,
        "verdict": assessment.verification.verdict.value,
        "verifier": assessment.verification.verifier,
        "verification_reason": assessment.verification.reason,
        "verified_at": now,
        "support_count": assessment.evidence.support_count,
        "failed_gates": list(promotion.failed_gates),
        "unsupported": assessment.evidence.support_count == 0,
    }
    await tx.run(q.SET_CLAIM_STATE, id=claim.id, fields=fields)
    return ClaimResult(
        claim_id=claim.id,
        subject=claim.subject,
        predicate=claim.predicate,
        object=claim.object,
        status=status,
        verdict=assessment.verification.verdict,
        verifier=assessment.verification.verifier,
        verification_reason=assessment.verification.reason,
        outcome=promotion.outcome,
        failed_gates=list(promotion.failed_gates),
        fact=promotion.fact,
        superseded_fact_id=promotion.superseded_fact_id,
        clarification=promotion.clarification,
        flagged_fact_id=flagged,
    )


def claim_nodes(settled: ClaimResult) -> list[Unembedded]:
    """The claim a settlement touched and the fact it promoted or kept, for the vector keeper
    (which skips those that have the model's vector already)."""
    nodes = [Unembedded(EmbeddedKind.CLAIM, settled.claim_id)]
    if settled.fact is not None:
        nodes.append(Unembedded(EmbeddedKind.FACT, settled.fact.id))
    return nodes
