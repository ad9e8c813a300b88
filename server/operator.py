"""`reverie dream ...`: the dreaming tools for operators, on the command line.

Each command opens the graph like the server does, calls the same `graph/` function the MCP
tool calls, and prints readable text, or the tool's JSON with --json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable
from typing import Any, get_args

import anyio
from pydantic import BaseModel, ValidationError

from graph.access import ProfileGraph
from graph.dreams import review
from graph.dreams.config import DreamingConfig, configure_dreaming
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
from graph.dreams.runs import recent_runs
from graph.embedding.keeper import keeping
from graph.embedding.loader import load_embedder
from graph.errors import InvalidInputError, validation_problems
from graph.memory.models import Authority, ClaimInput
from server.app import endpoint_of, opened_store
from server.models import unattended_generator
from server.settings import ReverieSettings, load_settings

Action = Callable[[ProfileGraph, ReverieSettings, argparse.Namespace], Awaitable[BaseModel]]


async def _run(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    request = CycleRequest(max_outputs=args.max_outputs, dry_run=args.dry_run)
    async with (
        keeping(load_embedder(settings.reverie_home, settings.reverie_embedding_model)) as vectors,
        endpoint_of(settings) as endpoint,
    ):
        generator = unattended_generator(settings, endpoint)
        return await run_cycle(graph, settings.dreaming_defaults(), request, generator, vectors=vectors)


async def _status(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    return await review.overview(graph, settings.dreaming_defaults())


async def _list(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    statuses = (DreamStatus(args.status),) if args.status else ()
    return await review.list_dreams(graph, statuses, args.limit, args.cursor)


async def _show(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    return await review.get_dream(graph, args.dream_id)


def _claims(texts: list[str] | None) -> list[ClaimInput]:
    claims = []
    for text in texts or []:
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


async def _resolve(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    claims = _claims(args.claim)
    decision = FeedbackDecision(args.decision)
    async with keeping(load_embedder(settings.reverie_home, settings.reverie_embedding_model)) as vectors:
        return await review.resolve_feedback(
            graph, args.dream_id, decision, args.feedback, claims, args.authority, vectors=vectors
        )


async def _configure(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    changes = {name: getattr(args, name) for name in CONFIGURABLE if getattr(args, name) is not None}
    return await configure_dreaming(graph, settings.dreaming_defaults(), changes)


async def _runs(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    return await recent_runs(graph, args.limit, args.cursor)


async def _unlock(graph: ProfileGraph, settings: ReverieSettings, args: argparse.Namespace) -> BaseModel:
    return await release_lock(graph)


ACTIONS: dict[str, Action] = {
    "unlock": _unlock,
    "runs": _runs,
    "run": _run,
    "status": _status,
    "list": _list,
    "show": _show,
    "resolve": _resolve,
    "configure": _configure,
}
# Every per-profile dreaming setting; `sources` is computed, not set.
CONFIGURABLE = tuple(name for name in DreamingConfig.model_fields if name != "sources")


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
        return _describe_dream(result.dream)
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
        return f"config: {result.config.model_dump_json()}\ndreams: {counts}\nlatest: {latest}"
    return result.model_dump_json(indent=2)


async def _execute(args: argparse.Namespace) -> BaseModel:
    settings = load_settings()
    async with opened_store(settings) as store:
        return await ACTIONS[args.action](store.profile(args.profile), settings, args)


def cmd_dream(args: argparse.Namespace) -> None:
    if args.action in ("show", "resolve") and not args.dream_id:
        raise InvalidInputError(
            f"`reverie dream {args.action}` needs a dream id: reverie dream {args.action} ID"
        )
    if args.action == "resolve" and not args.decision:
        raise InvalidInputError(
            "`reverie dream resolve` needs --decision reinforce|stale|reject|promote_candidate"
        )
    result = anyio.run(_execute, args)
    payload: Any = result.model_dump(mode="json")
    print(json.dumps(payload, indent=2) if args.json else describe(result))


def add_dream_parser(commands: Any) -> None:
    dream = commands.add_parser("dream", help="run and review dreams of one profile")
    dream.add_argument("action", choices=sorted(ACTIONS))
    dream.add_argument("dream_id", nargs="?", help="for show and resolve")
    dream.add_argument("--profile", required=True)
    dream.add_argument("--json", action="store_true", help="print JSON instead of text")
    dream.add_argument(
        "--max-outputs", type=int, default=None, help="run/configure: new dreams at most (1-50)"
    )
    dream.add_argument("--dry-run", action="store_true", help="run: compute, write nothing")
    dream.add_argument("--status", choices=[status.value for status in DreamStatus], help="list: filter")
    dream.add_argument("--limit", type=int, default=20, help="list, runs: page size")
    dream.add_argument("--cursor", default=None, help="list, runs: next page")
    dream.add_argument(
        "--decision", choices=[decision.value for decision in FeedbackDecision], help="resolve"
    )
    dream.add_argument("--feedback", default=None, help="resolve: the person's words")
    dream.add_argument(
        "--claim",
        action="append",
        metavar="JSON",
        help="resolve promote_candidate: a claim read from the person's words, as JSON in "
        "remember's claim shape (repeatable)",
    )
    dream.add_argument(
        "--authority",
        choices=list(get_args(Authority)),
        default="primary",
        help="resolve promote_candidate: whose words --feedback holds (default: primary, the person's own)",
    )
    dream.add_argument("--start-time-local", default=None, help="configure: HH:MM local start time")
    dream.add_argument("--timezone", default=None, help="configure: IANA zone, e.g. America/New_York")
    for name in ("enabled", "reflect_enabled", "reevaluate_enabled", "dream_enabled"):
        flag = "--" + name.replace("_", "-")
        dream.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help="configure")
    dream.set_defaults(handler=cmd_dream)
