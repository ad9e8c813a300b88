"""`reverie import ...`: a person's history brought into one profile with its own dates
(docs/import.md).

- `chatgpt FILE` and `claude FILE`: an assistant's data export, the zip or its conversations.json;
- `jsonl FILE`: JSON Lines of {text, occurred_at, ...};
- `notes DIR`: a folder of Markdown notes.

Each reads and checks the whole file first (a wrong entry is refused by name and nothing is
written), says what it found, then stores what the profile does not hold yet with a progress bar.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Mapping
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import click

from graph.dreams.cycle import CycleRequest
from graph.embedding.keeper import keeping
from graph.embedding.loader import load_embedder
from graph.history.chatgpt import read_chatgpt
from graph.history.claude import read_claude
from graph.history.jsonl import read_jsonl
from graph.history.load import Pending, Written, pending, write_pieces
from graph.history.notes import read_notes
from graph.history.pieces import Plan, plan_import
from graph.history.records import Format, Parsed
from server.cli_support import PROFILE, synchronous
from server.operator import cycle_now, describe
from server.settings import load_settings
from server.stores import opened_store

Reason = TypeVar("Reason", bound=StrEnum)
_NAMES = {
    Format.CHATGPT: "ChatGPT export",
    Format.CLAUDE: "Claude export",
    Format.JSONL: "JSON Lines file",
    Format.NOTES: "notes folder",
}


@click.group("import")
def history() -> None:
    """Bring history in: chat exports, JSON Lines, Markdown notes."""


def _importing(read: Callable[..., Parsed]) -> Callable[..., None]:
    """The command around a parser: --profile, --dry-run and --dream, then the import itself."""

    @click.option("--profile", type=PROFILE, required=True, help="The profile to import into.")
    @click.option("--dry-run", is_flag=True, help="Say what would be imported; write nothing.")
    @click.option("--dream", is_flag=True, help="Run a dreaming cycle over the profile afterwards.")
    @functools.wraps(read)
    def command(profile: str, dry_run: bool, dream: bool, **arguments: Any) -> None:
        _import(plan_import(read(**arguments)), profile, dry_run, dream)

    return command


file_argument = click.argument("path", metavar="FILE", type=click.Path(path_type=Path))


@history.command()
@file_argument
@_importing
def chatgpt(path: Path) -> Parsed:
    """Import a ChatGPT data export (the zip, or the conversations.json in it)."""
    return read_chatgpt(path)


@history.command()
@file_argument
@_importing
def claude(path: Path) -> Parsed:
    """Import a Claude data export (the zip, or the conversations.json in it)."""
    return read_claude(path)


@history.command()
@file_argument
@_importing
def jsonl(path: Path) -> Parsed:
    """Import JSON Lines, one {"text": ..., "occurred_at": ...} a line."""
    return read_jsonl(path)


@history.command()
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--undated-date",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="The date (YYYY-MM-DD) for notes with none in their front matter or name.",
)
@_importing
def notes(folder: Path, undated_date: datetime | None) -> Parsed:
    """Import a folder of Markdown notes, dated by front matter or file name."""
    undated: date | None = undated_date.date() if undated_date else None
    return read_notes(folder, undated)


def _counts(counts: Mapping[Reason, int]) -> str:
    return "; ".join(f"{reason.value} {count:,}" for reason, count in sorted(counts.items()) if count)


def describe_plan(plan: Plan, todo: Pending) -> str:
    span = plan.span()
    dates = f", {span[0]:%Y-%m-%d} to {span[1]:%Y-%m-%d}" if span else ""
    held = (
        f"{plan.messages:,} notes"
        if plan.format is Format.NOTES
        else f"{plan.conversations:,} conversations, {plan.messages:,} messages of the person's"
    )
    lines = [
        f"{_NAMES[plan.format]}: {held}{dates}.",
        f"  Memories: {len(plan.pieces):,} ({plan.split:,} long texts split); already there "
        f"{todo.already:,} (of those forgotten since, not brought back: {todo.forgotten:,}); "
        f"to store {len(todo.todo):,}.",
    ]
    if plan.skipped:
        lines.append(f"  Left out: {_counts(plan.skipped)}.")
    if plan.marked:
        lines.append(f"  Kept with parts left out: {_counts(plan.marked)}.")
    return "\n".join(lines)


@synchronous
async def _import(plan: Plan, profile: str, dry_run: bool, dream: bool) -> None:
    settings = load_settings()
    async with opened_store(settings) as store:
        graph = store.profile(profile)
        todo = await pending(graph, plan)
        click.echo(describe_plan(plan, todo))
        if dry_run:
            click.echo("Dry run: nothing was written.")
            return
        embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
        async with keeping(embedder) as vectors:
            started = time.monotonic()
            with click.progressbar(
                length=len(todo.todo), label="Storing", file=sys.stderr, show_pos=True, show_eta=True
            ) as bar:
                written = await write_pieces(graph, todo.todo, vectors, bar.update)
            if vectors is not None:
                click.echo("Writing the last meaning vectors...", err=True)
                await vectors.settled(graph)
            _stored(written, profile, time.monotonic() - started, offer_dream=not dream)
            if dream:
                click.echo(describe(await cycle_now(graph, settings, CycleRequest(), vectors)))


def _stored(written: Written, profile: str, seconds: float, offer_dream: bool) -> None:
    rate = f", {written.stored / seconds:.0f} per second" if seconds and written.stored else ""
    click.echo(
        f"Stored {written.stored:,} memories in profile {profile} in {seconds:.0f} s{rate}: "
        f"{written.created:,} new, {written.same_words:,} whose words it already held."
    )
    if offer_dream:
        click.echo(
            f"Dream over them: `reverie dream run --profile {profile}` (or import with --dream); "
            "the nightly cycle reaches them by itself too."
        )
