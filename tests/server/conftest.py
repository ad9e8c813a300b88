"""In-process MCP clients against a server wired to the suite's Neo4j."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import traceback
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from bench.processes import ServerStartError, free_port
from graph.access import ConnectionSettings
from server.app import build_server
from server.auth import add_token
from server.cli import reverie as reverie_command
from server.settings import ReverieSettings
from tests.conftest import TEST_PROFILE_PREFIX, not_provisioned, server_environment
from tests.forked import run_forked, serving_forked

CallTool = Callable[..., Awaitable[dict[str, Any]]]
# The installed command, as a user runs it.
REVERIE = Path(sys.executable).parent / "reverie"


def run_reverie(
    env: Mapping[str, str], *arguments: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`reverie ARGUMENTS` in a process of its own (forked: tests/forked.py) with `env` and no
    input; its output as text.

    For tests without an event loop: an async test awaits `reverie` instead (see there)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_forked(env, *arguments, timeout=timeout)
    raise RuntimeError("run_reverie blocks the event loop: an async test awaits reverie(...)")


async def reverie(
    env: Mapping[str, str], *arguments: str, seconds: float = 120
) -> subprocess.CompletedProcess[str]:
    """`run_reverie` in a worker thread. An async test's in-process server shares its event loop:
    blocked, that server held a vector transaction open while the child's `profile delete`
    waited on its locks, a deadlock across two processes that Neo4j cannot see (the child ran
    out its timeout, twice in CI)."""
    return await anyio.to_thread.run_sync(partial(run_reverie, env, *arguments, timeout=seconds))


def run_reverie_in_process(env: Mapping[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    """`run_reverie`, in this process (see `reverie_in_process`)."""
    result = CliRunner().invoke(reverie_command, list(arguments), env=dict(env), prog_name="reverie")
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What the installed command would print: a test that asserts no traceback still can.
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["reverie", *arguments], result.exit_code, result.stdout, stderr)


async def reverie_in_process(env: Mapping[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    """`reverie ARGUMENTS` as `reverie` runs it, but in this process (click's runner, in a worker
    thread, with `env` as its environment and no input): the same command, exit code and output
    without a process start, its imports and its model load (seconds each on a busy machine).
    For tests of what a command does to the data; a test of the process itself (its start, its
    output streams, its log) runs the installed command with `reverie`."""
    return await anyio.to_thread.run_sync(partial(run_reverie_in_process, env, *arguments))


def settings_for(neo4j: ConnectionSettings, profile_id: str) -> ReverieSettings:
    return ReverieSettings(
        neo4j_uri=neo4j.uri,
        neo4j_username=neo4j.username,
        neo4j_password=neo4j.password,
        reverie_profile=profile_id,
    )


def structured(result: CallToolResult) -> dict[str, Any]:
    """The tool's structured result; a tool error fails the test with its message."""
    if result.is_error:
        raise AssertionError(f"tool error: {result.content[0].text}")  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected a tool error, got {json.dumps(result.structured_content)[:300]}"
    return result.content[0].text  # type: ignore[union-attr]


@pytest.fixture
async def client(neo4j_settings: ConnectionSettings, profile_id: str) -> AsyncIterator[Client]:
    server = build_server(settings_for(neo4j_settings, profile_id), "stdio")
    async with Client(server) as connected:
        yield connected


@pytest.fixture
async def other_client(neo4j_settings: ConnectionSettings) -> AsyncIterator[Client]:
    """A second host on the same database, signed in as another profile."""
    server = build_server(
        settings_for(neo4j_settings, f"{TEST_PROFILE_PREFIX}{uuid.uuid4().hex[:12]}"), "stdio"
    )
    async with Client(server) as connected:
        yield connected


@pytest.fixture
def call(client: Client) -> CallTool:
    return caller(client)


def caller(client: Client) -> CallTool:
    """`client`'s tools as one call each: the structured result, or the test fails with the tool's error."""

    async def call_tool(name: str, **arguments: Any) -> dict[str, Any]:
        return structured(await client.call_tool(name, arguments))

    return call_tool


@dataclass(frozen=True)
class HttpServer:
    base: str
    write_token: str
    read_token: str
    other_profile_token: str
    tokens_file: Path
    log: Path  # the server's stdout and stderr
    pid: int

    @property
    def url(self) -> str:
        """The MCP endpoint."""
        return f"{self.base}/mcp"

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])


