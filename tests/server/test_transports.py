"""The server as hosts reach it: stdio and Streamable HTTP subprocesses, the MCP Inspector CLI,
the tool metadata hosts read, and a Neo4j that is not there."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from graph.access import GraphStore
from graph.localdb import free_port
from server.app import build_server
from server.settings import ReverieSettings
from tests.server.conftest import (
    REVERIE,
    HttpServer,
    error_text,
    http_mcp,
    http_serving,
    run_reverie,
    structured,
)
from tests.server.support import INITIALIZE, MCP_HEADERS

pytestmark = pytest.mark.anyio

MEMORY_TOOLS = {
    "remember",
    "recall_memory",
    "reflect_memories",
    "confirm_memory",
    "retract_memory",
    "forget_memory",
}
READ_ONLY_TOOLS = {"recall_memory", "reflect_memories"}


def check_tool_list(tools: dict[str, Any]) -> None:
    assert set(tools) >= MEMORY_TOOLS
    for tool in tools.values():
        assert tool.output_schema, f"{tool.name} has no outputSchema"
        assert tool.annotations is not None, f"{tool.name} has no annotations"


# --- stdio --------------------------------------------------------------------------------


async def test_stdio_subprocess_lists_tools_and_remembers(server_env: dict[str, str]) -> None:
    parameters = StdioServerParameters(command=str(REVERIE), args=["serve"], env=server_env)
    async with Client(parameters) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        check_tool_list(tools)

        stored = structured(
            await client.call_tool("remember", {"content": "I keep two beehives on the allotment in Leeds."})
        )
        assert stored["fragment"]["created"] is True
        found = structured(await client.call_tool("recall_memory", {"query": "beehives allotment"}))
        assert found["query"] == "beehives allotment"
        [item] = found["results"]
        assert item["kind"] == "fragment"
        assert item["id"] == stored["fragment"]["id"]
        assert item["text"].startswith("I keep two beehives")
        assert found["related_dreams"] == []


# --- tool metadata ------------------------------------------------------------------------


async def test_tool_schemas_are_flat_and_annotated(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    check_tool_list(tools)
    for tool in tools.values():
        properties = tool.input_schema.get("properties", {})
        assert list(properties) != ["params"], f"{tool.name} takes one nested params object"
        assert tool.input_schema.get("type") == "object"
        assert tool.output_schema is not None and tool.output_schema.get("type") == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None, (
            f"{tool.name} does not say whether it writes"
        )
    remember = tools["remember"].input_schema
    assert remember["required"] == ["content"]
    assert {"content", "source", "authority", "claims", "idempotency_key"} <= set(remember["properties"])
    assert tools["recall_memory"].input_schema["required"] == ["query"]
    read_only = {name for name in MEMORY_TOOLS if tools[name].annotations.read_only_hint}  # type: ignore[union-attr]
    assert read_only == READ_ONLY_TOOLS


async def test_read_only_tools_leave_the_graph_unchanged(
    client: Client, store: GraphStore, profile_id: str
) -> None:
    async def nodes_of_profile() -> int:
        records, _, _ = await store.driver.execute_query(
            "MATCH (n {profile_id: $profile}) RETURN count(n) AS n", {"profile": profile_id}
        )
        return int(records[0]["n"])

    structured(await client.call_tool("recall_memory", {"query": "anything at all"}))
    structured(await client.call_tool("reflect_memories", {"stale_after_days": 1}))
    assert await nodes_of_profile() == 0
    structured(await client.call_tool("remember", {"content": "I cycle to work every day."}))
    assert await nodes_of_profile() > 0


UNREADABLE_LINES = {
    "not JSON": b"not json at all",
    "nested 400 levels": b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": '
    + b"[" * 400
    + b"]" * 400
    + b"}}",
    "no message shape": b'{"hello": "world"}',
}


@pytest.mark.parametrize("case", list(UNREADABLE_LINES), ids=list(UNREADABLE_LINES))
def test_stdio_answers_a_line_it_cannot_read_with_a_parse_error(
    server_env: dict[str, str], case: str
) -> None:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    frames = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode(),
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        UNREADABLE_LINES[case],
        b'{"jsonrpc": "2.0", "id": 4, "method": "ping"}',
    ]
    with subprocess.Popen(
        [str(REVERIE), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=server_env,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"\n".join(frames) + b"\n")
        server.stdin.flush()
        # Read until the ping after the bad line is answered; a dropped line would leave the
        # ping's answer the third line, and a hang ends in the timeout below.
        with ThreadPoolExecutor(1) as reader:
            lines = reader.submit(lambda: [server.stdout.readline() for _ in range(3)])  # type: ignore[union-attr]
            try:
                answers = [json.loads(line) for line in lines.result(timeout=60)]
            finally:
                server.kill()  # also ends a reader still waiting, so a hang fails instead of hanging
    assert [answer.get("id") for answer in answers] == [1, None, 4], answers
    assert answers[1]["error"]["code"] == -32700 and "one message per line" in answers[1]["error"]["message"]


# --- Streamable HTTP ----------------------------------------------------------------------


async def test_http_with_a_write_token_lists_remembers_and_recalls(http_server: HttpServer) -> None:
    async with http_mcp(http_server, http_server.write_token) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        check_tool_list(tools)
        stored = structured(await client.call_tool("remember", {"content": "My sister Ines lives in Porto."}))
        found = structured(await client.call_tool("recall_memory", {"query": "sister Porto"}))
        assert [item["id"] for item in found["results"]] == [stored["fragment"]["id"]]

    # Another profile's token reaches the same server but none of this profile's memories.
    async with http_mcp(http_server, http_server.other_profile_token) as client:
        found = structured(await client.call_tool("recall_memory", {"query": "sister Porto"}))
        assert found["results"] == []


@pytest.mark.parametrize("authorization", [None, "Bearer not-a-token-of-this-server", "Basic dXNlcjpwYXNz"])
async def test_http_without_a_valid_token_gets_401(
    http_server: HttpServer, authorization: str | None
) -> None:
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(http_server.url, json=INITIALIZE, headers=headers)
    assert response.status_code == 401
    challenge = response.headers.get("www-authenticate", "")
    assert challenge.startswith("Bearer")
    # Plain bearer tokens: no pointer to OAuth metadata naming an authorization server that does
    # not exist.
    assert "resource_metadata" not in challenge


async def test_http_advertises_no_oauth_metadata(http_server: HttpServer) -> None:
    async with httpx2.AsyncClient(base_url=http_server.base, timeout=30) as http:
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server",
        ):
            assert (await http.get(path)).status_code == 404, path


async def test_http_read_only_token_recalls_but_cannot_remember(http_server: HttpServer) -> None:
    async with http_mcp(http_server, http_server.read_token) as client:
        found = structured(await client.call_tool("recall_memory", {"query": "anything"}))
        assert found["results"] == []
        refused = error_text(await client.call_tool("remember", {"content": "I moved to Glasgow in May."}))
        assert "'write' scope" in refused
        health = structured(await client.call_tool("reflect_memories", {}))
        assert health["counts"]["candidate_claims"] == 0

    async with http_mcp(http_server, http_server.write_token) as client:
        found = structured(await client.call_tool("recall_memory", {"query": "Glasgow"}))
        assert found["results"] == [], "the refused remember wrote something"


@pytest.mark.parametrize("tokens_file", [None, "missing.json"])
def test_http_on_a_public_address_without_tokens_is_refused(
    server_env: dict[str, str], tmp_path: Path, tokens_file: str | None
) -> None:
    env = {key: value for key, value in server_env.items() if key != "REVERIE_TOKENS_FILE"}
    env["REVERIE_HOME"] = str(tmp_path / "home")
    if tokens_file is not None:
        env["REVERIE_TOKENS_FILE"] = str(tmp_path / tokens_file)
    finished = run_reverie(
        env, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port()), timeout=60
    )
    assert finished.returncode != 0
    assert "REVERIE_TOKENS_FILE" in finished.stderr
    assert "Traceback" not in finished.stderr
    assert not (tmp_path / "home" / "tokens.json").exists()


# --- MCP Inspector CLI --------------------------------------------------------------------


def run_inspector(
    inspector: Path, server_env: dict[str, str], *method: str
) -> subprocess.CompletedProcess[str]:
    # The inspector starts the server with only HOME, PATH, SHELL, TERM, USER and LOGNAME of its
    # own environment; everything else must be passed with -e.
    passed = ["NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "REVERIE_PROFILE"]
    env_flags = [flag for name in passed for flag in ("-e", f"{name}={server_env[name]}")]
    return subprocess.run(
        [str(inspector), "--cli", str(REVERIE), "serve", *env_flags, *method],
        env=server_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def inspector_call(inspector: Path, server_env: dict[str, str], tool: str, argument: str) -> Any:
    """Call one tool through the inspector; returns its exit code and the result it printed."""
    finished = run_inspector(
        inspector, server_env, "--method", "tools/call", "--tool-name", tool, "--tool-arg", argument
    )
    assert finished.stdout, finished.stderr
    return finished.returncode, json.loads(finished.stdout)


def test_inspector_cli_lists_and_calls_tools(inspector: Path, server_env: dict[str, str]) -> None:
    listed = run_inspector(inspector, server_env, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert names >= MEMORY_TOOLS

    code, result = inspector_call(inspector, server_env, "recall_memory", "query=anything")
    assert code == 0
    assert result["structuredContent"]["results"] == []

    code, stored = inspector_call(inspector, server_env, "remember", "content=I keep bees on the roof")
    assert code == 0
    code, found = inspector_call(inspector, server_env, "recall_memory", "query=bees")
    assert code == 0
    fragment_id = stored["structuredContent"]["fragment"]["id"]
    assert [item["id"] for item in found["structuredContent"]["results"]] == [fragment_id]


def run_inspector_http(inspector: Path, server: HttpServer, token: str) -> subprocess.CompletedProcess[str]:
    """The README's command against `reverie serve --transport http`."""
    return subprocess.run(
        [
            str(inspector), "--cli", "--transport", "http", "--server-url", server.url,
            "--header", f"Authorization: Bearer {token}", "--method", "tools/list",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


def test_inspector_cli_lists_tools_over_http_with_a_bearer_token(
    inspector: Path, http_server: HttpServer
) -> None:
    listed = run_inspector_http(inspector, http_server, http_server.read_token)
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert names >= MEMORY_TOOLS

    refused = run_inspector_http(inspector, http_server, "not-a-token-of-this-server")
    assert refused.returncode != 0 and '"tools"' not in refused.stdout


def printed_inspector_command(log: str) -> str:
    """The Inspector command of the start banner, as a person would paste it into a shell."""
    banner = log.replace("\\\n", " ")
    [line] = [line for line in banner.splitlines() if line.lstrip().startswith("MCP Inspector:")]
    return line.split("MCP Inspector:", 1)[1].strip()


def test_the_start_banner_s_inspector_command_works_as_printed_and_no_token_is_logged(
    inspector: Path, tmp_path: Path
) -> None:
    closed = free_port()  # tools/list needs no graph: nothing listens there
    env = {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{closed}", "NEO4J_PASSWORD": "x"}
    with http_serving(env, "banner", tmp_path, REVERIE_EMBEDDING_MODEL="off") as server:
        log = server.log.read_text()
        command = printed_inspector_command(log)
        # npx fetches the pinned Inspector; the suite runs the version `make inspector` installed.
        package = inspector.parent.parent / "@modelcontextprotocol" / "inspector" / "package.json"
        installed = json.loads(package.read_text())
        npx = f"npx -y {installed['name']}@{installed['version']} "
        assert command.startswith(npx)
        # The token comes from `reverie token show` in the command, run by the shell.
        shell = {
            **env,
            "REVERIE_TOKENS_FILE": str(server.tokens_file),
            "PATH": f"{REVERIE.parent}:{os.environ['PATH']}",
        }
        listed = subprocess.run(
            ["sh", "-c", shlex.quote(str(inspector)) + " " + command.removeprefix(npx)],
            env=shell, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert {tool["name"] for tool in json.loads(listed.stdout)["tools"]} >= MEMORY_TOOLS
    for token in (server.write_token, server.read_token, server.other_profile_token):
        assert token not in log


def test_inspector_cli_reports_a_tool_error(inspector: Path, server_env: dict[str, str]) -> None:
    code, result = inspector_call(inspector, server_env, "recall_memory", "query=!!!")
    assert code == 5
    assert result["isError"] is True
    assert "no searchable words" in result["content"][0]["text"]


# --- Neo4j unreachable --------------------------------------------------------------------


async def test_unreachable_neo4j_still_starts_and_explains_each_call(profile_id: str) -> None:
    closed = free_port()  # bound and released: nothing listens there
    uri = f"bolt://127.0.0.1:{closed}"
    settings = ReverieSettings(neo4j_uri=uri, neo4j_password="x", reverie_profile=profile_id)
    started = time.perf_counter()
    async with Client(build_server(settings, "stdio")) as client:
        startup = time.perf_counter() - started
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools >= MEMORY_TOOLS

        began = time.perf_counter()
        recall_error = error_text(await client.call_tool("recall_memory", {"query": "anything"}))
        recall_s = time.perf_counter() - began
        began = time.perf_counter()
        remember_error = error_text(await client.call_tool("remember", {"content": "Written while down."}))
        remember_s = time.perf_counter() - began
    print(f"\nunreachable Neo4j: startup {startup:.2f}s, recall {recall_s:.2f}s, remember {remember_s:.2f}s")
    for message in (recall_error, remember_error):
        assert uri in message
        assert "cannot be reached" in message
        assert "reverie neo4j start" in message
        assert "NEO4J_URI" in message
        assert "internal error" not in message


async def test_the_server_names_its_version_and_refuses_an_unknown_prompt_as_bad_params(
    client: Client,
) -> None:
    info = client.server_info
    assert info is not None and (info.name, info.version) == ("reverie", version("reverie"))
    with pytest.raises(MCPError) as refused:
        await client.get_prompt("no-such-prompt")
    assert refused.value.error.code == INVALID_PARAMS and "no-such-prompt" in refused.value.error.message
