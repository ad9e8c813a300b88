"""Recall signals through the tools, against the real Neo4j: what recall returned, how often and
to which questions shows in reflect_memories, and only in the recalling profile's."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.server.conftest import CallTool, signals_once_written, structured

pytestmark = pytest.mark.anyio

BIKE = "Ada commutes by bicycle along the canal."
OTHERS = ("Ada loves Sichuan noodles.", "Ada has a brother studying in Porto.")


async def test_reflect_shows_the_most_recalled_memories_and_the_questions_asked(
    call: CallTool, other_client: Client
) -> None:
    bike = (await call("remember", content=BIKE))["fragment"]["id"]
    for text in OTHERS:
        await call("remember", content=text)
    questions = ["How does Ada get to the office?", "Does Ada cycle along the canal?"]
    answers = [await call("recall_memory", query=question, limit=1) for question in questions]
    assert [answer["results"][0]["id"] for answer in answers] == [bike, bike]

    signals = await signals_once_written(call, len(questions))

    [most] = signals["most_recalled"]
    assert (most["id"], most["kind"], most["text"], most["recall_count"]) == (bike, "fragment", BIKE, 2)
    assert most["last_recalled_at"] == signals["recent_questions"][0]["at"]
    assert [(asked["query"], asked["memory_ids"]) for asked in signals["recent_questions"]] == [
        (questions[1], [bike]),
        (questions[0], [bike]),
    ]
    theirs = structured(await other_client.call_tool("reflect_memories", {}))["recall"]
    assert theirs == {"most_recalled": [], "recent_questions": []}


async def test_questions_that_returned_a_forgotten_memory_go_with_it_logged_or_still_queued(
    call: CallTool,
) -> None:
    said = await call("remember", content="Ada was diagnosed with Lyme disease in May.")
    diagnosis = said["fragment"]["id"]
    bike = (await call("remember", content=BIKE))["fragment"]["id"]
    await call("recall_memory", query="What was Ada diagnosed with?", limit=1)
    await call("recall_memory", query="How does Ada get to the office?", limit=1)
    logged = await signals_once_written(call, 2)
    assert [asked["memory_ids"] for asked in logged["recent_questions"]] == [[bike], [diagnosis]]

    # One question is logged already; the next is still queued (written half a second later).
    await call("recall_memory", query="Is Ada's Lyme disease treated?", limit=1)
    await call("forget_memory", ids=[diagnosis])
    await call("recall_memory", query="Does Ada cycle along the canal?", limit=1)
    signals = await signals_once_written(call, 2)

    assert [asked["query"] for asked in signals["recent_questions"]] == [
        "Does Ada cycle along the canal?",
        "How does Ada get to the office?",
    ]
    assert "Lyme" not in str(signals)