@asynccontextmanager
async def http_mcp(server: HttpServer, token: str, **options: Any) -> AsyncIterator[Client]:
    """An MCP client of `server` over Streamable HTTP, every request signed with `token`;
    `options` go to `Client` (a sampling callback, say)."""
    signed = {"Authorization": f"Bearer {token}"}
    http = httpx2.AsyncClient(headers=signed, timeout=httpx2.Timeout(30, read=300))
    async with http, Client(streamable_http_client(server.url, http_client=http), **options) as client:
        yield client


@dataclass(frozen=True)
class Tokens:
    """Three tokens in one tokens file: this profile's read-write and read-only, another profile's."""

    write: str
    read: str
    other_profile: str
    file: Path


def tokens_for(profile_id: str, file: Path) -> Tokens:
    """The three tokens, added to the tokens file `file` (made when missing)."""
    write = add_token(file, profile_id, ["read", "write"], name="rw")
    read = add_token(file, profile_id, ["read"], name="ro")
    other = add_token(file, f"{profile_id}-other", ["read", "write"], name="other")
    return Tokens(write.token, read.token, other.token, file)


@contextmanager
def http_serving(
    server_env: Mapping[str, str],
    profile_id: str,
    tmp_path: Path,
    tokens: Tokens | None = None,
    name: str = "server",
    *,
    public: bool = False,
    **extra_env: str,
) -> Iterator[HttpServer]:
    """`reverie serve --transport http` on 127.0.0.1 with three tokens and `extra_env` in its
    environment; several servers of one test pass the same `tokens` and each its own `name`;
    `public`: its own address as REVERIE_PUBLIC_URL, so it serves connectors too."""
    tokens = tokens or tokens_for(profile_id, tmp_path / "tokens.json")
    port = free_port()
    env = {
        **server_env,
        "REVERIE_TOKENS_FILE": str(tokens.file),
        "REVERIE_HOME": str(tmp_path / "home"),
        **({"REVERIE_PUBLIC_URL": f"http://127.0.0.1:{port}"} if public else {}),
        **extra_env,
    }
    arguments = ["serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    log = tmp_path / f"{name}.log"
    try:
        with serving_forked(arguments, env, port, log) as running:
            yield HttpServer(
                f"http://127.0.0.1:{port}",
                tokens.write,
                tokens.read,
                tokens.other_profile,
                tokens.file,
                log,
                running.pid,
            )
    except ServerStartError as error:
        pytest.fail(str(error))


@pytest.fixture
def inspector() -> Path:
    """The MCP Inspector `make inspector` installed, named by REVERIE_INSPECTOR."""
    configured = os.environ.get("REVERIE_INSPECTOR")
    if not configured:
        not_provisioned("REVERIE_INSPECTOR is unset: `make test` installs the MCP Inspector and sets it")
    path = Path(configured).expanduser()
    if not os.access(path, os.X_OK):
        pytest.fail(f"REVERIE_INSPECTOR={configured} is not an executable; run `make inspector`")
    return path


@pytest.fixture
def own_http_server(server_env: dict[str, str], profile_id: str, tmp_path: Path) -> Iterator[HttpServer]:
    """A server of this test's own: for a test that reads the server's log, edits its tokens
    file by token name, or counts what one address may try."""
    with http_serving(server_env, profile_id, tmp_path) as server:
        yield server


@pytest.fixture(scope="module")
def module_http_server(
    neo4j_settings: ConnectionSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """One server for a module's tests (see `http_server`)."""
    folder = tmp_path_factory.mktemp("module-server")
    profile = f"{TEST_PROFILE_PREFIX}{uuid.uuid4().hex[:12]}"
    with http_serving(server_environment(neo4j_settings, profile), profile, folder, name="module") as server:
        yield server


@pytest.fixture
def http_server(module_http_server: HttpServer, profile_id: str) -> HttpServer:
    """The module's server, signed into with three new tokens of this test's profile. A server's
    start costs about 3 s of CPU, most of the suite's once each test had its own; the server
    reads its tokens file again on every request, so each test still works in a profile of its
    own. Its log is every test's: a test that reads it takes `own_http_server`."""
    tokens = tokens_for(profile_id, module_http_server.tokens_file)
    return replace(
        module_http_server,
        write_token=tokens.write,
        read_token=tokens.read,
        other_profile_token=tokens.other_profile,
    )


async def signals_once_written(call: CallTool, recalls: int) -> dict[str, Any]:
    """The recall signals reflect_memories shows, once `recalls` questions are logged (they are
    written after the answers, by a task of their own)."""
    with anyio.fail_after(30):
        while True:
            signals = dict((await call("reflect_memories"))["recall"])
            if len(signals["recent_questions"]) >= recalls:
                return signals
            await anyio.sleep(0.2)
