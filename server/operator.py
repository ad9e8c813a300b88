"""`reverie dream ...`: the dreaming tools for operators, on the command line.

Each command opens the graph like the server does, calls the same `graph/` function the MCP
tool calls, and prints readable text, or the tool's JSON with --json.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, get_args

import click
from pydantic import BaseModel, ValidationError

from graph.access import ProfileGraph
from graph.dreams import review
from graph.dreams.config import MAX_OUTPUTS_LIMIT, configure_dreaming
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.lease import release_lock
from graph.dreams.models import (
    Dream,
    DreamPage,
    DreamRun,
    DreamStatus,
    FeedbackDecision,
    FeedbackResult,
    LockRelease,
    RunPage,
    RunSummary,
)
from graph.dreams.runs import MAX_RUNS_LIMIT, recent_runs
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from graph.errors import InvalidInputError, validation_problems
from graph.memory.models import Authority, ClaimInput
from server.cli_support import PROFILE, echo_json, json_option, synchronous
from server.models import unattended_generator
from server.settings import ReverieSettings, load_settings
from server.stores import endpoint_of, opened_store

Action = Callable[..., Awaitable[BaseModel]]


@click.group()
def dream() -> None:
    """Run and review the dreams of one profile."""


def _operating(action: Action) -> Callable[..., None]:
    """The command body around a dreaming action: --profile and --json, the profile's graph
    opened like the server opens it, and the result printed as text or as the tool's JSON."""

    @click.option("--profile", type=PROFILE, required=True, help="The profile to work on.")
    @json_option
    @functools.wraps(action)
    def command(profile: str, as_json: bool, **options: Any) -> None:
        result = _execute(action, profile, options)
        if as_json:
            echo_json(result.model_dump(mode="json"))
        else:
            click.echo(describe(result))

    return command


@synchronous
async def _execute(action: Action, profile: str, options: dict[str, Any]) -> BaseModel:
    settings = load_settings()
    async with opened_store(settings) as store:
        return await action(store.profile(profile), settings, **options)


def _limit(most: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--limit", type=click.IntRange(1, most), default=20, show_default=True, help="Page size."
    )


cursor_option = click.option("--cursor", default=None, help="The next page, as the previous one printed.")
dream_id_argument = click.argument("dream_id", metavar="ID")


@dream.command()
@click.option(
    "--max-outputs", type=click.IntRange(1, MAX_OUTPUTS_LIMIT), default=None, help="New dreams at most."
)
@click.option("--dry-run", is_flag=True, help="Compute, write nothing.")
@_operating
async def run(
    graph: ProfileGraph, settings: ReverieSettings, max_outputs: int | None, dry_run: bool
) -> BaseModel:
    """Run one dreaming cycle now."""
    request = CycleRequest(max_outputs=max_outputs, dry_run=dry_run)
    async with keeping(load_embedder(settings.reverie_home, settings.reverie_embedding_model)) as vectors:
        return await cycle_now(graph, settings, request, vectors)


async def cycle_now(
    graph: ProfileGraph, settings: ReverieSettings, request: CycleRequest, vectors: VectorKeeper | None
) -> DreamRun:
    """One cycle as the operator starts it: the configured writer, the profile's settings."""
    async with endpoint_of(settings) as endpoint:
        generator = unattended_generator(settings, endpoint)
        defaults = settings.dreaming_defaults()
        return await run_cycle(
            graph, defaults, request, generator, vectors=vectors, lease=settings.cycle_lease()
        )


@dream.command()
@_operating
async def status(graph: ProfileGraph, settings: ReverieSettings) -> BaseModel:
    """The profile's dreaming settings, dream counts and latest run."""
    return await review.overview(graph, settings.dreaming_defaults())


@dream.command("list")
@click.option(
    "--status", type=click.Choice([status.value for status in DreamStatus]), help="Only this status."
)
@_limit(review.MAX_LIST_LIMIT)
@cursor_option
@_operating
async def list_dreams(
    graph: ProfileGraph, settings: ReverieSettings, status: str | None, limit: int, cursor: str | None
) -> BaseModel:
    """List dreams, newest first."""
    statuses = (DreamStatus(status),) if status else ()
    return await review.list_dreams(graph, statuses, limit, cursor)


