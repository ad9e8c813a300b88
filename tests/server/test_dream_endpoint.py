"""The model endpoint of the person's choosing, through the MCP tools: a scripted OpenAI-compatible
server on 127.0.0.1 writes dreams for clients without sampling, checks claims when asked to, and
fails over to the deterministic writer; its key shows nowhere."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp_types import CreateMessageRequestParams, CreateMessageResult
from pydantic import SecretStr

from graph.access import ConnectionSettings, ProfileGraph
from graph.dreams.generator import LinkGenerator
from graph.dreams.runs import latest_run_writers
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember
from graph.models.endpoint import MAX_ANSWER_BYTES
from server.app import build_server
from server.settings import ReverieSettings
from tests.scripted_endpoint import (
    ANSWERING_MODEL,
    KEY,
    Received,
    Reply,
    Script,
    ScriptedEndpoint,
    completion,
    error,
    padded,
    scripted_endpoint,
)
from tests.server.conftest import reverie, settings_for, structured
from tests.server.support import MEMORIES, claim_of
from tests.server.test_dream_sampling import CLEANED_MODEL, FORGED_MODEL, judged, text_answer

pytestmark = pytest.mark.anyio
TIMEOUT = 1.0
# Sarcasm without a set phrase of irony ("said no one ever" is read by the floor itself): the
# rule-based floor (sentence-v1) reads it as liking jazz; a model should not.
SARCASTIC = "I love jazz. Nothing says relaxing like a twenty-minute drum solo at 2am."


def answers(received: Received) -> Reply:
    """A model that does its job: phrases every dream, reads every claim as not stated."""
    if "worth_asking" in received.prompt:
        return completion(judged(True))
    return completion(json.dumps({"claims": [{"number": 1, "states": False, "why": "sarcasm"}]}))


def endpoint_settings(
    neo4j: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint, **extra: Any
) -> ReverieSettings:
    return settings_for(neo4j, profile_id).model_copy(
        update={
            "reverie_model_url": endpoint.url,
            "reverie_model_name": "configured-model",
            "reverie_model_key": SecretStr(KEY),
            "reverie_model_timeout": TIMEOUT,
            **extra,
        }
    )


@pytest.fixture
def script() -> Script:
    return answers


@pytest.fixture
def endpoint(script: Script) -> Iterator[ScriptedEndpoint]:
    with scripted_endpoint(script) as served:
        yield served


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every record, debug included (the HTTP client's traces among them)."""
    caplog.set_level(logging.DEBUG)
    return caplog


async def endpoint_cycle(
    neo4j: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint
) -> dict[str, Any]:
    """A cycle of a client without sampling, on a server with the scripted endpoint configured."""
    async with Client(build_server(endpoint_settings(neo4j, profile_id, endpoint), "stdio")) as client:
        return await dream_cycle(client)


async def dream_cycle(client: Client) -> dict[str, Any]:
    for text in MEMORIES:
        structured(await client.call_tool("remember", {"content": text}))
    run = structured(await client.call_tool("run_dreaming_cycle", {"max_outputs": 3}))
    phase = next(p for p in run["phases"] if p["phase"] == "dream")
    dreams = [structured(await client.call_tool("get_dream", {"dream_id": i})) for i in phase["dream_ids"]]
    status = await client.call_tool("dreaming_status", {})
    return {"counts": phase["counts"], "dreams": dreams, "status": structured(status), "raw": status}


async def test_a_client_without_sampling_gets_the_endpoints_words(
    neo4j_settings: ConnectionSettings,
    profile_id: str,
    endpoint: ScriptedEndpoint,
    logs: pytest.LogCaptureFixture,
) -> None:
    result = await endpoint_cycle(neo4j_settings, profile_id, endpoint)
    writer = f"endpoint:{ANSWERING_MODEL}"
    assert result["counts"]["host_model_phrased"] == len(endpoint.received) >= 1
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {writer}
    assert result["dreams"][0]["hypothesis"].startswith("The sourdough starter Herbert")
    assert f"the model at the configured endpoint ({ANSWERING_MODEL})" in result["dreams"][0]["rationale"]
    routes = result["status"]["routes"]
    assert routes == {
        "host_tools": True,
        "sampling": False,
        "endpoint": "configured-model",
        "deterministic": True,
        "last_cycle_writers": {writer: len(result["dreams"])},
    }
    assert all(sent.headers["Authorization"] == f"Bearer {KEY}" for sent in endpoint.received)
    assert KEY not in result["raw"].model_dump_json() and KEY not in logs.text


@pytest.mark.parametrize("script", [lambda _: completion(judged(True), model=FORGED_MODEL)])
async def test_the_endpoint_models_name_is_kept_as_one_clean_line(
    neo4j_settings: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint
) -> None:
    result = await endpoint_cycle(neo4j_settings, profile_id, endpoint)
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {f"endpoint:{CLEANED_MODEL}"}
    assert f"configured endpoint ({CLEANED_MODEL});" in result["dreams"][0]["rationale"]


