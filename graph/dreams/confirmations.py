"""What became of a person's confirmation of a dream, and the confirmed dreams memory took later.

A dream the person confirmed (`promote_candidate`) is `confirmed` until one of the claims its
confirming words support becomes a fact; then it is `promoted` (`graph/dreams/lifecycle.py`).
The promotion itself decides first. A claim that passes later, because the host remembered the
confirmed statement with `supported_by` naming the confirmation, because another memory said it
again, or because the person answered the question it opened, moves its dream too:
`settle_confirmed` runs after each memory write that made a fact (`memory_writes` calls it), and the
cycle's re_evaluate phase catches any left behind (`promote_taken`).

`confirmation_in` reads it all back for get_dream and the page: each claim with the fact it
became or, in plain words, the gate it failed and what would settle it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import confirmation_queries as q
from graph.dreams.models import ConfirmedClaim, Dream, DreamConfirmation, DreamStatus, HistoryActor
from graph.memory.models import ClaimResult, ClaimStatus, PromotionOutcome, Verdict
from graph.memory.policy import Gate
from graph.memory.predicates import PREDICATE_RULES
from graph.rows import Row, ids_of

# Confirmed dreams moved in one transaction at most; the sweep goes on until none is left.
SETTLE_BATCH = 200

_GATE_WORDS = {
    Gate.EXTRACT_CONFIDENCE.value: "the host was not sure enough that it was said",
    Gate.RESOLUTION_CONFIDENCE.value: "the host was not sure enough who or what it names",
    Gate.MODALITY.value: "it was said as a plan, a belief or a question, not as something that holds",
    Gate.ENTAILMENT.value: "the words do not state it",
}
_CLEARER_WORDS = (
    "the person can confirm again in words that state it plainly, with the claim read from those "
    "words (sending the same claim with higher confidences settles nothing)"
)


@dataclass(frozen=True)
class ClaimNow:
    """A claim the confirming words support, as `DREAM_CONFIRMATION` reads it."""

    id: str
    text: str
    status: ClaimStatus
    predicate: str
    verdict: str | None
    reason: str | None
    failed_gates: tuple[str, ...]
    fact_id: str | None
    question: str | None

    @classmethod
    def from_row(cls, row: Row) -> ClaimNow:
        return cls(
            id=str(row["id"]),
            text=str(row["text"]),
            status=ClaimStatus(row["status"]),
            predicate=str(row["predicate"]),
            verdict=row["verdict"],
            reason=row["verification_reason"],
            failed_gates=tuple(row["failed_gates"] or ()),
            fact_id=row["fact_id"],
            question=row["question"],
        )


def _evidence_words(predicate: str, fragment_ids: Sequence[str]) -> str:
    rule = PREDICATE_RULES.get(predicate)
    need = (
        f"{rule.min_support} memories that say it, or one source of quality {rule.min_source_quality:.2f}"
        if rule
        else "more memories that say it"
    )
    return (
        f"one source is not enough for {predicate}: it needs {need}. Another memory that says it "
        f"settles it (remember it with this claim and supported_by naming {', '.join(fragment_ids)})"
    )


def _waiting_words(claim: ClaimNow, fragment_ids: Sequence[str]) -> str | None:
    """Why `claim` is not memory, and what would settle it; None once it became a fact."""
    if claim.fact_id is not None:
        return None
    if claim.question:
        return f"memory holds another value: it waits for the person's answer to “{claim.question}”"
    if claim.status in (ClaimStatus.REJECTED, ClaimStatus.SUPERSEDED):
        return (
            f"{claim.status.value}: memory holds something stronger in its place, or the person "
            "turned it down"
        )
    if claim.verdict == Verdict.CONTRADICTED.value:
        return (
            f"the confirming words say otherwise ({claim.reason}); ask the person, and reject the "
            "dream if it does not hold"
        )
    if claim.verdict != Verdict.ENTAILED.value:
        return (
            f"the confirming words do not state it ({claim.reason}). It becomes memory when words that "
            f"state it are remembered with this claim, or {_CLEARER_WORDS}"
        )
    if Gate.EVIDENCE.value in claim.failed_gates:
        return _evidence_words(claim.predicate, fragment_ids)
    if claim.failed_gates:
        why = "; ".join(_GATE_WORDS.get(gate, gate) for gate in claim.failed_gates)
        return f"{why}. To settle it {_CLEARER_WORDS}"
    return "not promoted yet: it is weighed again the next time something said supports it"


def _summary(dream: Dream, claims: Sequence[ConfirmedClaim]) -> str:
    became = [f"“{claim.statement}” is a fact ({claim.fact_id})" for claim in claims if claim.fact_id]
    waiting = sum(1 for claim in claims if claim.waiting)
    parts = []
    if dream.merge is not None:
        merge = dream.merge
        parts.append(f"The two memories were merged: {merge.kept_id} kept, {merge.retracted_id} retracted.")
    if became:
        parts.append("Became memory: " + "; ".join(became) + ".")
    elif dream.merge is None:
        parts.append("The person said yes, but nothing became memory yet.")
    if waiting:
        parts.append(f"{waiting} confirmed claim(s) not memory yet: each one's `waiting` says why.")
    elif not claims and dream.merge is None:
        parts.append(
            "No statement was read from the confirming words, so there is nothing to make a fact of."
        )
    return " ".join(parts)


def _next_steps(dream: Dream, fragment_ids: Sequence[str]) -> str | None:
    if dream.status is not DreamStatus.CONFIRMED:
        return None
    return (
        "Promote it again with words (and a statement) that say more, reject it if it does not hold, or "
        "leave it: it becomes promoted by itself once a claim its confirming words support becomes a "
        "fact, for example when the host remembers what the person confirmed with supported_by naming "
        f"{', '.join(fragment_ids)}."
    )


async def confirmation_in(tx: ProfileTx, dream: Dream) -> DreamConfirmation | None:
    """What became of the person's confirmation of `dream`; None before they confirmed it."""
    row = await tx.one(q.DREAM_CONFIRMATION, id=dream.id)
    fragment_ids = list(row["fragment_ids"])
    if not fragment_ids:
        return None
    claims = [
        ConfirmedClaim(
            claim_id=found.id,
            statement=found.text,
            status=found.status,
            fact_id=found.fact_id,
            waiting=_waiting_words(found, fragment_ids),
        )
        for found in map(ClaimNow.from_row, row["claims"])
    ]
    return DreamConfirmation(
        fragment_ids=fragment_ids,
        claims=claims,
        summary=_summary(dream, claims),
        next_steps=_next_steps(dream, fragment_ids),
    )


