"""The host's model writes dreams through MCP sampling, on both protocol eras: real MCP client
sessions (one forced to the handshake era, one on its default, 2026-07-28) whose sampling
callback answers from a script, including empty, malformed, slow and refusing answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, CreateMessageRequestParams, CreateMessageResult, ErrorData, TextContent

from graph.access import ConnectionSettings
from graph.dreams.generator import LinkGenerator
from server.app import build_server
from server.sampling import INPUT_REQUIRED_VERSION, NOT_OFFERED
from tests.server.conftest import settings_for, structured
from tests.server.support import MEMORIES

pytestmark = pytest.mark.anyio
Answer = CreateMessageResult | ErrorData
Script = Callable[[CreateMessageRequestParams], Awaitable[Answer]]
TIMEOUT = 1.0
# "auto" is the SDK client's default, which speaks 2026-07-28 to this server.
ERAS = pytest.mark.parametrize("mode", ["legacy", "auto"])
HYPOTHESIS = "The sourdough starter Herbert is the reason for the weekend baking."
# A model's name as a hostile host or endpoint may send it, and as Reverie keeps it.
FORGED_MODEL = "evil\n2026-11-28 ERROR forged\x1b[31m<script>"
CLEANED_MODEL = "evil 2026-11-28 ERROR forged [31m<script>"


def text_answer(text: str, model: str = "scripted-model") -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model=model)


def judged(worth_asking: bool, hypothesis: str = HYPOTHESIS) -> str:
    return json.dumps(
        {
            "worth_asking": worth_asking,
            "hypothesis": hypothesis,
            "why": "Both are about the same sourdough starter.",
            "what_if": "If so, baking plans depend on feeding Herbert.",
            "possible_outcome": "The assistant could remind the person to feed Herbert before baking.",
        }
    )


@asynccontextmanager
async def connected(
    neo4j_settings: ConnectionSettings,
    profile_id: str,
    script: Script | None,
    mode: ConnectMode,
    answer_within: float = TIMEOUT,
) -> AsyncIterator[Client]:
    """A client of a server with a short sampling timeout, the shared memories remembered."""
    settings = settings_for(neo4j_settings, profile_id).model_copy(
        update={"dreaming_host_model_timeout": answer_within}
    )
    callback = None
    if script is not None:

        async def callback(context: ClientRequestContext, params: CreateMessageRequestParams) -> Answer:
            return await script(params)

    async with Client(build_server(settings, "stdio"), sampling_callback=callback, mode=mode) as client:
        expected = INPUT_REQUIRED_VERSION if mode == "auto" else "2025-11-25"
        assert client.protocol_version == expected
        for text in MEMORIES:
            structured(await client.call_tool("remember", {"content": text}))
        yield client


async def dream_phase(client: Client, **arguments: Any) -> dict[str, Any]:
    """One manual cycle: the run, its dream phase's counts, and its dreams as get_dream reads them."""
    return await read_phase(
        client, await client.call_tool("run_dreaming_cycle", {"max_outputs": 3, **arguments})
    )


async def read_phase(client: Client, result: CallToolResult) -> dict[str, Any]:
    run = structured(result)
    phase = next(p for p in run["phases"] if p["phase"] == "dream")
    dreams = [structured(await client.call_tool("get_dream", {"dream_id": i})) for i in phase["dream_ids"]]
    return {"run": run, "counts": phase["counts"], "dreams": dreams}


async def cycle_with(
    neo4j_settings: ConnectionSettings, profile_id: str, script: Script | None, mode: ConnectMode
) -> dict[str, Any]:
    async with connected(neo4j_settings, profile_id, script, mode) as client:
        return await dream_phase(client)


