"""Recall's date lane against the real Neo4j and model: a question that names a day prefers what
was said that day, reads only its own profile's live fragments, and changes nothing when the day
holds nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.retraction import retract
from graph.recall.request import RecallRequest
from graph.recall.search import recall

pytestmark = pytest.mark.anyio

THAT_DAY = datetime(2023, 10, 13, 16, 0, tzinfo=UTC)
# Said that day: it answers the question below, sharing almost none of its words.
SHOWN = "Melanie: Here's the one I finished last night, sunflowers over the lake at dusk."
# Said in other months, each sharing more of the question's words.
OTHER_DAYS = (
    "Caroline: Melanie, your painting of the old barn is my favourite thing you showed me.",
    "Melanie: I showed Caroline my painting class schedule for the autumn.",
    "Caroline: Which painting did you show at the fair, Melanie?",
)
ASKED = RecallRequest(query="What painting did Melanie show to Caroline on October 13, 2023?", limit=4)


async def said(graph: ProfileGraph, vectors: VectorKeeper, text: str, at: datetime) -> str:
    stored = await remember(graph, RememberRequest(content=text, occurred_at=at), vectors=vectors)
    return stored.fragment.id


async def days_of_painting(graph: ProfileGraph, vectors: VectorKeeper) -> str:
    """The turns above, each on a day of its own; the id of the one said on the day asked about."""
    for months, text in enumerate(OTHER_DAYS, start=1):
        await said(graph, vectors, text, THAT_DAY - timedelta(days=30 * months))
    return await said(graph, vectors, SHOWN, THAT_DAY)


async def test_what_was_said_on_the_day_named_comes_first(graph: ProfileGraph, vectors: VectorKeeper) -> None:
    shown = await days_of_painting(graph, vectors)
    undated = RecallRequest(query="What painting did Melanie show to Caroline?", limit=4)
    without_the_day = [item.id for item in (await recall(graph, undated, vectors=vectors)).results]

    results = (await recall(graph, ASKED, vectors=vectors)).results

    assert without_the_day.index(shown) > 0
    assert results[0].id == shown and "date" in results[0].lanes
    assert all("date" not in item.lanes for item in results[1:])


async def test_only_the_profiles_own_live_turns_of_that_day_are_read(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    shown = await days_of_painting(graph, vectors)
    theirs = await said(other_graph, vectors, SHOWN.replace("sunflowers", "poppies"), THAT_DAY)
    await retract(graph, shown, "the person said Melanie showed nothing that day")

    results = (await recall(graph, ASKED, vectors=vectors)).results

    assert {shown, theirs}.isdisjoint(item.id for item in results)
    assert all("date" not in item.lanes for item in results)


async def test_a_day_that_holds_nothing_changes_no_ranking(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await days_of_painting(graph, vectors)
    empty_day = RecallRequest(query="What painting did Melanie show to Caroline on 2 January 2021?", limit=4)
    plain = RecallRequest(query="What painting did Melanie show to Caroline?", limit=4)

    named = (await recall(graph, empty_day, vectors=vectors)).results
    unnamed = (await recall(graph, plain, vectors=vectors)).results

    assert [item.id for item in named] == [item.id for item in unnamed]
    assert all("date" not in item.lanes for item in named)
