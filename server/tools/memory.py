"""Memory tools: remember, recall_memory, reflect_memories, confirm_memory, retract_memory,
forget_memory."""

from __future__ import annotations

from typing import Annotated, Any

from mcp_types import ToolAnnotations
from pydantic import Field

from graph.dreams import memory_writes
from graph.forgetting.cascade import MAX_IDS, MAX_REASON_CHARS, forget
from graph.forgetting.models import ForgetResult
from graph.memory import pipeline
from graph.memory.models import (
    MAX_CONTENT_CHARS,
    Authority,
    ClaimInput,
    ConfirmResult,
    ReflectionResult,
    RememberResult,
    RetractResult,
    SharedKind,
    UtcDatetime,
)
from graph.memory.reflect import MAX_REFLECT_LIMIT, reflect
from graph.recall.models import RecallResult
from graph.recall.request import MAX_QUERY_CHARS, MAX_RECALL_LIMIT, RecallRequest
from graph.recall.search import recall
from server.context import Ctx, app_of, delivery_of
from server.errors import mapped_errors
from server.models import claim_verifier
from server.tools.shelf import ToolShelf


@mapped_errors
async def remember(
    ctx: Ctx,
    content: Annotated[
        str, Field(description=f"What the person said or the evidence, up to {MAX_CONTENT_CHARS} chars")
    ],
    source: Annotated[str | None, Field(description="Where it came from, e.g. 'chat 2026-11-20'")] = None,
    authority: Annotated[
        Authority, Field(description="primary: the person's own words; secondary: a document; other: hearsay")
    ] = "primary",
    shared: Annotated[
        SharedKind | None,
        Field(description="What they shared, if not their own words"),
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Field(max_length=200, description="A retry's key; other content under a used key is refused"),
    ] = None,
    labels: Annotated[list[str] | None, Field(description="Up to 20 tags of up to 64 chars")] = None,
    metadata: Annotated[dict[str, Any] | None, Field(description="Small JSON object kept with it")] = None,
    claims: Annotated[
        list[ClaimInput] | None, Field(description="Statements you extracted from the content")
    ] = None,
    auto_promote: Annotated[bool, Field(description="Promote claims that pass the gates to facts")] = True,
    occurred_at: Annotated[
        UtcDatetime | None,
        Field(description="When the person said or did it, if not now (imports keep dates); no offset = UTC"),
    ] = None,
) -> RememberResult:
    """Store evidence about the person and the claims you extracted from it.

    The fragment is deduplicated (idempotency key, then content). Each claim is verified against
    its supporting fragments and, when it passes its predicate's gates, becomes a fact. A claim
    that conflicts with an equally strong current fact yields a clarification: ask the person and
    answer with confirm_memory.

    A claim passes when the content says it plainly of its subject: put in its evidence the
    words that say it ("I work at Acme"). A wish or plan is has_goal or modality plan; what
    ended needs valid_to, what starts later valid_from; a question, hearsay or a remark taken
    back is no claim. verification_reason says what was missing.
    """
    app = app_of(ctx)
    graph = await app.graph_for(write=True)
    request = pipeline.RememberRequest(
        content=content,
        source=source,
        authority=authority,
        shared=shared,
        idempotency_key=idempotency_key,
        labels=labels or [],
        metadata=metadata or {},
        claims=claims or [],
        auto_promote=auto_promote,
        occurred_at=occurred_at,
    )
    # Before the transaction opens: checking the claims may ask the model endpoint.
    verifier = await claim_verifier(app.endpoint, content, request.claims)
    return await memory_writes.remember(graph, request, verifier, app.vectors)


