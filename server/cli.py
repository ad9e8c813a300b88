"""The `reverie` command: serve, manage the local Neo4j and tokens, operate dreaming."""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence
from typing import IO, Any

import anyio
import click

from graph.embedding.catalog import SEMANTIC_OFF
from graph.errors import ReverieError
from graph.localdb import LocalNeo4j, LocalNeo4jError
from server.auth import TokenFileError
from server.cli_support import CommandError, DownloadBar, neo4j_after
from server.connectors_cli import connectors
from server.embeddings_cli import embeddings, install_named_model
from server.import_cli import history
from server.operator import dream
from server.profiles_cli import profile
from server.service_cli import service
from server.settings import ReverieSettings, SettingsError, load_settings
from server.stores import opened_store
from server.tokens_cli import token
from server.user_service import ServiceError

log = logging.getLogger("reverie")

# Failures the operator can fix: one line, no traceback, exit 2 (as a usage error).
FIXABLE = (CommandError, SettingsError, LocalNeo4jError, TokenFileError, ReverieError, ServiceError)


class Refused(click.ClickException):
    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"reverie: {self.message}", file=file, err=file is None)


# Commands that load the MCP SDK, the web stack and the model (a second or more of imports):
# imported when one of them runs (or `--help` lists them), not for every other command.
SERVING_COMMANDS = {"serve": "serve", "scheduler": "scheduler_only"}
SERVING_MODULE = "server.serve_cli"


class ReverieGroup(click.Group):
    """The root group: maps the errors an operator can fix, and Ctrl-C to exit 130; loads the
    serving commands on demand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *SERVING_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in SERVING_COMMANDS:
            command: click.Command = getattr(
                importlib.import_module(SERVING_MODULE), SERVING_COMMANDS[cmd_name]
            )
            return command
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FIXABLE as error:
            raise Refused(str(error)) from None
        except KeyboardInterrupt:
            raise click.exceptions.Exit(130) from None


@click.group(cls=ReverieGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Log debug details to stderr.")
def reverie(verbose: bool) -> None:
    """Reverie: a memory that dreams, over MCP."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # The scheduler logs every minute's tick at INFO, and the HTTP client every request (226 of
    # them when the Neo4j jars are fetched); only their problems are worth showing.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    logging.getLogger("httpx2").setLevel(logging.WARNING)


@reverie.group()
def neo4j() -> None:
    """Manage the local Neo4j Reverie provisions."""


instance_option = click.option(
    "--instance", default="default", show_default=True, help="Database instance (tests use 'test')."
)


def _local(instance: str) -> LocalNeo4j:
    return load_settings().local_neo4j(instance)


def _installed(instance: str) -> LocalNeo4j:
    """The instance, its jars fetched with a progress bar (a start would fetch them silently)."""
    local = _local(instance)
    local.install(progress=DownloadBar())
    return local


def _install_neo4j(instance: str) -> LocalNeo4j:
    local = _installed(instance)
    click.echo(f"Neo4j jars ready in {local.lib_dir}")
    return local


@neo4j.command()
@instance_option
def install(instance: str) -> None:
    """Fetch the Neo4j jars."""
    _install_neo4j(instance)


@neo4j.command()
@instance_option
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Bolt port (default: a free one).")
def start(instance: str, port: int | None) -> None:
    """Start the server, or reuse the running one."""
    click.echo(_installed(instance).start(bolt_port=port).describe())


@neo4j.command()
@instance_option
def stop(instance: str) -> None:
    """Stop the server."""
    click.echo("Stopped." if _local(instance).stop() else "Not running.")


@neo4j.command()
@instance_option
def status(instance: str) -> None:
    """Say whether the server runs, and where."""
    click.echo(_local(instance).status().describe())


async def prepare_graph(settings: ReverieSettings) -> str:
    """Neo4j reached (the managed one started) and Reverie's schema in place; its Bolt URI.

    Creating the schema on an empty database takes seconds; done here, a host's first start does
    not spend them while it waits for the server to answer."""
    async with opened_store(settings) as store:
        return store.settings.uri


@reverie.command()
def setup() -> None:
    """Fetch and prepare everything Reverie runs on, showing each download.

    Fetches the Neo4j jars (unless NEO4J_URI names another Neo4j) and the embedding model
    (REVERIE_EMBEDDING_MODEL), about 190 MB, into REVERIE_HOME; then starts the local Neo4j and
    creates Reverie's schema in it. `reverie serve` does all this on its first start too, but a
    host may give up on a server that takes minutes to answer: run this first."""
    settings = load_settings()
    if settings.neo4j_uri:
        click.echo("NEO4J_URI is set: Reverie uses that Neo4j, so there is no local one to fetch")
    else:
        click.echo(f"Neo4j will run on {_install_neo4j('default').status().java}")
    if settings.reverie_embedding_model == SEMANTIC_OFF:
        click.echo("REVERIE_EMBEDDING_MODEL is off: no embedding model to fetch (lexical recall only)")
    else:
        install_named_model(settings, settings.reverie_embedding_model)
    uri = anyio.run(prepare_graph, settings)
    if settings.neo4j_uri:
        click.echo("The Neo4j at NEO4J_URI answers, and holds Reverie's schema")
    else:
        click.echo(f"Neo4j runs at {uri} with Reverie's schema; {neo4j_after(settings)}")
    click.echo(f"Reverie is set up in {settings.reverie_home}; start it with `reverie serve`.")


for group in (token, dream, embeddings, profile, service, connectors, history):
    reverie.add_command(group)


def main(argv: Sequence[str] | None = None) -> None:
    reverie.main(args=argv, prog_name="reverie")
