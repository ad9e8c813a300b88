"""Past runs as a person looks back on them: list_dream_runs and `reverie dream runs`."""

from __future__ import annotations

from datetime import datetime

import pytest
from mcp import Client

from graph.access import ConnectionSettings
from server.app import build_server
from tests.server.conftest import CallTool, error_text, reverie_in_process, settings_for, structured
from tests.server.support import remember_all

pytestmark = pytest.mark.anyio


async def test_runs_are_listed_newest_first_with_what_became_of_their_dreams(
    call: CallTool, client: Client, server_env: dict[str, str], profile_id: str
) -> None:
    await remember_all(call)
    first = await call("run_dreaming_cycle", max_outputs=2)
    dream_id = next(phase for phase in first["phases"] if phase["phase"] == "dream")["dream_ids"][0]
    await call("resolve_dream_feedback", dream_id=dream_id, decision="reject")
    second = await call("run_dreaming_cycle", max_outputs=2, dream_enabled=False)
    third = await call("run_dreaming_cycle", max_outputs=2)

    page = await call("list_dream_runs", limit=2)
    rest = await call("list_dream_runs", limit=2, cursor=page["next_cursor"])

    assert [entry["run"]["run_id"] for entry in page["runs"]] == [third["run_id"], second["run_id"]]
    assert [entry["run"]["run_id"] for entry in rest["runs"]] == [first["run_id"]]
    assert rest["next_cursor"] is None
    oldest = rest["runs"][0]
    # The later cycles' re-evaluation left the dream the person did not answer as it was: only the
    # person reinforces (issue 44).
    assert oldest["dreams"] == {"proposed": 1, "rejected": 1}
    stored = oldest["run"]
    took = datetime.fromisoformat(stored["completed_at"]) - datetime.fromisoformat(stored["started_at"])
    assert oldest["duration_s"] == round(took.total_seconds(), 3)
    assert oldest["run"]["trigger"] == "manual" and oldest["run"]["status"] == "completed"
    assert [phase["phase"] for phase in oldest["run"]["phases"]] == ["reflect", "re_evaluate", "dream"]
    assert "cursor is not one this server issued" in error_text(
        await client.call_tool("list_dream_runs", {"cursor": "not-a-cursor"})
    )

    printed = await reverie_in_process(server_env, "dream", "runs", "--profile", profile_id, "--limit", "1")
    assert printed.returncode == 0, printed.stderr
    assert third["run_id"] in printed.stdout and "next page: --cursor" in printed.stdout


async def test_another_profile_sees_none_of_the_runs(
    call: CallTool, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    await remember_all(call)
    await call("run_dreaming_cycle", max_outputs=2)
    other = build_server(settings_for(neo4j_settings, profile_id + "-other"), "stdio")
    async with Client(other) as stranger:
        assert structured(await stranger.call_tool("list_dream_runs", {}))["runs"] == []
    assert len((await call("list_dream_runs"))["runs"]) == 1
