"""remember and confirm: the writes of the memory pipeline (retraction is `graph.memory.retraction`).

Each call is one write transaction, so a failure part-way leaves nothing behind. Input is
checked before anything is written and refused with a message that says what to change.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from neo4j.exceptions import ConstraintError

from graph.access import ProfileGraph, ProfileTx
from graph.clock import as_utc, utcnow
from graph.embedding.keeper import MissingVector, Unembedded, VectorKeeper, mark_due
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import PassageVectors, vector_properties
from graph.errors import (
    ForgottenKeyError,
    IdempotencyConflictError,
    InvalidInputError,
    InvalidTransitionError,
)
from graph.memory import queries as q
from graph.memory.claims import (
    check_claim,
    check_evidence,
    claim_fields,
    claim_nodes,
    load_claim,
    settle_claim,
    upsert_claim,
)
from graph.memory.models import (
    MAX_CLAIMS,
    MAX_CONTENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_LABELS,
    MAX_SOURCE_CHARS,
    Authority,
    ClaimInput,
    ClaimResult,
    ClaimStatus,
    ConfirmResult,
    FragmentRef,
    FragmentStatus,
    PromotionOutcome,
    RememberResult,
    SharedKind,
)
from graph.memory.policy import source_quality
from graph.memory.records import FragmentState, KeyedFragment, clarification_view
from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimVerifier
from graph.rows import id_of
from graph.schema import GRAPH_FORMAT
from graph.text import normalize

MAX_METADATA_CHARS = 4_000
ConfirmDecision = Literal["accept_claim", "keep_existing", "reject_claim"]
# sentence-v1 reads who, negation, mood and time; lexical-v1 stays for comparison.
DEFAULT_VERIFIER: ClaimVerifier = SentenceVerifier()


@dataclass(frozen=True)
class RememberRequest:
    content: str
    source: str | None = None
    authority: Authority = "primary"
    shared: SharedKind | None = None
    idempotency_key: str | None = None
    labels: Sequence[str] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    claims: Sequence[ClaimInput] = ()
    auto_promote: bool = True
    # When the person said or did it; defaults to when it is stored.
    occurred_at: datetime | None = None

    def passages(self) -> list[str]:
        """The texts this request may store: the content and each claim's statement."""
        return [self.content, *(claim_fields(claim)["text"] for claim in self.claims)]


def _check_request(request: RememberRequest) -> str:
    """Refuse bad input before any write; returns the metadata as stored JSON."""
    if not request.content.strip():
        raise InvalidInputError("content is empty: pass the text the person said or the evidence to keep.")
    if len(request.content) > MAX_CONTENT_CHARS:
        raise InvalidInputError(
            f"content has {len(request.content)} characters; the limit is {MAX_CONTENT_CHARS}. "
            "Split it into several remember calls."
        )
    if len(request.labels) > MAX_LABELS or any(
        not 0 < len(label) <= MAX_LABEL_CHARS for label in request.labels
    ):
        raise InvalidInputError(f"labels: at most {MAX_LABELS}, each 1 to {MAX_LABEL_CHARS} characters.")
    if request.source is not None and len(request.source) > MAX_SOURCE_CHARS:
        raise InvalidInputError(
            f"source has {len(request.source)} characters; the limit is {MAX_SOURCE_CHARS}. "
            "Name where it came from briefly (e.g. 'chat 2026-11-20') and keep the text in content."
        )
    if len(request.claims) > MAX_CLAIMS:
        raise InvalidInputError(f"at most {MAX_CLAIMS} claims per fragment; split the content.")
    for claim in request.claims:
        check_claim(claim)
        check_evidence(claim, request.content)
    try:
        metadata = json.dumps(dict(request.metadata), sort_keys=True, default=str)
    except (TypeError, ValueError):
        raise InvalidInputError("metadata must be a JSON object of plain values.") from None
    if len(metadata) > MAX_METADATA_CHARS:
        raise InvalidInputError(f"metadata is too large ({len(metadata)} > {MAX_METADATA_CHARS} characters).")
    return metadata


def content_hash(content: str) -> str:
    return hashlib.sha256(normalize(content).encode()).hexdigest()