async def _taken_in(tx: ProfileTx, claim_ids: Sequence[str] | None) -> list[str]:
    return ids_of(await tx.run(q.CONFIRMED_NOW_MEMORY, claim_ids=claim_ids, batch=SETTLE_BATCH))


async def _promote_in(
    tx: ProfileTx, dream_ids: Sequence[str], now: datetime, actor: HistoryActor
) -> list[str]:
    return ids_of(await tx.run(q.PROMOTE_CONFIRMED, ids=dream_ids, now=now, actor=actor.value))


async def _settle(
    graph: ProfileGraph, claim_ids: Sequence[str] | None, now: datetime, actor: HistoryActor
) -> list[str]:
    # Read first: most facts back no dream, and a read costs less than a write transaction. One
    # query needs no transaction around it (a remember that promotes pays this read).
    taken = await graph.read_alone(_taken_in, claim_ids)
    return await graph.write(_promote_in, taken, now, actor) if taken else []


async def settle_confirmed(
    graph: ProfileGraph, claims: Sequence[ClaimResult], now: datetime | None = None
) -> list[str]:
    """After a memory write: the confirmed dreams whose confirmation supports one of `claims`
    that just became a fact are promoted. Returns their ids; reads nothing when none became one."""
    promoted = [claim.claim_id for claim in claims if claim.outcome is PromotionOutcome.PROMOTED]
    if not promoted:
        return []
    return await _settle(graph, promoted, now or utcnow(), HistoryActor.MEMORY)


async def promote_taken(graph: ProfileGraph, now: datetime, apply: bool) -> int:
    """Every confirmed dream whose confirmation became memory, promoted (or, not `apply`ing,
    counted, up to a batch): in batches, each its own transaction."""
    if not apply:
        return len(await graph.read(_taken_in, None))
    moved = 0
    while True:
        batch = await _settle(graph, None, now, HistoryActor.RE_EVALUATION)
        moved += len(batch)
        if len(batch) < SETTLE_BATCH:
            return moved
