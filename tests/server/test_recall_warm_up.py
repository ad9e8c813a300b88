"""A server plans recall's queries when it starts, through a profile it serves, so that the first
question does not wait on Neo4j's planner (graph/recall/warmup.py): the first recall waits for
the warm-up instead of planning beside it, and the warm-up's own question is logged nowhere. A
warm-up that fails only leaves the planning to that first question."""

from __future__ import annotations

import logging

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings, GraphStore
from server.app import build_server
from server.context import AppContext
from tests.server.conftest import caller, settings_for, signals_once_written, structured

pytestmark = pytest.mark.anyio


async def test_the_first_recall_waits_for_the_plans_and_the_warm_up_logs_no_question(
    caplog: pytest.LogCaptureFixture, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    with caplog.at_level(logging.INFO, logger="server.context"):
        async with Client(build_server(settings_for(neo4j_settings, profile_id), "stdio")) as client:
            await client.call_tool("remember", {"content": "Ada swims at the lido on Sundays."})
            found = structured(await client.call_tool("recall_memory", {"query": "Where does Ada swim?"}))
            planned = [r.getMessage() for r in caplog.records if r.name == "server.context"]
            signals = await signals_once_written(caller(client), recalls=1)

    [message] = planned
    assert message.startswith("recall's queries planned in ")
    assert [item["text"] for item in found["results"]] == ["Ada swims at the lido on Sundays."]
    assert [asked["query"] for asked in signals["recent_questions"]] == ["Where does Ada swim?"]


async def test_a_warm_up_that_fails_is_logged_and_keeps_no_recall_waiting(
    caplog: pytest.LogCaptureFixture, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    nowhere = ConnectionSettings("bolt://127.0.0.1:9", neo4j_settings.username, neo4j_settings.password)
    store = GraphStore.connect(nowhere)
    context = AppContext(settings=settings_for(nowhere, profile_id), store=store, transport="stdio")
    try:
        with caplog.at_level(logging.WARNING, logger="server.context"):
            await context.plan_recall(profile_id)
        # Bounded well below the call deadline (15 s) that recall_planned would otherwise wait out.
        with anyio.fail_after(5):
            await context.recall_planned()
    finally:
        await store.close()
    [record] = [r for r in caplog.records if r.name == "server.context"]
    assert record.getMessage() == "recall's query plans were not made ahead of the first recall"
    assert record.exc_info is not None
