"""What every `reverie` command shares: entering async code, refusing option pairs, JSON output,
showing a download."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import anyio
import click

from graph.access import validate_profile_id
from graph.errors import InvalidInputError
from server.settings import ReverieSettings


class CommandError(Exception):
    """A failure the operator can fix; printed without a traceback."""


def neo4j_after(settings: ReverieSettings) -> str:
    """What becomes of the managed Neo4j when Reverie stops, as the settings make it."""
    if settings.neo4j_uri:
        return "the Neo4j at NEO4J_URI is not Reverie's to stop"
    idle = settings.neo4j_stop_when_idle()
    if idle is None:
        return "the managed Neo4j keeps running; `reverie neo4j stop` ends it"
    return f"the managed Neo4j stops {idle / 60:g} min after the last Reverie process leaves"


P = ParamSpec("P")
T = TypeVar("T")


def synchronous(function: Callable[P, Awaitable[T]]) -> Callable[P, T]:
    """An async command body as the plain function click calls: one event loop per command."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return anyio.run(functools.partial(function, *args, **kwargs))

    return run


def _given(value: Any) -> bool:
    """Not what an option holds when left out: no value, an unset flag, an empty repeat."""
    return value is not None and value is not False and value != ()


def exclusive_with(*others: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A parameter callback refusing this option beside the parameters named `others` (click has
    no built-in for it). Click runs callbacks in command-line order, so the later one refuses."""

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        given = [p for p in ctx.command.params if p.name in others and _given(ctx.params.get(p.name))]
        if _given(value) and given:
            flags = " / ".join(p.get_error_hint(ctx) for p in given)
            raise click.BadParameter(f"cannot be used with {flags}", ctx=ctx, param=param)
        return value

    return check


class ProfileId(click.ParamType[str, str]):
    """A profile id, checked against the graph's rule while the options are read."""

    name = "profile"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return validate_profile_id(value)
        except InvalidInputError as error:
            self.fail(str(error), param, ctx)


PROFILE = ProfileId()
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def echo_json(payload: Any) -> None:
    click.echo(json.dumps(payload, indent=2))


class DownloadBar:
    """A fetch from Maven Central (graph/maven.py's FetchProgress) as a bar on stderr, which a
    terminal shows; elsewhere (a pipe, a host's log) only the summary line. Never on stdout: that
    is the stdio MCP transport's."""

    def __init__(self) -> None:
        self._bar: Any = None

    def begin(self, summary: str, total_bytes: int) -> None:
        self._bar = click.progressbar(length=total_bytes, label=summary, file=sys.stderr)
        self._bar.render_progress()

    def advance(self, nbytes: int) -> None:
        self._bar.update(nbytes)

    def finish(self, summary: str | None) -> None:
        self._bar.render_finish()
        if summary is not None:
            click.echo(summary, err=True)
