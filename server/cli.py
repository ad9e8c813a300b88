"""The `reverie` command: serve, manage the local Neo4j and tokens, operate dreaming."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import anyio
import click

from graph.embedding.catalog import SEMANTIC_OFF
from graph.errors import ReverieError
from graph.localdb import LocalNeo4j, LocalNeo4jError
from graph.ports import bind_problem
from server.app import build_server, check_graph, opened_store, run_scheduler_forever
from server.auth import TokenFileError, TokenGrant, add_token
from server.cli_support import DownloadBar
from server.connectors_cli import connectors
from server.embeddings_cli import embeddings, install_named_model
from server.http_front import is_loopback, serve_http
from server.import_cli import history
from server.operator import dream
from server.profiles_cli import profile
from server.review import ROOT as REVIEW_ROOT
from server.service_cli import service
from server.settings import ReverieSettings, SettingsError, load_settings
from server.token_registry import TokenRegistry
from server.tokens_cli import token
from server.user_service import ServiceError

log = logging.getLogger("reverie")

DEFAULT_HTTP_PORT = 8765
# Pinned, as in the README and the Makefile (which installs it for the tests): an unpinned `npx`
# can fetch an Inspector that cannot speak Streamable HTTP on the person's Node. `-y`: without it
# npx asks before fetching, and refuses outright where there is no terminal to ask on.
INSPECTOR = "npx -y @modelcontextprotocol/inspector@2.12.0"


class CommandError(Exception):
    """A failure the operator can fix; printed without a traceback."""


def _http_tokens(settings: ReverieSettings, host: str) -> TokenRegistry:
    """The token registry for HTTP; on loopback a first local token is created and announced."""
    path = settings.tokens_path
    if not is_loopback(host) and (settings.reverie_tokens_file is None or not path.exists()):
        raise CommandError(
            f"Refusing to serve on {host} without tokens: set REVERIE_TOKENS_FILE to a token file "
            "(create one with `reverie token create --profile NAME`) or bind to 127.0.0.1."
        )
    if not path.exists():
        grant = add_token(path, settings.reverie_profile, ["read", "write"], name="local")
        print(f"Created a local token for profile {grant.profile!r} in {path}", file=sys.stderr)
    tokens = TokenRegistry(path)
    if not tokens.grants():
        raise CommandError(f"Token file {path} holds no tokens; add one with `reverie token create`.")
    return tokens


def _announce(base: str, grant: TokenGrant, tokens_path: Path, neo4j_note: str) -> None:
    """Where to connect and how to get the token: never the token itself, since whatever runs the
    server (a terminal, a service manager, a host) may keep this output in a log."""
    url, show = f"{base}/mcp", f"reverie token show {grant.fingerprint}"
    print(
        f"""
Reverie is serving MCP over Streamable HTTP at {url}
  Token:          profile {grant.profile!r}, fingerprint {grant.fingerprint}, kept in {tokens_path};
                  `{show}` prints it
  Review page:    {base}{REVIEW_ROOT} (sign in with the token)
  MCP Inspector:  {INSPECTOR} --cli --transport http --server-url {url} \\
                    --header "Authorization: Bearer $({show})" --method tools/list
  Any host:       url {url}, header Authorization: Bearer <the token>
Stop with Ctrl-C ({neo4j_note}).
""",
        file=sys.stderr,
        flush=True,
    )


def _neo4j_after(settings: ReverieSettings) -> str:
    """What becomes of the managed Neo4j when Reverie stops, as the settings make it."""
    if settings.neo4j_uri:
        return "the Neo4j at NEO4J_URI is not Reverie's to stop"
    idle = settings.neo4j_stop_when_idle()
    if idle is None:
        return "the managed Neo4j keeps running; `reverie neo4j stop` ends it"
    return f"the managed Neo4j stops {idle / 60:g} min after the last Reverie process leaves"


def _check_port_free(host: str, port: int) -> None:
    """Refuse a busy port before printing a token and an address that would not answer."""
    error = bind_problem(host, port)
    if error is not None:
        raise CommandError(
            f"cannot listen on {host}:{port} ({error.strerror}); stop what uses it or pick another "
            "port with --port"
        )


# Failures the operator can fix: one line, no traceback, exit 2 (as a usage error).
FIXABLE = (CommandError, SettingsError, LocalNeo4jError, TokenFileError, ReverieError, ServiceError)


class Refused(click.ClickException):
    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"reverie: {self.message}", file=file, err=file is None)


class ReverieGroup(click.Group):
    """The root group: maps the errors an operator can fix, and Ctrl-C to exit 130."""

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


@reverie.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for one host window, http for a long-running server.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=DEFAULT_HTTP_PORT, show_default=True, help="HTTP port."
)
@click.option(
    "--scheduler/--no-scheduler",
    default=True,
    show_default=True,
    help="Run the nightly dreaming scheduler for the profiles served (a missed night runs soon after start).",
)
def serve(transport: str, host: str, port: int, scheduler: bool) -> None:
    """Run the MCP server."""
    settings = load_settings()
    if transport == "http":
        _check_port_free(host, port)
    anyio.run(check_graph, settings)
    if transport == "stdio":
        # The scheduler over stdio too: a desktop host is often the only Reverie process there is,
        # and several servers of one profile still make one run a night (a unique key in the graph).
        build_server(settings, "stdio", run_scheduler=scheduler).run("stdio")
        return
    tokens = _http_tokens(settings, host)
    url = f"http://{host}:{port}"
    server = build_server(settings, "http", tokens=tokens, public_url=url, run_scheduler=scheduler)
    grants = tokens.grants()
    local = next((grant for grant in grants if grant.profile == settings.reverie_profile), grants[0])
    _announce(url, local, settings.tokens_path, _neo4j_after(settings))
    serve_http(server, settings, host, port)


@reverie.command("scheduler")
def scheduler_only() -> None:
    """Run only the nightly dreaming scheduler."""
    anyio.run(run_scheduler_forever, load_settings())


@reverie.group()
def neo4j() -> None:
    """Manage the local Neo4j Reverie provisions."""


instance_option = click.option(
    "--instance", default="default", show_default=True, help="Database instance (tests use 'test')."
)


def _local(instance: str) -> LocalNeo4j:
    settings = load_settings()
    return LocalNeo4j(settings.reverie_home, instance=instance, memory=settings.neo4j_memory())


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
        click.echo(f"Neo4j runs at {uri} with Reverie's schema; {_neo4j_after(settings)}")
    click.echo(f"Reverie is set up in {settings.reverie_home}; start it with `reverie serve`.")


for group in (token, dream, embeddings, profile, service, connectors, history):
    reverie.add_command(group)


def main(argv: Sequence[str] | None = None) -> None:
    reverie.main(args=argv, prog_name="reverie")
