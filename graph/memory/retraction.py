"""retract_memory: withdraw a fragment or a fact as wrong, keeping its words for the record.

A retracted fragment stops supporting its claims (their facts then need revalidation). A
retracted fact leaves its slot, and the slot is settled again in the same transaction: the fact
it had replaced (if any, and still supported) is current again, and a claim that was waiting on
a question about the retracted fact is weighed against what now holds the slot, so no question
stays open about a fact that is gone.

A fragment's retraction can be undone exactly (`restore_fragment_in`, for a duplicate's merge the
person takes back): `retract_fragment_in` returns what it overwrote, and the claims that lost
their only support with it, with their states before.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.embedding.keeper import VectorKeeper
from graph.errors import InvalidInputError, NotFoundError
from graph.memory import queries as q
from graph.memory.claims import claim_nodes, load_claim, settle_claim
from graph.memory.models import ClaimResult, FragmentStatus, RetractResult
from graph.memory.pipeline import DEFAULT_VERIFIER
from graph.memory.records import (
    FragmentRetraction,
    OpenQuestion,
    RetractedFragment,
    Retraction,
    fact_view,
)
from graph.memory.verifier import ClaimVerifier
from graph.rows import ids_of

# The resolution recorded on a question whose fact was retracted before the person answered.
FACT_RETRACTED = "fact_retracted"


async def retract(
    graph: ProfileGraph,
    item_id: str,
    reason: str,
    now: datetime | None = None,
    verifier: ClaimVerifier = DEFAULT_VERIFIER,
    vectors: VectorKeeper | None = None,
) -> RetractResult:
    """Withdraw a fragment or fact as wrong; with `vectors`, a fact promoted by a reconsidered
    claim gets its vector like any other."""
    if not reason.strip():
        raise InvalidInputError("reason is empty: say why this memory is withdrawn (kept for the record).")
    result = await graph.write(retract_in, item_id, reason, now or utcnow(), verifier)
    if vectors is not None:
        vectors.keep(graph, [node for claim in result.reconsidered_claims for node in claim_nodes(claim)])
    return result


async def retract_fragment_in(
    tx: ProfileTx, fragment_id: str, reason: str, now: datetime
) -> FragmentRetraction | None:
    """Retract a fragment, or None when `fragment_id` names none; what it changed comes back."""
    row = await tx.single(q.RETRACT_FRAGMENT, id=fragment_id, reason=reason, now=now)
    if row is None:
        return None
    lost = await tx.run(q.CLAIMS_LOSING_SUPPORT, ids=[fragment_id], skip=[])
    return FragmentRetraction.from_rows(fragment_id, row, lost)


async def retract_in(
    tx: ProfileTx, item_id: str, reason: str, now: datetime, verifier: ClaimVerifier
) -> RetractResult:
    retracted = await retract_fragment_in(tx, item_id, reason, now)
    if retracted is not None:
        return RetractResult(
            id=item_id,
            kind="fragment",
            status="retracted",
            already_retracted=retracted.already,
            unsupported_claim_ids=[claim.claim_id for claim in retracted.lost],
            facts_needing_revalidation=[fact_id for claim in retracted.lost for fact_id in claim.fact_ids],
        )
    row = await tx.single(q.RETRACT_FACT, id=item_id, reason=reason, now=now)
    if row is None:
        raise NotFoundError("fragment or fact", item_id)
    retraction = Retraction.from_row(row)
    result = RetractResult(
        id=item_id,
        kind="fact",
        status="retracted",
        already_retracted=retraction.already,
        unsupported_claim_ids=[],
        facts_needing_revalidation=[],
    )
    if retraction.already or not retraction.current:
        return result
    # The slot's lock first, as every promotion takes it: a concurrent remember into this slot
    # sees either the slot before this retraction or after it is settled, never between.
    await tx.run(q.LOCK_SLOT_ACTIVE_FACTS, slot=retraction.slot, now=now)
    reinstated = await tx.single(q.REINSTATE_REPLACED_FACT, id=item_id, now=now)
    reconsidered = await _reconsider_questions(tx, item_id, verifier, now)
    if reinstated is not None:
        # Read again: a reconsidered claim may have replaced it in this same transaction.
        reinstated = await tx.one(q.GET_FACT, id=fact_view(reinstated).id)
    return result.model_copy(
        update={
            "reinstated_fact": fact_view(reinstated) if reinstated else None,
            "reconsidered_claims": reconsidered,
        }
    )


async def _reconsider_questions(
    tx: ProfileTx, fact_id: str, verifier: ClaimVerifier, now: datetime
) -> list[ClaimResult]:
    """Close the open questions about a retracted fact and weigh each one's claim again."""
    settled = []
    for row in await tx.run(q.OPEN_CLARIFICATIONS_ABOUT_FACT, fact_id=fact_id):
        question = OpenQuestion.from_row(row)
        await tx.run(q.RESOLVE_CLARIFICATION, id=question.id, resolution=FACT_RETRACTED, now=now)
        claim = await load_claim(tx, question.claim_id)
        settled.append(await settle_claim(tx, claim, verifier, now, promote=True))
    return settled


async def restore_fragment_in(tx: ProfileTx, retraction: FragmentRetraction, now: datetime) -> list[str]:
    """Undo `retraction`: the fragment active again with the properties it had,
    and each claim that lost its only support with it back as it was, with its facts, unless it
    has moved since (new evidence, a person's answer, another fact in its slot): such a claim is
    left as it is now. Refused, changing nothing, when the fragment is no longer retracted by
    that retraction (forgotten, say) or another fragment now holds its words. Returns the ids of
    the claims put back."""
    fragment_id = retraction.fragment_id
    state = RetractedFragment.from_row(
        await tx.one(q.RETRACTED_FRAGMENT, id=fragment_id, active_hash=retraction.active_hash or "")
    )
    if state.status is None:
        raise InvalidInputError(f"{fragment_id} has been forgotten since: nothing is left to put back.")
    if state.status != FragmentStatus.RETRACTED or state.reason != retraction.reason:
        raise InvalidInputError(
            f"{fragment_id} is no longer as that retraction left it (it is {state.status} now, "
            f"reason: {state.reason or 'none'}). Nothing was changed."
        )
    if state.held_by is not None:
        raise InvalidInputError(
            f"{state.held_by} has said the same words since {fragment_id} was retracted, and memory holds "
            "one active copy of them. Nothing was changed."
        )
    await tx.run(
        q.RESTORE_FRAGMENT,
        id=fragment_id,
        active_hash=retraction.active_hash,
        retracted_at=retraction.retracted_at,
        retract_reason=retraction.retract_reason,
    )
    fact_ids = [fact_id for claim in retraction.lost for fact_id in claim.fact_ids]
    await tx.run(q.LOCK_FACT_SLOTS, ids=fact_ids, now=now)
    claims = [asdict(claim) for claim in retraction.lost]
    return ids_of(await tx.run(q.RESTORE_SUPPORT, claims=claims, at=retraction.at))
