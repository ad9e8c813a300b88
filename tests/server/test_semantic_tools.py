"""Semantic memory as a host and an operator meet it: the tools, the settings, a broken model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from graph.access import ConnectionSettings, ProfileGraph
from graph.embedding.catalog import DEFAULT_MODEL, LANGCHAIN4J_VERSION, MODELS
from graph.embedding.encoder import Embedder
from graph.embedding.loader import load_embedder
from graph.embedding.provision import ModelUnavailableError, installed_files
from graph.embedding.status import semantic_status
from graph.localdb import LocalNeo4j
from graph.memory.pipeline import RememberRequest, remember
from graph.schema import VECTOR_DIMENSIONS
from server.app import build_server
from server.settings import SettingsError, load_settings
from tests.server.conftest import CallTool, reverie_in_process, run_reverie, settings_for, structured

pytestmark = pytest.mark.anyio


async def test_recall_memory_finds_a_paraphrase_and_keeps_when_it_was_said(call: CallTool) -> None:
    said = "2023-05-08T13:56:00Z"
    await call("remember", content="We adopted a puppy named Biscuit last spring.", occurred_at=said)
    await call("remember", content="I drive a blue hatchback to the office every morning.")

    found = await call("recall_memory", query="Does the person own a dog?", limit=2)
    status = await call("dreaming_status")

    first = found["results"][0]
    assert (first["text"], first["lanes"]) == ("We adopted a puppy named Biscuit last spring.", ["semantic"])
    assert first["occurred_at"].startswith("2023-05-08T13:56:00")
    assert status["semantic"] == {
        "enabled": True,
        "model": MODELS[DEFAULT_MODEL].model_id,
        "embedded": 2,
        "pending": 0,
        "pending_by_kind": {"fragment": 0, "claim": 0, "fact": 0, "dream": 0},
        "backfill": status["semantic"]["backfill"],  # the server's own: tests/server/test_vector_healing.py
        "backfilled": 0,
    }


async def test_with_the_semantic_lane_off_recall_is_lexical_and_status_says_so(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    settings = settings_for(neo4j_settings, profile_id).model_copy(update={"reverie_embedding_model": "off"})
    async with Client(build_server(settings, "stdio")) as client:
        await client.call_tool("remember", {"content": "We adopted a puppy named Biscuit last spring."})
        paraphrase = structured(
            await client.call_tool("recall_memory", {"query": "Does the person own a dog?"})
        )
        by_word = structured(await client.call_tool("recall_memory", {"query": "puppy"}))
        status = structured(await client.call_tool("dreaming_status", {}))

    assert paraphrase["results"] == []
    assert [item["lanes"] for item in by_word["results"]] == [["lexical"]]
    assert (status["semantic"]["enabled"], status["semantic"]["model"], status["semantic"]["pending"]) == (
        False,
        None,
        1,
    )


@pytest.mark.unit
def test_an_unknown_model_name_stops_the_start_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVERIE_EMBEDDING_MODEL", "word2vec")

    with pytest.raises(SettingsError, match=r"REVERIE_EMBEDDING_MODEL.*e5-small-v2.*off"):
        load_settings()


def broken_model_home(home: Path) -> Path:
    """A REVERIE_HOME whose default model is marked installed but whose ONNX file is garbage."""
    spec = MODELS[DEFAULT_MODEL]
    folder = home / "models" / spec.name / LANGCHAIN4J_VERSION
    folder.mkdir(parents=True)
    (folder / spec.onnx_file).write_bytes(b"not an onnx graph")
    (folder / spec.tokenizer_file).write_text("{}", encoding="utf-8")
    (folder / "installed.json").write_text(json.dumps({"model": spec.model_id}), encoding="utf-8")
    assert installed_files(home, spec) is not None
    return folder


@pytest.mark.unit
def test_a_model_that_cannot_load_is_a_clear_error_naming_the_fix(tmp_path: Path) -> None:
    folder = broken_model_home(tmp_path)

    with pytest.raises(ModelUnavailableError, match="reverie embeddings install") as raised:
        load_embedder(tmp_path, DEFAULT_MODEL)
    assert str(folder) in str(raised.value)


def test_the_server_refuses_to_start_with_a_broken_model(server_env: dict[str, str], tmp_path: Path) -> None:
    broken_model_home(tmp_path)

    finished = run_reverie({**server_env, "REVERIE_HOME": str(tmp_path)}, "serve", timeout=60)

    assert finished.returncode == 2
    assert "reverie embeddings install" in finished.stderr
    assert "Traceback" not in finished.stderr


async def test_every_model_makes_vectors_the_size_the_index_holds(embedder: Embedder) -> None:
    for name, spec in MODELS.items():
        model = embedder if name == DEFAULT_MODEL else None
        if model is None and installed_files(LocalNeo4j.default_home(), spec) is not None:
            model = load_embedder(LocalNeo4j.default_home(), name)
        if model is not None:
            vector = await model.query("a short question", "t-dimensions")
            assert len(vector) == spec.dimensions == VECTOR_DIMENSIONS
            assert abs(sum(value * value for value in vector) - 1.0) < 1e-4


async def test_the_backfill_command_embeds_what_an_old_graph_lacks(
    server_env: dict[str, str], graph: ProfileGraph, embedder: Embedder
) -> None:
    for text in ("We adopted a puppy named Biscuit last spring.", "I drive a blue hatchback."):
        await remember(graph, RememberRequest(content=text))  # stored before vectors existed

    async def embeddings(*arguments: str) -> subprocess.CompletedProcess[str]:
        return await reverie_in_process(server_env, "embeddings", *arguments, "--profile", graph.profile_id)

    before = await embeddings("status")
    filled = await embeddings("backfill")
    after = await embeddings("status")

    assert before.returncode == filled.returncode == after.returncode == 0, filled.stderr
    assert f"{graph.profile_id}: 0 embedded with {embedder.model_id}, 2 pending" in before.stdout
    assert f"{graph.profile_id}: 2 embedded with {embedder.model_id}, 0 pending" in after.stdout
    assert (await semantic_status(graph, embedder)).pending == 0
