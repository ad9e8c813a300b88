"""`reverie serve` and `reverie scheduler`: the commands that load the MCP server, the web stack
and the model. The root group (`server.cli`) imports this module only when one of them runs, so
that every other command starts without them."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import click

from graph.ports import bind_problem
from server.app import build_server, run_scheduler_forever
from server.auth import TokenGrant, add_token
from server.cli_support import CommandError, neo4j_after
from server.http_front import is_loopback, serve_http
from server.review import ROOT as REVIEW_ROOT
from server.settings import ReverieSettings, load_settings
from server.stores import check_graph
from server.token_registry import TokenRegistry

DEFAULT_HTTP_PORT = 8765
# Pinned, as in the README and the Makefile (which installs it for the tests): an unpinned `npx`
# can fetch an Inspector that cannot speak Streamable HTTP on the person's Node. `-y`: without it
# npx asks before fetching, and refuses outright where there is no terminal to ask on.
INSPECTOR = "npx -y @modelcontextprotocol/inspector@2.12.0"


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


def _check_port_free(host: str, port: int) -> None:
    """Refuse a busy port before printing a token and an address that would not answer."""
    error = bind_problem(host, port)
    if error is not None:
        raise CommandError(
            f"cannot listen on {host}:{port} ({error.strerror}); stop what uses it or pick another "
            "port with --port"
        )


@click.command()
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
    _announce(url, local, settings.tokens_path, neo4j_after(settings))
    serve_http(server, settings, host, port)


@click.command("scheduler")
def scheduler_only() -> None:
    """Run only the nightly dreaming scheduler."""
    anyio.run(run_scheduler_forever, load_settings())