@dream.command()
@dream_id_argument
@_operating
async def show(graph: ProfileGraph, settings: ReverieSettings, dream_id: str) -> BaseModel:
    """Show one dream with its sources and feedback."""
    return await review.get_dream(graph, dream_id)


def _claims(texts: tuple[str, ...]) -> list[ClaimInput]:
    claims = []
    for text in texts:
        try:
            claims.append(ClaimInput.model_validate_json(text))
        except ValidationError as error:
            raise InvalidInputError(
                f"--claim {text!r} is not a claim ({validation_problems(error)}). "
                "Give JSON in remember's claim shape, e.g. "
                '\'{"subject": "user", "predicate": "likes", "object": "jazz", "extract_conf": 0.9, '
                '"resolution_conf": 0.9}\''
            ) from None
    return claims


@dream.command()
@dream_id_argument
@click.option("--decision", type=click.Choice([d.value for d in FeedbackDecision]), required=True)
@click.option("--feedback", default=None, help="The person's words.")
@click.option(
    "--claim",
    "claim_texts",
    multiple=True,
    metavar="JSON",
    help="promote_candidate: a claim read from the person's words, as JSON in remember's claim shape "
    "(repeatable).",
)
@click.option(
    "--authority",
    type=click.Choice(list(get_args(Authority))),
    default="primary",
    show_default=True,
    help="promote_candidate: whose words --feedback holds (primary: the person's own).",
)
@_operating
async def resolve(
    graph: ProfileGraph,
    settings: ReverieSettings,
    dream_id: str,
    decision: str,
    feedback: str | None,
    claim_texts: tuple[str, ...],
    authority: Authority,
) -> BaseModel:
    """Record the person's decision on a dream."""
    claims = _claims(claim_texts)
    async with keeping(load_embedder(settings.reverie_home, settings.reverie_embedding_model)) as vectors:
        return await review.resolve_feedback(
            graph, dream_id, FeedbackDecision(decision), feedback, claims, authority, vectors=vectors
        )


@dream.command()
@click.option(
    "--max-outputs", type=click.IntRange(1, MAX_OUTPUTS_LIMIT), default=None, help="New dreams per cycle."
)
@click.option("--start-time-local", default=None, metavar="HH:MM", help="Local start time.")
@click.option("--timezone", default=None, help="IANA zone, e.g. America/New_York.")
@click.option("--enabled/--no-enabled", default=None, help="Nightly cycles on or off.")
@click.option("--reflect-enabled/--no-reflect-enabled", default=None, help="The reflect phase.")
@click.option("--reevaluate-enabled/--no-reevaluate-enabled", default=None, help="The re-evaluate phase.")
@click.option("--dream-enabled/--no-dream-enabled", default=None, help="The dream phase.")
@_operating
async def configure(graph: ProfileGraph, settings: ReverieSettings, **settings_given: Any) -> BaseModel:
    """Change the profile's dreaming settings.

    Only the options given change; the rest stay as they are."""
    changes = {name: value for name, value in settings_given.items() if value is not None}
    return await configure_dreaming(graph, settings.dreaming_defaults(), changes)


@dream.command()
@_limit(MAX_RUNS_LIMIT)
@cursor_option
@_operating
async def runs(graph: ProfileGraph, settings: ReverieSettings, limit: int, cursor: str | None) -> BaseModel:
    """List past cycles, newest first."""
    return await recent_runs(graph, limit, cursor)


@dream.command()
@_operating
async def unlock(graph: ProfileGraph, settings: ReverieSettings) -> BaseModel:
    """Free a profile a dead cycle holds.

    Its running runs become interrupted; a cycle still alive somewhere records its own end."""
    return await release_lock(graph)


