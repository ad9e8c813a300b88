"""A request whose strings hold a lone surrogate escape, as a JavaScript host sends when it cuts a
string inside an emoji: answered under its own id over stdio and over HTTP, the half character
read as U+FFFD."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest

from tests.server.conftest import REVERIE, HttpServer
from tests.server.support import INITIALIZE, MCP_HEADERS

# The escapes are written out, as they travel: json.dumps would send the pair as one character.
REMEMBER = (
    b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", '
    b'"arguments": {"content": "Herbert the sourdough starter \\ud83d"}}}'
)
RECALL = (
    b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "recall_memory", '
    b'"arguments": {"query": "sourdough x\\ud800y"}}}'
)


def check_answers(remembered: dict[str, Any], recalled: dict[str, Any]) -> None:
    assert remembered["id"] == 2 and not remembered["result"].get("isError"), remembered
    assert recalled["id"] == 3 and not recalled["result"].get("isError"), recalled
    [found] = recalled["result"]["structuredContent"]["results"]
    assert found["text"] == "Herbert the sourdough starter \ufffd"
    assert recalled["result"]["structuredContent"]["query"] == "sourdough x\ufffdy"


def test_stdio_answers_a_call_with_a_lone_surrogate_under_its_id(server_env: dict[str, str]) -> None:
    frames = [
        json.dumps(INITIALIZE).encode(),
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        REMEMBER,
        RECALL,
        b'{"jsonrpc": "2.0", "id": 4, "method": "ping"}',
    ]
    with subprocess.Popen(
        [str(REVERIE), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=server_env,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        # One at a time, so the recall follows the remember it should find.
        with ThreadPoolExecutor(1) as reader:
            answers = []
            for frame in frames:
                server.stdin.write(frame + b"\n")
                server.stdin.flush()
                if b'"id"' not in frame:
                    continue
                line = reader.submit(server.stdout.readline)
                try:
                    answers.append(json.loads(line.result(timeout=120)))
                except BaseException:
                    server.kill()  # a dropped call fails here instead of hanging
                    raise
            server.kill()
    assert [answer.get("id") for answer in answers] == [1, 2, 3, 4], answers
    check_answers(answers[1], answers[2])


def answer_of(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer in a Streamable HTTP response, plain JSON or one SSE event."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        return response.json()  # type: ignore[no-any-return]
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])  # type: ignore[no-any-return]


@pytest.mark.anyio
async def test_http_answers_a_call_with_a_lone_surrogate(http_server: HttpServer) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {http_server.write_token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        started = await http.post(http_server.url, json=INITIALIZE)
        assert started.status_code == 200, started.text
        session = {
            "mcp-session-id": started.headers["mcp-session-id"],
            "mcp-protocol-version": INITIALIZE["params"]["protocolVersion"],  # type: ignore[index]
        }
        initialized = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        assert (await http.post(http_server.url, content=initialized, headers=session)).status_code == 202
        remembered = answer_of(await http.post(http_server.url, content=REMEMBER, headers=session))
        recalled = answer_of(await http.post(http_server.url, content=RECALL, headers=session))
    check_answers(remembered, recalled)
