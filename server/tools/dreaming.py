"""Dreaming tools: status, manual cycles, listing, reading and reviewing dreams, past runs."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Annotated

from mcp_types import InputRequiredResult, ToolAnnotations
from pydantic import BaseModel, Field

from graph.clock import utcnow
from graph.dreams import review
from graph.dreams.config import MAX_OUTPUTS_LIMIT, DreamingConfig, configure_dreaming
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.models import (
    MAX_FEEDBACK_CHARS,
    Dream,
    DreamKind,
    DreamPage,
    DreamRun,
    DreamStatus,
    FeedbackDecision,
    FeedbackResult,
    RunPage,
)
from graph.dreams.runs import MAX_RUNS_LIMIT, latest_run_writers, recent_runs
from graph.dreams.watch import NextNight
from graph.embedding.status import SemanticStatus, semantic_status
from graph.memory.models import MAX_CLAIMS, Authority, ClaimInput
from scheduler.timing import next_run
from server.context import Ctx, app_of
from server.errors import mapped_errors
from server.models import unattended_generator
from server.sampling import dream_generator, offers_sampling
from server.tools.shelf import ToolShelf


class DreamingRoutes(BaseModel):
    """Who can write this profile's dreams, and who wrote the latest cycle's."""

    host_tools: bool = Field(description="The host works through these tools (always true)")
    sampling: bool = Field(description="This client offers its model over MCP sampling, for manual cycles")
    endpoint: str | None = Field(
        description="The configured endpoint's model (REVERIE_MODEL_URL), used when sampling is not; "
        "null when none is configured"
    )
    deterministic: bool = Field(description="The built-in writer, always there behind the models")
    last_cycle_writers: dict[str, int] = Field(
        description="Dreams the latest cycle wrote, per generator (e.g. link-v2, endpoint:<model>)"
    )


class DreamingStatusResult(BaseModel):
    config: DreamingConfig
    latest_run: DreamRun | None
    next_run_local: datetime | None = Field(description="In the dreaming time zone; null when off")
    next_run_utc: datetime | None
    next_night: NextNight
    counts: dict[str, int] = Field(description="Exact number of dreams per status")
    semantic: SemanticStatus = Field(description="The embedding model recall and dreams use, and its backlog")
    routes: DreamingRoutes = Field(description="Which models can write dreams; who wrote the latest")


@mapped_errors
async def dreaming_status(ctx: Ctx) -> DreamingStatusResult:
    """Dreaming settings in effect for this profile (and where each came from), the latest run,
    the next scheduled run and whether it will run, and how many dreams are in each status."""
    app = app_of(ctx)
    graph = await app.graph_for(write=False)
    state = await review.overview(graph, app.settings.dreaming_defaults(), app.scheduler_kind)
    next_local = next_run(utcnow(), state.config)
    return DreamingStatusResult(
        config=state.config,
        latest_run=state.latest_run,
        next_run_local=next_local,
        next_run_utc=next_local.astimezone(UTC) if next_local else None,
        next_night=state.next_night,
        counts=state.counts,
        semantic=await semantic_status(graph, app.embedder, app.healer),
        routes=DreamingRoutes(
            host_tools=True,
            sampling=offers_sampling(ctx),
            endpoint=app.endpoint.name if app.endpoint is not None else None,
            deterministic=True,
            last_cycle_writers=await latest_run_writers(graph),
        ),
    )


@mapped_errors
async def run_dreaming_cycle(
    ctx: Ctx,
    reflect_enabled: Annotated[
        bool | None, Field(description="Override the reflect phase for this run")
    ] = None,
    reevaluate_enabled: Annotated[bool | None, Field(description="Override re_evaluate for this run")] = None,
    dream_enabled: Annotated[bool | None, Field(description="Override the dream phase for this run")] = None,
    max_outputs: Annotated[
        int | None, Field(ge=1, le=MAX_OUTPUTS_LIMIT, description="New dreams at most")
    ] = None,
    dry_run: Annotated[bool, Field(description="Compute everything, write nothing")] = False,
) -> DreamRun | InputRequiredResult:
    """Run a dreaming cycle now (even when nightly dreaming is off): reflect on memory health,
    re-evaluate earlier dreams, and propose new hypotheses linking existing memories.

    Dreams are hypotheses for the person to review, never facts. Worded by this client's model
    when it offers sampling, else by the server's model endpoint, if any.
    """
    app = app_of(ctx)
    graph = await app.graph_for(write=not dry_run)
    request = CycleRequest(
        trigger="manual",
        reflect_enabled=reflect_enabled,
        reevaluate_enabled=reevaluate_enabled,
        dream_enabled=dream_enabled,
        max_outputs=max_outputs,
        dry_run=dry_run,
    )
    settings = app.settings
    cycle = partial(
        run_cycle, graph, settings.dreaming_defaults(), vectors=app.vectors, lease=settings.cycle_lease()
    )
    fallback = unattended_generator(app.settings, app.endpoint)
    generator = await dream_generator(ctx, app.settings.host_model_limits(), request, cycle, fallback)
    if isinstance(generator, InputRequiredResult):
        return generator
    return await cycle(request, generator=generator, progress=ctx.report_progress)


@mapped_errors
async def list_dreams(
    ctx: Ctx,
    status: Annotated[
        DreamStatus | None,
        Field(description="Only dreams in this status (confirmed: the person said yes, none is memory yet)"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=review.MAX_LIST_LIMIT)] = 20,
    cursor: Annotated[str | None, Field(description="next_cursor from the previous page")] = None,
    kind: Annotated[DreamKind | None, Field(description="Only dreams of this kind")] = None,
) -> DreamPage:
    """Dreams of this profile, newest first, one page at a time."""
    graph = await app_of(ctx).graph_for(write=False)
    return await review.list_dreams(
        graph, (status,) if status else (), limit, cursor, (kind,) if kind else ()
    )


@mapped_errors
async def list_dream_runs(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=MAX_RUNS_LIMIT)] = 14,
    cursor: Annotated[str | None, Field(description="next_cursor from the previous page")] = None,
) -> RunPage:
    """Past dreaming cycles, newest first: trigger, local date, status, error, each phase's
    counts, duration, and what became of the dreams each proposed."""
    graph = await app_of(ctx).graph_for(write=False)
    return await recent_runs(graph, limit, cursor)


@mapped_errors
async def get_dream(
    ctx: Ctx,
    dream_id: Annotated[str, Field(min_length=1, max_length=64)],
    show_retracted: Annotated[
        bool, Field(description="Include the words of retracted sources; only when the person asks")
    ] = False,
) -> Dream:
    """One dream in full: its texts, scores, status, sources (whether each is still active; a
    retracted one's words left out unless show_retracted), every piece of feedback and, once the
    person confirmed it, what became memory and what still waits and why (confirmation)."""
    graph = await app_of(ctx).graph_for(write=False)
    return await review.get_dream(graph, dream_id, show_retracted)


@mapped_errors
async def resolve_dream_feedback(
    ctx: Ctx,
    dream_id: Annotated[str, Field(min_length=1, max_length=64)],
    decision: FeedbackDecision,
    feedback: Annotated[
        str | None,
        Field(
            max_length=MAX_FEEDBACK_CHARS, description="The person's words; required for promote_candidate"
        ),
    ] = None,
    claims: Annotated[
        list[ClaimInput] | None,
        Field(
            max_length=MAX_CLAIMS,
            description="promote_candidate only: what the person confirmed, as claims read from feedback",
        ),
    ] = None,
    authority: Annotated[
        Authority, Field(description="Whose words feedback holds: primary when they are the person's own")
    ] = "primary",
) -> FeedbackResult:
    """Record the person's verdict on a dream. reject is final: its sources are never proposed
    again. promote_candidate stores the person's words (feedback) as evidence and passes the
    claims you read in them (else the dream's statement) through remember's verification and
    gates; the dream's text is never evidence. The dream becomes promoted only when a claim became
    a fact; otherwise it is confirmed (the person said yes, nothing is memory yet: tell them so) and
    may be promoted again, rejected or marked stale. On a duplicate it retracts one of the two
    (refused if they differ in meaning); undo_merge puts it back until keep_merged."""
    app = app_of(ctx)
    graph = await app.graph_for(write=True)
    return await review.resolve_feedback(
        graph, dream_id, decision, feedback, claims=claims or [], authority=authority, vectors=app.vectors
    )


@mapped_errors
async def configure_dreaming_tool(
    ctx: Ctx,
    enabled: Annotated[bool | None, Field(description="Nightly dreaming for this profile")] = None,
    start_time_local: Annotated[str | None, Field(description="HH:MM in the profile's time zone")] = None,
    timezone: Annotated[str | None, Field(description="IANA zone, e.g. Europe/Lisbon")] = None,
    reflect_enabled: bool | None = None,
    reevaluate_enabled: bool | None = None,
    dream_enabled: bool | None = None,
    max_outputs: Annotated[int | None, Field(ge=1, le=MAX_OUTPUTS_LIMIT)] = None,
    reset: Annotated[bool, Field(description="Drop every override of this profile first")] = False,
) -> DreamingConfig:
    """Set this profile's own dreaming schedule and phases (the caller's profile only).
    Omitted values keep their current setting; the result shows each value's source."""
    app = app_of(ctx)
    graph = await app.graph_for(write=True)
    given = {
        "enabled": enabled,
        "start_time_local": start_time_local,
        "timezone": timezone,
        "reflect_enabled": reflect_enabled,
        "reevaluate_enabled": reevaluate_enabled,
        "dream_enabled": dream_enabled,
        "max_outputs": max_outputs,
    }
    changes = {name: value for name, value in given.items() if value is not None or reset}
    return await configure_dreaming(graph, app.settings.dreaming_defaults(), changes)


def register(server: ToolShelf) -> None:
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True)
    server.add_tool(dreaming_status, annotations=read_only)
    server.add_tool(
        run_dreaming_cycle,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
    server.add_tool(
        configure_dreaming_tool,
        name="configure_dreaming",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    server.add_tool(list_dreams, annotations=read_only)
    server.add_tool(get_dream, annotations=read_only)
    server.add_tool(list_dream_runs, annotations=read_only)
    server.add_tool(
        resolve_dream_feedback,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