@ERAS
async def test_the_host_model_phrases_the_best_candidates(
    neo4j_settings: ConnectionSettings, profile_id: str, mode: ConnectMode
) -> None:
    asked: list[CreateMessageRequestParams] = []

    async def script(params: CreateMessageRequestParams) -> Answer:
        asked.append(params)
        return text_answer(f"```json\n{judged(True)}\n```")

    result = await cycle_with(neo4j_settings, profile_id, script, mode)
    assert result["run"]["status"] == "completed"
    # Handshake era: asked one at a time, each answer used. 2026-07-28: asked all at once,
    # including the spares behind pairs the model might find empty.
    assert result["counts"]["host_model_phrased"] == result["counts"]["new_dreams"] >= 1
    assert len(asked) >= result["counts"]["host_model_phrased"]
    assert {d["generator"] for d in result["dreams"]} == {"host-model:scripted-model"}
    assert {d["hypothesis"] for d in result["dreams"]} == {HYPOTHESIS}
    assert "host's model (scripted-model)" in result["dreams"][0]["rationale"]
    prompt = asked[0].messages[0].content.text  # type: ignore[union-attr]
    assert "Memory A" in prompt and "Memory B" in prompt and "worth_asking" in prompt
    assert asked[0].max_tokens <= 400 and asked[0].system_prompt


@ERAS
async def test_the_models_name_is_kept_as_one_clean_line(
    neo4j_settings: ConnectionSettings, profile_id: str, mode: ConnectMode
) -> None:
    async def script(params: CreateMessageRequestParams) -> Answer:
        return text_answer(judged(True), model=FORGED_MODEL)

    result = await cycle_with(neo4j_settings, profile_id, script, mode)
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {f"host-model:{CLEANED_MODEL}"}
    assert f"host's model ({CLEANED_MODEL});" in result["dreams"][0]["rationale"]


@ERAS
async def test_candidates_the_host_model_finds_empty_are_dropped(
    neo4j_settings: ConnectionSettings, profile_id: str, mode: ConnectMode
) -> None:
    async def script(params: CreateMessageRequestParams) -> Answer:
        return text_answer(judged(False))

    result = await cycle_with(neo4j_settings, profile_id, script, mode)
    assert result["counts"]["host_model_dropped"] >= 1 and result["counts"].get("host_model_failed", 0) == 0
    assert result["counts"]["new_dreams"] == 0 and result["dreams"] == []


async def misbehaving(misbehaviour: str) -> Answer:
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


@pytest.mark.parametrize(
    ("misbehaviour", "mode"),
    [
        *[(misbehaviour, "legacy") for misbehaviour in ("malformed", "slow", "refusal", "image")],
        *[(misbehaviour, "auto") for misbehaviour in ("malformed", "slow", "image")],
    ],
)
async def test_a_misbehaving_host_model_falls_back_to_the_deterministic_writer(
    neo4j_settings: ConnectionSettings, profile_id: str, misbehaviour: str, mode: ConnectMode
) -> None:
    async def script(params: CreateMessageRequestParams) -> Answer:
        return await misbehaving(misbehaviour)

    result = await cycle_with(neo4j_settings, profile_id, script, mode)
    assert result["run"]["status"] == "completed"
    assert result["counts"]["host_model_failed"] >= 1 and result["counts"]["host_model_phrased"] == 0
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {LinkGenerator.name}


async def test_a_2026_client_that_refuses_never_retries_and_nothing_is_written(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    """The SDK's client gives up on the whole call when one input request is refused: the first
    round, which asked, must have written nothing (no run, no dream)."""
    refusals = 0

    async def script(params: CreateMessageRequestParams) -> Answer:
        nonlocal refusals
        refusals += 1
        return await misbehaving("refusal")

    async with connected(neo4j_settings, profile_id, script, "auto") as client:
        with pytest.raises(MCPError, match="User rejected sampling request"):
            await client.call_tool("run_dreaming_cycle", {"max_outputs": 3})
        assert refusals >= 1
        assert structured(await client.call_tool("list_dream_runs", {}))["runs"] == []
        assert structured(await client.call_tool("list_dreams", {}))["dreams"] == []


@ERAS
async def test_a_client_without_sampling_is_never_asked_and_gets_the_deterministic_writer(
    neo4j_settings: ConnectionSettings, profile_id: str, mode: ConnectMode
) -> None:
    async with connected(neo4j_settings, profile_id, None, mode) as client:
        # Never an input request: the first round is the whole call, on either era.
        first = await client.session.call_tool(
            "run_dreaming_cycle", {"max_outputs": 3}, allow_input_required=True
        )
        assert isinstance(first, CallToolResult)
        result = await read_phase(client, first)
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {LinkGenerator.name}
    # The run says why the host's model wrote nothing; a client asked anyway would show as failed.
    assert {key for key in result["counts"] if key.startswith("host_model")} == {NOT_OFFERED}
    assert result["counts"][NOT_OFFERED] == 1