def _describe_dream(dream: Dream) -> str:
    lines = [
        f"{dream.id}  [{dream.status}]  likelihood {dream.likelihood:.2f}  confidence {dream.confidence:.2f}",
        f"  hypothesis: {dream.hypothesis}",
        f"  what if:    {dream.what_if}",
        f"  outcome:    {dream.possible_outcome}",
        f"  rationale:  {dream.rationale}",
    ]
    lines += [
        f"  source {s.kind} {s.id} ({'active' if s.active else 'inactive'}): {s.text}" for s in dream.sources
    ]
    lines += [f"  feedback {f.at:%Y-%m-%d %H:%M} {f.decision}: {f.feedback or ''}" for f in dream.feedback]
    if dream.confirmation is not None:
        lines.append(f"  confirmation: {dream.confirmation.summary}")
        if dream.confirmation.next_steps:
            lines.append(f"  next: {dream.confirmation.next_steps}")
        lines += [
            f"  confirmed claim “{c.statement}”: "
            + (f"fact {c.fact_id}" if c.fact_id else f"not memory yet: {c.waiting}")
            for c in dream.confirmation.claims
        ]
    return "\n".join(lines)


def _describe_feedback(result: FeedbackResult) -> str:
    lines = [_describe_dream(result.dream)]
    if result.promotion is not None:
        lines.append(f"  promotion: {result.promotion.outcome}: {result.promotion.message}")
    if result.merge is not None:
        lines.append(f"  merge: {result.merge.state}: {result.merge.message}")
    return "\n".join(lines)


def _describe_run(run: DreamRun) -> str:
    lines = [f"run {run.run_id or '(dry run)'} {run.status} on {run.run_date} ({run.trigger})"]
    for phase in run.phases:
        counts = ", ".join(f"{name} {value}" for name, value in phase.counts.items())
        lines.append(
            f"  {phase.phase}: {'ran' if phase.ran else 'off'} {counts} {phase.error or ''}".rstrip()
        )
    lines += [f"  would create: {draft.hypothesis}" for draft in run.would_create]
    if run.error:
        lines.append(f"  error: {run.error}")
    return "\n".join(lines)


def _describe_summary(summary: RunSummary) -> str:
    took = f", {summary.duration_s:.1f} s" if summary.duration_s is not None else ""
    became = ", ".join(f"{status} {count}" for status, count in summary.dreams.items()) or "no dreams"
    started = f"{summary.run.started_at:%Y-%m-%d %H:%M} UTC"
    return f"{_describe_run(summary.run)}\n  started {started}{took}; dreams: {became}"


def describe(result: BaseModel) -> str:
    if isinstance(result, Dream):
        return _describe_dream(result)
    if isinstance(result, FeedbackResult):
        return _describe_feedback(result)
    if isinstance(result, DreamRun):
        return _describe_run(result)
    if isinstance(result, DreamPage):
        rows = [f"{d.id}  [{d.status}]  {d.created_at:%Y-%m-%d %H:%M}  {d.hypothesis}" for d in result.dreams]
        return "\n".join(rows + ([f"next page: --cursor {result.next_cursor}"] if result.next_cursor else []))
    if isinstance(result, RunPage):
        rows = [_describe_summary(summary) for summary in result.runs] or ["no runs yet"]
        return "\n".join(rows + ([f"next page: --cursor {result.next_cursor}"] if result.next_cursor else []))
    if isinstance(result, LockRelease):
        released = ", ".join(result.released_run_ids)
        return f"released: {released} (now interrupted)" if released else "no cycle held this profile"
    if isinstance(result, review.DreamingOverview):
        counts = ", ".join(f"{status} {count}" for status, count in result.counts.items())
        latest = _describe_run(result.latest_run) if result.latest_run else "no run yet"
        night = result.next_night
        tonight = f"{'will run' if night.will_run else 'will not run'}: {night.why}"
        config = result.config.model_dump_json()
        return f"config: {config}\ndreams: {counts}\nlatest: {latest}\nnext night: {tonight}"
    return result.model_dump_json(indent=2)
