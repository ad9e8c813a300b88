"""The host's model writes dreams through MCP sampling: a real MCP client session whose sampling
callback answers from a script, including empty, malformed, slow and refusing answers."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.context import ClientRequestContext
from mcp_types import CreateMessageRequestParams, CreateMessageResult, ErrorData, TextContent

from graph.access import ConnectionSettings
from graph.dreams.generator import LinkGenerator
from server.app import build_server
from tests.server.conftest import settings_for, structured
from tests.server.support import MEMORIES

pytestmark = pytest.mark.anyio
Answer = CreateMessageResult | ErrorData
Script = Callable[[CreateMessageRequestParams], Awaitable[Answer]]
TIMEOUT = 1.0


def text_answer(text: str) -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=text), model="scripted-model"
    )


def judged(worth_asking: bool) -> str:
    return json.dumps(
        {
            "worth_asking": worth_asking,
            "hypothesis": "The sourdough starter Herbert is the reason for the weekend baking.",
            "why": "Both are about the same sourdough starter.",
            "what_if": "If so, baking plans depend on feeding Herbert.",
            "possible_outcome": "The assistant could remind the person to feed Herbert before baking.",
        }
    )


async def cycle_with(
    neo4j_settings: ConnectionSettings, profile_id: str, script: Script | None, mode: ConnectMode = "legacy"
) -> dict[str, Any]:
    """Remember the shared memories, run one manual cycle, and read back its dreams."""
    settings = settings_for(neo4j_settings, profile_id).model_copy(
        update={"dreaming_host_model_timeout": TIMEOUT}
    )
    callback = None
    if script is not None:

        async def callback(context: ClientRequestContext, params: CreateMessageRequestParams) -> Answer:
            return await script(params)

    # Hosts that offer sampling today speak the handshake-era protocol, which has a back-channel.
    async with Client(build_server(settings, "stdio"), sampling_callback=callback, mode=mode) as client:
        for text in MEMORIES:
            structured(await client.call_tool("remember", {"content": text}))
        run = structured(await client.call_tool("run_dreaming_cycle", {"max_outputs": 3}))
        phase = next(p for p in run["phases"] if p["phase"] == "dream")
        dreams = [
            structured(await client.call_tool("get_dream", {"dream_id": i})) for i in phase["dream_ids"]
        ]
    return {"run": run, "counts": phase["counts"], "dreams": dreams}


async def test_the_host_model_phrases_the_best_candidates(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    asked: list[CreateMessageRequestParams] = []

    async def script(params: CreateMessageRequestParams) -> Answer:
        asked.append(params)
        return text_answer(f"```json\n{judged(True)}\n```")

    result = await cycle_with(neo4j_settings, profile_id, script)
    assert result["run"]["status"] == "completed"
    assert result["counts"]["host_model_phrased"] == len(asked) >= 1
    phrased = [d for d in result["dreams"] if d["generator"] == "host-model:scripted-model"]
    assert phrased and phrased[0]["hypothesis"].startswith("The sourdough starter Herbert")
    assert "host's model (scripted-model)" in phrased[0]["rationale"]
    prompt = asked[0].messages[0].content.text  # type: ignore[union-attr]
    assert "Memory A" in prompt and "Memory B" in prompt and "worth_asking" in prompt
    assert asked[0].max_tokens <= 400 and asked[0].system_prompt


async def test_candidates_the_host_model_finds_empty_are_dropped(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    async def script(params: CreateMessageRequestParams) -> Answer:
        return text_answer(judged(False))

    result = await cycle_with(neo4j_settings, profile_id, script)
    assert result["counts"]["host_model_dropped"] >= 1
    assert result["counts"]["new_dreams"] == 0 and result["dreams"] == []


@pytest.mark.parametrize("misbehaviour", ["malformed", "slow", "refusal", "image"])
async def test_a_misbehaving_host_model_falls_back_to_the_deterministic_writer(
    neo4j_settings: ConnectionSettings, profile_id: str, misbehaviour: str
) -> None:
    async def script(params: CreateMessageRequestParams) -> Answer:
        if misbehaviour == "slow":
            await anyio.sleep(TIMEOUT * 3)
            return text_answer(judged(True))
        if misbehaviour == "refusal":
            return ErrorData(code=-1, message="User rejected sampling request")
        if misbehaviour == "image":
            return CreateMessageResult.model_validate(
                {
                    "role": "assistant",
                    "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    "model": "m",
                }
            )
        return text_answer('{"worth_asking": "maybe", "hypothesis": 3}')

    result = await cycle_with(neo4j_settings, profile_id, script)
    assert result["run"]["status"] == "completed"
    assert result["counts"]["host_model_failed"] >= 1 and result["counts"]["host_model_phrased"] == 0
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {LinkGenerator.name}


async def never_called(params: CreateMessageRequestParams) -> Answer:
    raise AssertionError("the host's model was asked on a connection that cannot carry the request")


@pytest.mark.parametrize(
    ("script", "mode"),
    [(None, "legacy"), (never_called, "2026-07-28")],
    ids=["no sampling capability", "no back-channel"],
)
async def test_a_client_without_usable_sampling_gets_the_deterministic_writer(
    neo4j_settings: ConnectionSettings, profile_id: str, script: Script | None, mode: str
) -> None:
    result = await cycle_with(neo4j_settings, profile_id, script, mode)
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {LinkGenerator.name}
    assert not any(key.startswith("host_model") for key in result["counts"])
