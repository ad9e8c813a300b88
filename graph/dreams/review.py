"""Reading dreams and recording the person's feedback on them."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import datetime
from typing import Any

from graph.access import ProfileGraph, ProfileTx
from graph.dreams import queries as q
from graph.dreams.config import DreamingConfig, effective_config
from graph.dreams.lifecycle import next_status
from graph.dreams.models import (
    MAX_FEEDBACK_CHARS,
    Dream,
    DreamPage,
    DreamRun,
    DreamSource,
    DreamStatus,
    DreamSummary,
    FeedbackDecision,
    FeedbackEntry,
    FeedbackResult,
    PhaseReport,
    PromotionReport,
)
from graph.errors import InvalidInputError, NotFoundError
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.memory.models import ClaimInput, Frozen
from graph.memory.pipeline import RememberRequest, remember_in, utcnow

MAX_LIST_LIMIT = 100


class DreamingOverview(Frozen):
    config: DreamingConfig
    latest_run: DreamRun | None
    counts: dict[str, int]


def _encode_cursor(created_at: datetime, dream_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at.isoformat(), dream_id]).encode()).decode()


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        created_at, dream_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return datetime.fromisoformat(created_at), str(dream_id)
    except (ValueError, TypeError, binascii.Error):
        raise InvalidInputError(
            "cursor is not one this server issued; pass next_cursor from list_dreams as is."
        ) from None


async def list_dreams(
    graph: ProfileGraph, status: DreamStatus | None = None, limit: int = 20, cursor: str | None = None
) -> DreamPage:
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_LIST_LIMIT}.")
    before, before_id = _decode_cursor(cursor) if cursor else (None, None)
    rows = await graph.read(
        lambda tx: tx.run(
            q.LIST_DREAMS,
            status=status.value if status else None,
            before=before,
            before_id=before_id,
            limit=limit + 1,
        )
    )
    dreams = [DreamSummary(**row["dream"]) for row in rows[:limit]]
    more = len(rows) > limit
    return DreamPage(
        dreams=dreams, next_cursor=_encode_cursor(dreams[-1].created_at, dreams[-1].id) if more else None
    )


async def _read_dream(tx: ProfileTx, dream_id: str) -> Dream:
    row = await tx.single(q.GET_DREAM, id=dream_id)
    if row is None:
        raise NotFoundError("dream", dream_id)
    stored = row["dream"]
    fields = {
        name: stored.get(name) for name in Dream.model_fields if name not in ("id", "sources", "feedback")
    }
    return Dream(
        id=stored["id"],
        **fields,
        sources=[DreamSource(**source) for source in row["sources"]],
        feedback=[FeedbackEntry(**entry) for entry in row["feedback"]],
    )


async def get_dream(graph: ProfileGraph, dream_id: str) -> Dream:
    return await graph.read(lambda tx: _read_dream(tx, dream_id))


def _run_from_record(record: dict[str, Any]) -> DreamRun:
    return DreamRun(
        run_id=record["id"],
        trigger=record["trigger"],
        run_date=record["run_date"],
        status=record["status"],
        started_at=record["started_at"],
        completed_at=record.get("completed_at"),
        late=record.get("late") or False,
        phases=[PhaseReport(**phase) for phase in json.loads(record.get("phases") or "[]")],
        error=record.get("error"),
    )


async def overview(graph: ProfileGraph, defaults: DreamingConfig) -> DreamingOverview:
    async def work(tx: ProfileTx) -> DreamingOverview:
        config = await effective_config(tx, defaults)
        latest = await tx.single(q.LATEST_RUN)
        counts = {row["status"]: int(row["count"]) for row in await tx.run(q.DREAM_COUNTS)}
        return DreamingOverview(
            config=config, latest_run=_run_from_record(latest["run"]) if latest else None, counts=counts
        )

    return await graph.read(work)


async def _promote(
    tx: ProfileTx, dream: dict[str, Any], feedback: str | None, now: datetime
) -> PromotionReport:
    """The dream becomes evidence that must pass the ordinary gates, never a fact by itself."""
    evidence_row = await tx.single(q.DREAM_EVIDENCE_FRAGMENTS, id=dream["id"])
    evidence_ids = list(evidence_row["ids"]) if evidence_row else []
    claim = ClaimInput(
        subject=dream["proposition_subject"],
        predicate="connected_to",
        object=dream["proposition_object"],
        extract_conf=dream["confidence"],
        resolution_conf=dream["likelihood"],
        modality="hypothetical",
        supported_by=evidence_ids,
    )
    note = f" The person added: {feedback}" if feedback else ""
    request = RememberRequest(
        content=f"Dream {dream['id']} was promoted for review: {dream['hypothesis']}{note}",
        source=f"dream:{dream['id']}",
        authority="other",
        idempotency_key=f"dream-feedback:{dream['id']}",
        labels=[DREAM_FEEDBACK_LABEL],
        claims=[claim],
    )
    result = await remember_in(tx, request, now)
    await tx.run(q.LINK_FEEDBACK_FRAGMENT, id=dream["id"], fragment_id=result.fragment.id)
    return PromotionReport(
        fragment_id=result.fragment.id,
        fragment_created=result.fragment.created,
        claim=result.claims[0] if result.claims else None,
    )


async def resolve_feedback(
    graph: ProfileGraph,
    dream_id: str,
    decision: FeedbackDecision,
    feedback: str | None = None,
    now: datetime | None = None,
) -> FeedbackResult:
    if feedback is not None and len(feedback) > MAX_FEEDBACK_CHARS:
        raise InvalidInputError(
            f"feedback has {len(feedback)} characters; the limit is {MAX_FEEDBACK_CHARS}."
        )
    moment = now or utcnow()

    async def work(tx: ProfileTx) -> FeedbackResult:
        row = await tx.single(q.LOCK_DREAM, id=dream_id, now=moment)
        if row is None:
            raise NotFoundError("dream", dream_id)
        dream = row["dream"]
        target = next_status(dream_id, DreamStatus(dream["status"]), decision)
        promotion = await _promote(tx, dream, feedback, moment) if target is DreamStatus.PROMOTED else None
        await tx.run(
            q.APPEND_FEEDBACK,
            id=dream_id,
            feedback_id=str(uuid.uuid4()),
            now=moment,
            decision=decision.value,
            feedback=feedback,
            to_status=target.value,
        )
        return FeedbackResult(dream=await _read_dream(tx, dream_id), promotion=promotion)

    return await graph.write(work)
