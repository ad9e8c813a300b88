"""`reverie profile export|import`: a round trip is identical, a second import changes nothing,
a bad file is refused by line and imports nothing."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings
from server.app import build_server
from tests.server.conftest import CallTool, reverie_in_process, settings_for, structured
from tests.server.support import ANY_NODE, database, fill

pytestmark = pytest.mark.anyio


async def export(env: dict[str, str], profile_id: str, path: Path, *flags: str) -> list[str]:
    done = await reverie_in_process(env, "profile", "export", profile_id, "--output", str(path), *flags)
    assert done.returncode == 0, done.stderr
    lines = (await anyio.Path(path).read_text(encoding="utf-8")).splitlines()
    assert json.loads(lines[0])["profile_id"] == profile_id
    # Without the header, which carries the export's time, and the closing line, which hashes it.
    return lines[1:-1]


async def test_a_profile_exported_erased_and_imported_is_identical(
    call: CallTool,
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:
    await fill(call)
    async with Client(build_server(settings_for(neo4j_settings, profile_id + "-next"), "stdio")) as other:
        structured(await other.call_tool("remember", {"content": "My neighbour's secret is Zephyrine."}))
    first = await export(server_env, profile_id, tmp_path / "first.jsonl", "--embeddings")
    assert "Zephyrine" not in "".join(first)  # another profile's memories never leave with this one
    assert await export(server_env, profile_id, tmp_path / "again.jsonl", "--embeddings") == first
    erased = await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")
    assert erased.returncode == 0, erased.stderr

    imported = await reverie_in_process(
        server_env, "profile", "import", str(tmp_path / "first.jsonl"), "--profile", profile_id
    )
    assert imported.returncode == 0, imported.stderr
    twice = await reverie_in_process(
        server_env, "profile", "import", str(tmp_path / "first.jsonl"), "--profile", profile_id
    )
    assert twice.returncode == 0, twice.stderr

    assert await export(server_env, profile_id, tmp_path / "back.jsonl", "--embeddings") == first
    found = await call("recall_memory", query="Where did the person go running?")
    assert "semantic" in {lane for item in found["results"] for lane in item["lanes"]}
    assert (await call("dreaming_status"))["semantic"]["pending"] == 0
    assert (await call("reflect_memories"))["counts"]["open_clarifications"] == 1


async def test_without_embeddings_the_memories_await_a_backfill_elsewhere(
    call: CallTool,
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:
    await call("remember", content="I keep bees on the roof of our flat.")
    # Recall waits for the vectors the server queued; otherwise one written late would land on
    # the re-imported node (same id), which this test expects to lack its vector.
    await call("recall_memory", query="bees")
    lines = await export(server_env, profile_id, tmp_path / "plain.jsonl")
    assert all(json.loads(line).get("embedding") is None for line in lines)
    await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")

    imported = await reverie_in_process(
        server_env, "profile", "import", str(tmp_path / "plain.jsonl"), "--profile", profile_id
    )

    assert imported.returncode == 0, imported.stderr
    assert "reverie embeddings backfill" in imported.stdout
    assert (await call("dreaming_status"))["semantic"]["pending"] == 1
    assert len((await call("recall_memory", query="bees roof"))["results"]) == 1


NOWHERE = {"edge": "SUPPORTED_BY", "from": ["Claim", "c"], "to": ["SourceFragment", "gone"]}
PROFILE_INSIDE = {"node": "SourceFragment", "properties": {"id": "x", "profile_id": "bob"}, "embedding": None}
BAD_LINES = {
    "not JSON": "{not json",
    "an unknown kind": json.dumps({"node": "Secret", "properties": {"id": "x"}, "embedding": None}),
    "a profile id inside": json.dumps(PROFILE_INSIDE),
    "a relationship to nowhere": json.dumps(NOWHERE),
}


@pytest.mark.parametrize("case", list(BAD_LINES), ids=list(BAD_LINES))
async def test_a_bad_line_is_refused_by_number_and_nothing_is_imported(
    case: str, call: CallTool, server_env: dict[str, str], profile_id: str, tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:  # fmt: skip
    await call("remember", content="I keep bees on the roof of our flat.")
    lines = await export(server_env, profile_id, tmp_path / "good.jsonl")
    header = (tmp_path / "good.jsonl").read_text(encoding="utf-8").splitlines()[0]
    bad = BAD_LINES[case]
    (tmp_path / "bad.jsonl").write_text(
        "\n".join([header, lines[0], bad, *lines[1:]]) + "\n", encoding="utf-8"
    )
    target = profile_id + "-copy"

    refused = await reverie_in_process(
        server_env, "profile", "import", str(tmp_path / "bad.jsonl"), "--profile", target
    )

    assert refused.returncode == 2 and "line 3" in refused.stderr and "Nothing was imported" in refused.stderr
    assert (await database(neo4j_settings, ANY_NODE, profile_id=target))[0]["nodes"] == 0


async def test_ids_another_profile_holds_are_refused_before_anything_is_written(
    call: CallTool,
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:
    await call("remember", content="I keep bees on the roof of our flat.")
    await export(server_env, profile_id, tmp_path / "mine.jsonl")
    target = profile_id + "-copy"

    refused = await reverie_in_process(
        server_env, "profile", "import", str(tmp_path / "mine.jsonl"), "--profile", target
    )

    assert refused.returncode == 2 and "belong to another profile" in refused.stderr
    assert (await database(neo4j_settings, ANY_NODE, profile_id=target))[0]["nodes"] == 0
    async with Client(build_server(settings_for(neo4j_settings, target), "stdio")) as other:
        assert structured(await other.call_tool("recall_memory", {"query": "bees"}))["results"] == []
