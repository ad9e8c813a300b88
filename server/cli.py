"""The `reverie` command: serve, manage the local Neo4j and tokens, operate dreaming."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

import anyio

from graph.errors import ReverieError
from graph.localdb import LocalNeo4j, LocalNeo4jError
from graph.ports import bind_problem
from server.app import build_server, check_graph, run_scheduler_forever
from server.auth import TokenFileError, TokenGrant, add_token
from server.embeddings_cli import add_embeddings_parser
from server.http_front import is_loopback, serve_http
from server.operator import add_dream_parser
from server.profiles_cli import add_profile_parser
from server.review import ROOT as REVIEW_ROOT
from server.settings import ReverieSettings, SettingsError, load_settings
from server.token_registry import TokenRegistry
from server.tokens_cli import add_token_parser

log = logging.getLogger("reverie")

DEFAULT_HTTP_PORT = 8765


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


def _announce(base: str, grant: TokenGrant) -> None:
    token, url = grant.token, f"{base}/mcp"
    print(
        f"""
Reverie is serving MCP over Streamable HTTP at {url}
  token for profile {grant.profile!r}: {token}
  Review page:    {base}{REVIEW_ROOT} (sign in with the token)
  MCP Inspector:  npx @modelcontextprotocol/inspector --cli --transport http --server-url {url} \\
                    --header "Authorization: Bearer {token}" --method tools/list
  Any host:       url {url}, header Authorization: Bearer {token}
Stop with Ctrl-C (the managed Neo4j keeps running; `reverie neo4j stop` ends it).
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


def cmd_serve(args: argparse.Namespace) -> None:
    settings = load_settings()
    # The HTTP server is the long-running process: it runs the scheduler unless told not to.
    # A stdio server is started per host window, so it only runs one when asked.
    run_scheduler = args.scheduler if args.scheduler is not None else args.transport == "http"
    if args.transport == "http":
        _check_port_free(args.host, args.port)
    anyio.run(check_graph, settings)
    if args.transport == "stdio":
        build_server(settings, "stdio", run_scheduler=run_scheduler).run("stdio")
        return
    tokens = _http_tokens(settings, args.host)
    url = f"http://{args.host}:{args.port}"
    server = build_server(settings, "http", tokens=tokens, public_url=url, run_scheduler=run_scheduler)
    grants = tokens.grants()
    local = next((grant for grant in grants if grant.profile == settings.reverie_profile), grants[0])
    _announce(url, local)
    serve_http(server, settings, args.host, args.port)


def cmd_scheduler(args: argparse.Namespace) -> None:
    anyio.run(run_scheduler_forever, load_settings())


def cmd_neo4j(args: argparse.Namespace) -> None:
    settings = load_settings()
    local = LocalNeo4j(settings.reverie_home, instance=args.instance)
    if args.action == "install":
        print(f"Neo4j jars ready in {local.install()}")
    elif args.action == "start":
        print(local.start(bolt_port=args.port).describe())
    elif args.action == "stop":
        print("Stopped." if local.stop() else "Not running.")
    else:
        print(local.status().describe())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reverie", description="Reverie: a memory that dreams, over MCP.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the MCP server")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT, help="HTTP port (default 8765)")
    serve.add_argument(
        "--scheduler",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the nightly dreaming scheduler (default: on for http, off for stdio)",
    )
    serve.set_defaults(handler=cmd_serve)

    scheduler = commands.add_parser("scheduler", help="run only the nightly dreaming scheduler")
    scheduler.set_defaults(handler=cmd_scheduler)

    neo4j = commands.add_parser("neo4j", help="manage the local Neo4j Reverie provisions")
    neo4j.add_argument("action", choices=["install", "start", "stop", "status"])
    neo4j.add_argument("--instance", default="default", help="database instance (tests use 'test')")
    neo4j.add_argument("--port", type=int, default=None, help="Bolt port for start (default: a free one)")
    neo4j.set_defaults(handler=cmd_neo4j)

    add_token_parser(commands)
    add_dream_parser(commands)
    add_embeddings_parser(commands)
    add_profile_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # The scheduler logs every minute's tick at INFO; only its problems are worth showing.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    handler: Callable[[argparse.Namespace], None] = args.handler
    try:
        handler(args)
    except (CommandError, SettingsError, LocalNeo4jError, TokenFileError, ReverieError) as error:
        print(f"reverie: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
