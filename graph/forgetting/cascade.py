"""forget: erase memories and everything that held only their words, in one transaction.

The cascade runs to a fixed point inside the transaction, so what it erases is decided on one
consistent view of the graph and a failure part-way erases nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.embedding.encoder import Embedder
from graph.errors import InvalidInputError, NotFoundError
from graph.forgetting import queries as q
from graph.forgetting.models import ForgetResult, ForgettableKind, ForgottenItem
from graph.forgetting.records import Dependent, DoomedKind, Identified, slots_from_row
from graph.memory import queries as memory_queries
from graph.memory.records import LostSupport
from graph.rows import ids_of
from graph.words_gate import pass_words_gate

MAX_IDS = 100
MAX_REASON_CHARS = 200
# A cascade this large means a request far wider than one conversation's worth of memories;
# it is refused whole so that one transaction stays a size Neo4j handles comfortably.
MAX_CASCADE = 5_000
ERASED_HYPOTHESIS = "(erased: this dream cited a memory the person asked to forget)"
ERASED_REASON = "a memory it cited was forgotten"


@dataclass
class _Doomed:
    """Ids to erase by kind, grown until the cascade adds nothing."""

    fragment: set[str] = field(default_factory=set)
    claim: set[str] = field(default_factory=set)
    fact: set[str] = field(default_factory=set)
    dream: set[str] = field(default_factory=set)

    def add(self, kind: DoomedKind, item_id: str) -> bool:
        bucket: set[str] = getattr(self, kind)
        grew = item_id not in bucket
        bucket.add(item_id)
        return grew

    def size(self) -> int:
        return len(self.fragment) + len(self.claim) + len(self.fact) + len(self.dream)

    def params(self) -> dict[str, list[str]]:
        return {
            "fragments": sorted(self.fragment),
            "claims": sorted(self.claim),
            "facts": sorted(self.fact),
            "dreams": sorted(self.dream),
        }


def _check_request(ids: Sequence[str], reason: str | None) -> list[str]:
    unique = list(dict.fromkeys(ids))
    if not 1 <= len(unique) <= MAX_IDS:
        raise InvalidInputError(f"ids: pass 1 to {MAX_IDS} memory ids (fragments, claims or facts).")
    if any(not 0 < len(item_id) <= 64 for item_id in unique):
        raise InvalidInputError(
            "ids: each id has 1 to 64 characters; pass ids from remember or recall_memory."
        )
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        raise InvalidInputError(
            f"reason has {len(reason)} characters; the limit is {MAX_REASON_CHARS}. Say why in a few "
            "words, never the words being forgotten."
        )
    return unique


async def _requested(tx: ProfileTx, ids: list[str]) -> list[ForgottenItem]:
    identified = [Identified.from_row(row) for row in await tx.run(q.IDENTIFY, ids=ids)]
    missing = [entry.id for entry in identified if entry.kind is None]
    if missing:
        raise NotFoundError("fragment, claim or fact", ", ".join(missing))
    return [item for entry in identified if (item := entry.item()) is not None]


async def _cascade(tx: ProfileTx, doomed: _Doomed) -> None:
    while True:
        rows = await tx.run(q.DEPENDENTS, **doomed.params())
        grew = [doomed.add(dependent.kind, dependent.id) for dependent in map(Dependent.from_row, rows)]
        if doomed.size() > MAX_CASCADE:
            raise InvalidInputError(
                f"forgetting these would erase over {MAX_CASCADE} memories and dreams at once; "
                "forget fewer ids per call. Nothing was changed."
            )
        if not any(grew):
            return


async def _erase(tx: ProfileTx, doomed: _Doomed, reason: str | None, now: datetime) -> dict[str, list[str]]:
    """Everything the cascade chose, in an order where each step still sees what it needs."""
    params = doomed.params()
    still_said_in = ids_of(
        await tx.run(q.STILL_SAID_IN, claims=params["claims"], fragments=params["fragments"])
    )
    losing = [
        LostSupport.from_row(row)
        for row in await tx.run(
            memory_queries.CLAIMS_LOSING_SUPPORT, ids=params["fragments"], skip=params["claims"]
        )
    ]
    reopened = ids_of(await tx.run(q.DROP_CLARIFICATIONS, ids=params["claims"] + params["facts"]))
    await tx.run(
        q.ERASE_DREAMS,
        ids=params["dreams"],
        forgotten=params["fragments"] + params["claims"] + params["facts"],
        hypothesis=ERASED_HYPOTHESIS,
        reason=ERASED_REASON,
        now=now,
    )
    slots: list[str] = []
    for query, kind in (
        (q.FORGET_FACTS, "facts"),
        (q.FORGET_CLAIMS, "claims"),
        (q.FORGET_FRAGMENTS, "fragments"),
    ):
        slots.extend(slots_from_row(await tx.one(query, ids=params[kind], reason=reason, now=now)))
    await tx.run(q.DROP_EMPTY_SLOTS, slots=sorted(set(slots)))
    await tx.run(q.DROP_RECALL_QUESTIONS, ids=params["fragments"] + params["claims"] + params["facts"])
    return {
        "still_said_in": still_said_in,
        "claims_losing_support": [claim.claim_id for claim in losing],
        "facts_needing_revalidation": sorted({fact for claim in losing for fact in claim.fact_ids}),
        "claims_no_longer_disputed": reopened,
    }


async def _forget_in(tx: ProfileTx, ids: list[str], reason: str | None, now: datetime) -> ForgetResult:
    # Before anything is read: a dream or a question drawn from these memories that is being
    # written now either committed already (and the cascade finds it) or waits and then sees
    # the tombstones (`graph/words_gate.py`).
    await pass_words_gate(tx)
    requested = await _requested(tx, ids)
    doomed = _Doomed()
    for item in requested:
        if not item.already_forgotten:
            doomed.add(item.kind, item.id)
    await _cascade(tx, doomed)
    asked = {item.id for item in requested}
    kinds: tuple[ForgettableKind, ...] = ("fragment", "claim", "fact")
    cascaded = [
        ForgottenItem(id=item_id, kind=kind, already_forgotten=False)
        for kind in kinds
        for item_id in sorted(getattr(doomed, kind))
        if item_id not in asked
    ]
    effects = await _erase(tx, doomed, reason, now)
    return ForgetResult(forgotten=requested, cascaded=cascaded, dreams_erased=sorted(doomed.dream), **effects)


async def forget(
    graph: ProfileGraph,
    ids: Sequence[str],
    reason: str | None = None,
    now: datetime | None = None,
    *,
    embedder: Embedder | None = None,
) -> ForgetResult:
    """Erase the memories `ids` (fragments, claims or facts): each becomes a tombstone holding its
    id, when and why, and no word of it. Claims and facts that rested only on them go too;
    dreams that cited them keep their place in the history without their texts. `embedder`, the
    process's model, drops the vectors of every question the profile asked: a question that named
    what is forgotten leaves nothing of it behind (other processes let theirs expire)."""
    checked = _check_request(ids, reason)
    result = await graph.write(_forget_in, checked, reason, now or utcnow())
    if embedder is not None:
        embedder.drop_questions(graph.profile_id)
    return result