@mapped_errors
async def recall_memory(
    ctx: Ctx,
    query: Annotated[str, Field(description=f"A few words about the topic, up to {MAX_QUERY_CHARS} chars")],
    limit: Annotated[int, Field(ge=1, le=MAX_RECALL_LIMIT)] = 10,
    valid_at: Annotated[UtcDatetime | None, Field(description="Only facts/claims valid at this time")] = None,
    known_at: Annotated[UtcDatetime | None, Field(description="What memory held at this time")] = None,
    include_evidence: Annotated[bool, Field(description="Attach supporting fragments")] = False,
) -> RecallResult:
    """Find what is remembered about a topic: facts, validated claims and fragments, best first.

    Name days as dates ("3 May 2025", not "last week"): what was said then is preferred.

    `related_dreams` lists hypotheses touching the same memories or words. They are not facts:
    ask the person about them and record the answer with resolve_dream_feedback.
    """
    app = app_of(ctx)
    graph = await app.graph_for(write=False)
    request = RecallRequest(
        query=query, limit=limit, valid_at=valid_at, known_at=known_at, include_evidence=include_evidence
    )
    await app.recall_planned()
    result = await recall(graph, request, vectors=app.vectors)
    if app.signals is not None:
        # Queued only: written after the answer, by the signals' own task (graph/recall/signals.py);
        # a balancer's retry of this very request counts once.
        app.signals.note(graph, result, delivery_of(ctx))
    return result


@mapped_errors
async def reflect_memories(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=MAX_REFLECT_LIMIT)] = 20,
    stale_after_days: Annotated[
        int | None, Field(ge=1, description="Also flag facts older than this")
    ] = None,
) -> ReflectionResult:
    """Memory health: stale facts, candidate and disputed claims, open clarifications, with exact counts."""
    graph = await app_of(ctx).graph_for(write=False)
    return await reflect(graph, limit=limit, stale_after_days=stale_after_days)


@mapped_errors
async def confirm_memory(
    ctx: Ctx,
    claim_id: Annotated[str, Field(min_length=1, max_length=64)],
    decision: pipeline.ConfirmDecision,
) -> ConfirmResult:
    """Record the person's answer to a clarification (or their verdict on a claim).

    accept_claim re-checks the gates and, when they pass, makes the claim the current fact
    (the old one is superseded, not deleted); keep_existing and reject_claim reject the claim.
    """
    graph = await app_of(ctx).graph_for(write=True)
    return await memory_writes.confirm(graph, claim_id, decision, app_of(ctx).vectors)


@mapped_errors
async def retract_memory(
    ctx: Ctx,
    id: Annotated[str, Field(min_length=1, max_length=64, description="A fragment or fact id")],
    reason: Annotated[str, Field(min_length=1, max_length=1024)],
) -> RetractResult:
    """Withdraw a fragment or fact as wrong; its words are kept, marked retracted. A retracted
    fact's slot is settled again: the fact it replaced returns, open questions about it close."""
    graph = await app_of(ctx).graph_for(write=True)
    return await memory_writes.retract(graph, id, reason, app_of(ctx).vectors)


@mapped_errors
async def forget_memory(
    ctx: Ctx,
    ids: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=64)]],
        Field(min_length=1, max_length=MAX_IDS, description="Fragment, claim or fact ids to erase"),
    ],
    reason: Annotated[
        str | None,
        Field(max_length=MAX_REASON_CHARS, description="Why, in a few words; never the words forgotten"),
    ] = None,
) -> ForgetResult:
    """Erase what the person asks you to forget. Unlike retract_memory nothing of the words stays:
    each memory becomes a tombstone (id, time, reason); claims and facts resting only on it go
    too, and dreams citing it lose their texts."""
    app = app_of(ctx)
    graph = await app.graph_for(write=True)
    return await forget(graph, ids, reason, embedder=app.embedder)


def register(server: ToolShelf) -> None:
    server.add_tool(
        remember,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    server.add_tool(recall_memory, annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    server.add_tool(reflect_memories, annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    server.add_tool(
        confirm_memory,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
    server.add_tool(
        retract_memory,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True),
    )
    server.add_tool(
        forget_memory,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True),
    )
