"""`reverie profile list|delete` as an operator runs them, checked in the database itself."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from graph.access import ConnectionSettings
from server.app import build_server
from tests.server.conftest import CallTool, reverie_in_process, settings_for, structured
from tests.server.support import ANY_NODE, MEMORIES, database, fill

pytestmark = pytest.mark.anyio


async def test_a_profile_is_listed_then_erased_whole_and_only_with_yes(
    call: CallTool, server_env: dict[str, str], profile_id: str, neo4j_settings: ConnectionSettings
) -> None:
    await fill(call)
    neighbour = profile_id + "-next"
    async with Client(build_server(settings_for(neo4j_settings, neighbour), "stdio")) as other:
        structured(await other.call_tool("remember", {"content": "I keep bees on the roof."}))

    listed = await reverie_in_process(server_env, "profile", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    counts = {entry["profile_id"]: entry["counts"] for entry in json.loads(listed.stdout)}
    mine = counts[profile_id]
    assert (mine["fragments"], mine["facts"], mine["clarifications"], mine["forgotten"]) == (
        len(MEMORIES) + 2,
        1,
        1,
        1,
    )
    assert mine["dreams"] >= 1 and mine["runs"] == 1 and counts[neighbour]["fragments"] == 1

    refused = await reverie_in_process(server_env, "profile", "delete", profile_id)
    assert refused.returncode == 2 and "Nothing was deleted" in refused.stderr and "--yes" in refused.stderr
    before = (await database(neo4j_settings, ANY_NODE, profile_id=profile_id))[0]["nodes"]
    assert before == mine["nodes"] > 0

    erased = await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")

    assert erased.returncode == 0, erased.stderr
    assert f"Erased profile {profile_id}" in erased.stdout
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id))[0]["nodes"] == 0
    assert (await call("recall_memory", query="Lisbon marathon"))["results"] == []
    async with Client(build_server(settings_for(neo4j_settings, neighbour), "stdio")) as other:
        found = structured(await other.call_tool("recall_memory", {"query": "bees roof"}))
        assert len(found["results"]) == 1
    again = await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")
    assert again.returncode == 2 and "No profile" in again.stderr
