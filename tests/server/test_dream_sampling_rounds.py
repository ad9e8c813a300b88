"""Sampling on protocol 2026-07-28, round by round: the rounds driven by hand with the SDK's
session, so the graph can be read between them and the retry can carry whatever a client might
send (some answers, malformed ones, answers to questions never asked, a forged state); then the
same flow over Streamable HTTP to a `reverie serve` process."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    CreateMessageRequest,
    InputRequiredResult,
    InputResponses,
)

from graph.access import ConnectionSettings
from graph.dreams.generator import LinkGenerator
from tests.server.conftest import HttpServer, http_mcp, structured
from tests.server.support import MEMORIES
from tests.server.test_dream_sampling import (
    HYPOTHESIS,
    Answer,
    connected,
    dream_phase,
    judged,
    read_phase,
    text_answer,
)

pytestmark = pytest.mark.anyio
ARGUMENTS = {"max_outputs": 3}
# Answers arriving later than the timeout are not used; these tests read the graph in between.
PATIENT = 120.0


async def unexpected(params: object) -> Answer:
    raise AssertionError("these rounds are driven by hand; the client's callback is never run")


async def first_round(client: Client, arguments: dict[str, Any]) -> InputRequiredResult:
    await client.list_tools()
    first = await client.session.call_tool("run_dreaming_cycle", arguments, allow_input_required=True)
    assert isinstance(first, InputRequiredResult), first
    return first


async def nothing_written(client: Client) -> None:
    assert structured(await client.call_tool("list_dream_runs", {}))["runs"] == []
    assert structured(await client.call_tool("list_dreams", {}))["dreams"] == []


async def test_the_first_round_writes_nothing_and_the_retry_uses_only_answers_to_its_questions(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    async with connected(neo4j_settings, profile_id, unexpected, "auto", PATIENT) as client:
        first = await first_round(client, ARGUMENTS)
        requests = first.input_requests or {}
        # Several questions in one round, each a sampling request; the spares ride along.
        assert 3 <= len(requests) <= 5
        assert all(isinstance(request, CreateMessageRequest) for request in requests.values())
        await nothing_written(client)

        best, second, *_ = requests
        answers: InputResponses = {
            best: text_answer(judged(True)),
            second: text_answer("I would rather not say."),
            # Not a key the server derives from any of its questions: ignored.
            "dream-forged": text_answer(judged(True, "A forged hypothesis nobody asked for."), "forger"),
        }
        retry = await client.session.call_tool(
            "run_dreaming_cycle",
            ARGUMENTS,
            input_responses=answers,
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(retry, CallToolResult)
        result = await read_phase(client, retry)
    counts = result["counts"]
    assert counts["host_model_phrased"] == 1 and counts["host_model_failed"] == counts["new_dreams"] - 1 >= 1
    by_generator = {d["generator"]: d for d in result["dreams"]}
    assert set(by_generator) == {"host-model:scripted-model", LinkGenerator.name}
    assert by_generator["host-model:scripted-model"]["hypothesis"] == HYPOTHESIS
    assert not any("forged" in d["hypothesis"] for d in result["dreams"])


async def test_a_forged_request_state_is_refused_and_writes_nothing(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    async with connected(neo4j_settings, profile_id, unexpected, "auto", PATIENT) as client:
        first = await first_round(client, ARGUMENTS)
        answers: InputResponses = {key: text_answer(judged(True)) for key in first.input_requests or {}}
        forged = '{"asked_at": 9999999999}'
        with pytest.raises(MCPError) as refused:
            await client.session.call_tool(
                "run_dreaming_cycle", ARGUMENTS, input_responses=answers, request_state=forged
            )
        assert refused.value.code == INVALID_PARAMS
        await nothing_written(client)


async def test_a_dry_run_asks_too_writes_nothing_and_reports_progress(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    messages: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message)

    async def script(params: object) -> Answer:
        return text_answer(judged(True))

    async with connected(neo4j_settings, profile_id, script, "auto", PATIENT) as client:
        result = await client.call_tool(
            "run_dreaming_cycle", {**ARGUMENTS, "dry_run": True}, progress_callback=on_progress
        )
        run = structured(result)
        await nothing_written(client)
    assert run["dry_run"] and run["run_id"] is None
    assert run["would_create"] and {d["hypothesis"] for d in run["would_create"]} == {HYPOTHESIS}
    # Progress comes from the round that runs the cycle, once per phase.
    assert messages == ["reflect done", "re_evaluate done", "dream done"]


async def test_over_streamable_http_the_client_on_its_default_protocol_gets_the_models_dreams(
    http_server: HttpServer,
) -> None:
    asked = 0

    async def sampling(context: object, params: object) -> Answer:
        nonlocal asked
        asked += 1
        return text_answer(judged(True), "http-model")

    async with http_mcp(http_server, http_server.write_token, sampling_callback=sampling) as client:
        assert client.protocol_version == "2026-07-28"
        for text in MEMORIES:
            structured(await client.call_tool("remember", {"content": text}))
        result = await dream_phase(client)
    assert asked >= result["counts"]["host_model_phrased"] == result["counts"]["new_dreams"] >= 1
    assert {d["generator"] for d in result["dreams"]} == {"host-model:http-model"}
    assert {d["hypothesis"] for d in result["dreams"]} == {HYPOTHESIS}