async def _find_keyed(tx: ProfileTx, key: str, digest: str) -> FragmentRef | None:
    """The fragment a retried call with the same idempotency key stored, if any."""
    row = await tx.single(q.FIND_FRAGMENT_BY_KEY, key=key)
    keyed = KeyedFragment.from_row(row) if row else None
    if keyed is None:
        return None
    if keyed.forgotten:
        raise ForgottenKeyError(key, keyed.id)
    if keyed.content_hash != digest:
        raise IdempotencyConflictError(key, keyed.id)
    return FragmentRef(id=keyed.id, created=False, duplicate_of=keyed.id, duplicate_by="idempotency_key")


async def _check_support_ids(tx: ProfileTx, claims: Sequence[ClaimInput]) -> None:
    wanted = sorted({fragment_id for claim in claims for fragment_id in claim.supported_by})
    if not wanted:
        return
    found = map(FragmentState.from_row, await tx.run(q.ACTIVE_FRAGMENTS, ids=wanted))
    active = {fragment.id for fragment in found if fragment.status is FragmentStatus.ACTIVE}
    missing = [fragment_id for fragment_id in wanted if fragment_id not in active]
    if missing:
        raise InvalidInputError(
            f"supported_by names fragments that are not active in this profile: {', '.join(missing)}. "
            "Pass ids returned by remember or recall_memory."
        )


@dataclass(frozen=True)
class _Writing:
    """What a remember transaction needs besides the request, all settled before it opens."""

    metadata: str
    verifier: ClaimVerifier
    now: datetime
    vectors: PassageVectors | None
    # The model whose vectors the keeper writes after the commit: what the write stores without
    # one is marked due, so a recall on another process can write it first (`keeper.caught_up`).
    due_model: str | None = None


@dataclass(frozen=True)
class _Remembered:
    result: RememberResult
    # What it stored without the model's vector, with the texts, for the keeper.
    due: list[MissingVector]


async def _remember_in(tx: ProfileTx, request: RememberRequest, writing: _Writing) -> _Remembered:
    digest = content_hash(request.content)
    await _check_support_ids(tx, request.claims)
    if request.idempotency_key:
        keyed = await _find_keyed(tx, request.idempotency_key, digest)
        if keyed is not None:
            # A retried call: the first one already processed its claims.
            return _Remembered(RememberResult(fragment=keyed, claims=[], clarifications=[]), [])
    # A new fragment is marked due as it is created: one round trip less than `mark_due`.
    due_at = writing.now if writing.due_model is not None else None
    row = await tx.one(
        q.CREATE_FRAGMENT_UNLESS_HELD,
        id=str(uuid.uuid4()),
        text=request.content,
        hash=digest,
        key=request.idempotency_key,
        source=request.source,
        authority=request.authority,
        shared=request.shared,
        quality=source_quality(request.authority),
        labels=list(request.labels),
        metadata=writing.metadata,
        now=writing.now,
        occurred_at=as_utc(request.occurred_at) or writing.now,
        graph_format=GRAPH_FORMAT,
        due_at=due_at,
        **vector_properties(writing.vectors, request.content),
    )
    held = id_of(row)
    fragment = (
        FragmentRef(id=held, created=True)
        if row["created"]
        else FragmentRef(id=held, created=False, duplicate_of=held, duplicate_by="content_hash")
    )
    results = await _settle_claims(tx, request, fragment.id, writing)
    clarifications = [result.clarification for result in results if result.clarification is not None]
    result = RememberResult(fragment=fragment, claims=results, clarifications=clarifications)
    if writing.due_model is None:
        return _Remembered(result, [])
    fragment_node = Unembedded(EmbeddedKind.FRAGMENT, fragment.id)
    due = [MissingVector(fragment_node, request.content)] if fragment.created else []
    claimed = [node for settled in results for node in claim_nodes(settled)]
    return _Remembered(result, due + await mark_due(tx, writing.due_model, claimed, writing.now))


async def _settle_claims(
    tx: ProfileTx, request: RememberRequest, fragment_id: str, writing: _Writing
) -> list[ClaimResult]:
    results = []
    for claim in request.claims:
        # The claim gets its vector before it is settled, so a fact promoted from it copies it.
        stored = await upsert_claim(
            tx, claim, [fragment_id, *claim.supported_by], writing.now, writing.vectors
        )
        results.append(
            await settle_claim(tx, stored, writing.verifier, writing.now, promote=request.auto_promote)
        )
    return results