MISBEHAVIOURS: dict[str, Reply] = {
    "server error": error(500),
    "rate limited": error(429),
    "slow": Reply(body=completion(judged(True)).body, delay=TIMEOUT * 3),
    "garbage": Reply(body=b"\x00\xffnot json"),
    "dropped connection": Reply(drop=True),
    "prose instead of JSON": completion("These two memories are both about bread."),
    "larger than an answer may be": padded(judged(True), 2 * MAX_ANSWER_BYTES, chunked=True),
}


@pytest.mark.parametrize(
    "script", [lambda _, r=r: r for r in MISBEHAVIOURS.values()], ids=list(MISBEHAVIOURS)
)
async def test_a_misbehaving_endpoint_falls_back_to_the_deterministic_writer(
    neo4j_settings: ConnectionSettings,
    profile_id: str,
    endpoint: ScriptedEndpoint,
    logs: pytest.LogCaptureFixture,
) -> None:
    result = await endpoint_cycle(neo4j_settings, profile_id, endpoint)
    assert result["counts"]["host_model_failed"] >= 1 and result["counts"]["host_model_phrased"] == 0
    assert result["dreams"] and {d["generator"] for d in result["dreams"]} == {LinkGenerator.name}
    assert result["status"]["routes"]["last_cycle_writers"] == {LinkGenerator.name: len(result["dreams"])}
    assert KEY not in logs.text


async def test_a_client_that_offers_sampling_is_preferred_to_the_endpoint(
    neo4j_settings: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint
) -> None:
    async def sampling(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        return text_answer(judged(True))

    settings = endpoint_settings(neo4j_settings, profile_id, endpoint)
    async with Client(build_server(settings, "stdio"), sampling_callback=sampling, mode="legacy") as client:
        result = await dream_cycle(client)
    assert endpoint.received == []
    assert {d["generator"] for d in result["dreams"]} == {"host-model:scripted-model"}
    routes = result["status"]["routes"]
    assert routes["sampling"] is True and routes["endpoint"] == "configured-model"


async def test_without_an_endpoint_the_status_says_so(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    async with Client(build_server(settings_for(neo4j_settings, profile_id), "stdio")) as client:
        routes = structured(await client.call_tool("dreaming_status", {}))["routes"]
    assert routes == {
        "host_tools": True,
        "sampling": False,
        "endpoint": None,
        "deterministic": True,
        "last_cycle_writers": {},
    }


async def remember_sarcastic(settings: ReverieSettings) -> dict[str, Any]:
    async with Client(build_server(settings, "stdio")) as client:
        result = await client.call_tool(
            "remember", {"content": SARCASTIC, "claims": [claim_of("likes", "jazz")]}
        )
    [claim] = structured(result)["claims"]
    return dict(claim)


async def test_sarcasm_is_not_promoted_when_the_endpoint_checks_claims(
    neo4j_settings: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint
) -> None:
    floor_only = await remember_sarcastic(settings_for(neo4j_settings, f"{profile_id}-floor"))
    assert (floor_only["verdict"], floor_only["outcome"]) == ("entailed", "promoted")

    checked = await remember_sarcastic(
        endpoint_settings(neo4j_settings, profile_id, endpoint, reverie_model_verify=True)
    )
    assert (checked["verdict"], checked["outcome"]) == ("insufficient", "not_validated")
    assert checked["verifier"] == f"sentence-v1+{ANSWERING_MODEL}" and checked["fact"] is None
    [sent] = endpoint.received
    assert "1. user likes jazz" in sent.prompt


async def test_claims_are_checked_by_the_endpoint_only_when_asked_to(
    neo4j_settings: ConnectionSettings, profile_id: str, endpoint: ScriptedEndpoint
) -> None:
    claim = await remember_sarcastic(endpoint_settings(neo4j_settings, profile_id, endpoint))
    assert claim["verdict"] == "entailed" and endpoint.received == []


async def test_a_cycle_run_from_the_command_line_gets_the_endpoints_words(
    graph: ProfileGraph, vectors: VectorKeeper, server_env: dict[str, str], endpoint: ScriptedEndpoint
) -> None:
    for text in MEMORIES:
        await remember(graph, RememberRequest(content=text), vectors=vectors)
    await vectors.settled(graph)
    env = {**server_env, "REVERIE_MODEL_URL": endpoint.url, "REVERIE_MODEL_NAME": "configured-model"}
    finished = await reverie(
        env, "dream", "run", "--profile", graph.profile_id, "--json", "--max-outputs", "3"
    )
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["status"] == "completed"
    writers = await latest_run_writers(graph)
    assert list(writers) == [f"endpoint:{ANSWERING_MODEL}"] and len(endpoint.received) >= 1
