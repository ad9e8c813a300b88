"""A server plans recall's queries when it starts, through a profile it serves, so that the first
question does not wait on Neo4j's planner (graph/recall/warmup.py); a warm-up that fails only
leaves the planning to that first question."""

from __future__ import annotations

import logging

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings, GraphStore
from graph.recall.request import RecallRequest, search_terms
from graph.recall.warmup import WARM_UP
from server.app import build_server
from server.context import AppContext
from tests.server.conftest import settings_for, structured
from tests.server.support import database

pytestmark = pytest.mark.anyio

# The lexical search's query, found among the collected ones by a line only it has.
_LEXICAL_SEARCHES = """
CALL db.stats.retrieve('QUERIES') YIELD data
WHERE data.query CONTAINS 'queryNodes(search.index'
UNWIND data.invocations AS call
WITH call WHERE call.params.profile_id = $profile_id
RETURN call.params.terms AS terms ORDER BY call.startTimestampMillis
"""


async def test_the_warm_up_searches_before_the_first_question_and_logs_no_question(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    await database(neo4j_settings, "CALL db.stats.collect('QUERIES')")
    question = RecallRequest(query="Where does Ada swim on Sundays?")
    async with Client(build_server(settings_for(neo4j_settings, profile_id), "stdio")) as client:
        await client.call_tool("remember", {"content": "Ada swims at the lido on Sundays."})
        found = structured(await client.call_tool("recall_memory", {"query": question.query}))
        reflected = structured(await client.call_tool("reflect_memories", {}))

    searches = await database(neo4j_settings, _LEXICAL_SEARCHES, profile_id=profile_id)
    searched = [row["terms"] for row in searches]
    assert searched == [search_terms(WARM_UP), search_terms(question)]
    assert [item["text"] for item in found["results"]] == ["Ada swims at the lido on Sundays."]
    assert WARM_UP.query not in {asked["query"] for asked in reflected["recall"]["recent_questions"]}


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