async def remember_in(
    tx: ProfileTx,
    request: RememberRequest,
    now: datetime,
    verifier: ClaimVerifier = DEFAULT_VERIFIER,
    vectors: PassageVectors | None = None,
) -> RememberResult:
    """remember inside a transaction the caller owns (a promoted dream writes its evidence so).

    `vectors` must have been computed before that transaction opened (`embed_passages`)."""
    remembered = await _remember_in(tx, request, _Writing(_check_request(request), verifier, now, vectors))
    return remembered.result


async def remember(
    graph: ProfileGraph,
    request: RememberRequest,
    verifier: ClaimVerifier = DEFAULT_VERIFIER,
    now: datetime | None = None,
    vectors: VectorKeeper | None = None,
) -> RememberResult:
    """Store the memory; with `vectors`, its meaning vectors are written after the commit."""
    due_model = vectors.embedder.model_id if vectors is not None else None
    writing = _Writing(_check_request(request), verifier, now or utcnow(), None, due_model)
    # Concurrent remembers of one profile commit together: a bulk import pays one index refresh
    # per group instead of one per memory.
    try:
        remembered = await graph.write_grouped(_remember_in, request, writing)
    except ConstraintError:
        # Trigger: a concurrent call stored the same content or key first. Why: the database's
        # unique constraints decided the race. Outcome: run again and report the duplicate.
        remembered = await graph.write_grouped(_remember_in, request, writing)
    if vectors is not None:
        vectors.keep(graph, remembered.due)
    return remembered.result


_DECISIONS_BY_STATUS: dict[ClaimStatus, frozenset[str]] = {
    ClaimStatus.DISPUTED: frozenset({"accept_claim", "keep_existing", "reject_claim"}),
    ClaimStatus.VALIDATED: frozenset({"accept_claim", "reject_claim"}),
    ClaimStatus.CANDIDATE: frozenset({"accept_claim", "reject_claim"}),
}


async def _confirm_in(
    tx: ProfileTx, claim_id: str, decision: ConfirmDecision, verifier: ClaimVerifier, now: datetime
) -> ConfirmResult:
    claim = await load_claim(tx, claim_id)
    allowed = _DECISIONS_BY_STATUS.get(claim.status, frozenset())
    if decision not in allowed:
        raise InvalidTransitionError("claim", claim_id, claim.status.value, decision, allowed)
    row = await tx.single(q.OPEN_CLARIFICATION_FOR_CLAIM, claim_id=claim_id)
    clarification = clarification_view(row) if row else None
    if decision == "accept_claim":
        overrule = clarification.fact_id if clarification else None
        result = await settle_claim(tx, claim, verifier, now, promote=True, overrule=overrule)
        if result.outcome in (PromotionOutcome.NOT_VALIDATED, PromotionOutcome.GATE_REJECTED):
            # The gates still refuse it: the clarification stays open for another answer.
            return ConfirmResult(claim=result, resolved_clarification_id=None)
        # Otherwise the answered question is closed, even when the claim was not promoted: the
        # fact it asked about was replaced meanwhile, so the claim was weighed against the current
        # one and either lost (rejected) or tied (a new question in `result.clarification`).
    else:
        await tx.run(q.SET_CLAIM_STATE, id=claim_id, fields={"status": ClaimStatus.REJECTED.value})
        result = await settle_claim(tx, claim.with_status(ClaimStatus.REJECTED), verifier, now, promote=False)
    if clarification is not None:
        await tx.run(q.RESOLVE_CLARIFICATION, id=clarification.id, resolution=decision, now=now)
    return ConfirmResult(claim=result, resolved_clarification_id=clarification.id if clarification else None)


async def confirm(
    graph: ProfileGraph,
    claim_id: str,
    decision: ConfirmDecision,
    verifier: ClaimVerifier = DEFAULT_VERIFIER,
    now: datetime | None = None,
    vectors: VectorKeeper | None = None,
) -> ConfirmResult:
    """Settle a claim as the person decided; with `vectors`, a fact it becomes gets its vector
    (copied from the claim when it has one, else written after the commit)."""
    result = await graph.write(_confirm_in, claim_id, decision, verifier, now or utcnow())
    if vectors is not None:
        vectors.keep(graph, claim_nodes(result.claim))
    return result
