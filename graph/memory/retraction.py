"""retract_memory: withdraw a fragment or a fact as wrong, keeping its words for the record.

A retracted fragment stops supporting its claims (their facts then need revalidation). A
retracted fact leaves its slot, and the slot is settled again in the same transaction: the fact
it had replaced (if any, and still supported) is current again, and a claim that was waiting on
a question about the retracted fact is weighed against what now holds the slot, so no question
stays open about a fact that is gone.
"""

from __future__ import annotations

from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.embedding.keeper import VectorKeeper
from graph.errors import InvalidInputError, NotFoundError
from graph.memory import queries as q
from graph.memory.claims import claim_nodes, load_claim, settle_claim
from graph.memory.models import ClaimResult, RetractResult
from graph.memory.pipeline import DEFAULT_VERIFIER
from graph.memory.records import LostSupport, OpenQuestion, Retraction, fact_view
from graph.memory.verifier import ClaimVerifier

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


async def retract_in(
    tx: ProfileTx, item_id: str, reason: str, now: datetime, verifier: ClaimVerifier
) -> RetractResult:
    row = await tx.single(q.RETRACT_FRAGMENT, id=item_id, reason=reason, now=now)
    if row is not None:
        lost = [
            LostSupport.from_row(entry)
            for entry in await tx.run(q.CLAIMS_LOSING_SUPPORT, ids=[item_id], skip=[])
        ]
        return RetractResult(
            id=item_id,
            kind="fragment",
            status="retracted",
            already_retracted=Retraction.from_row(row).already,
            unsupported_claim_ids=[claim.claim_id for claim in lost],
            facts_needing_revalidation=[fact_id for claim in lost for fact_id in claim.fact_ids],
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
