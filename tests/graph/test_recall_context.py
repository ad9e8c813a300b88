"""Recall's conversational context against the real Neo4j and model: the turn said right after a
question recall chose is lifted toward it, within the profile and among live memories only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.retraction import retract
from graph.recall.models import RecallItem
from graph.recall.request import RecallRequest
from graph.recall.search import recall

pytestmark = pytest.mark.anyio

START = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)
QUESTION = "Caroline: Do you have any book recommendations for my trip to Spain next month?"
ANSWER = "Melanie: Oh, The Alchemist! A shepherd follows a dream across the desert, you'll love it."
ELSEWHERE = (
    "Caroline: My car broke down on the motorway and the tow truck took hours.",
    "Melanie: We painted the kids' room a pale green over the weekend.",
    "Caroline: The adoption agency called back about the home visit.",
    "Melanie: I ran my first half marathon in under two hours!",
    "Caroline: Our choir is rehearsing for the spring concert.",
    "Melanie: The pottery class made mugs this week, mine leaks a little.",
)
ASKED = RecallRequest(
    query="Which book did Melanie suggest to Caroline for the Spain trip?", limit=len(ELSEWHERE) + 2
)


async def said(graph: ProfileGraph, vectors: VectorKeeper, text: str, at: datetime) -> str:
    stored = await remember(graph, RememberRequest(content=text, occurred_at=at), vectors=vectors)
    return stored.fragment.id


async def conversation(graph: ProfileGraph, vectors: VectorKeeper, answer_after: timedelta) -> list[str]:
    """The question, its answer `answer_after` it, and other turns on other days: their ids,
    the answer's last."""
    ids = [
        await said(graph, vectors, text, START + timedelta(days=day * 3))
        for day, text in enumerate(ELSEWHERE, start=1)
    ]
    ids.append(await said(graph, vectors, QUESTION, START))
    return [*ids, await said(graph, vectors, ANSWER, START + answer_after)]


def found(results: list[RecallItem], memory_id: str) -> RecallItem | None:
    return next((item for item in results if item.id == memory_id), None)


async def test_the_answer_said_right_after_a_question_is_lifted_toward_it(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    *_, answer = await conversation(graph, vectors, timedelta(seconds=20))
    # The same words in another profile, the answer said days later: no exchange to read.
    *_, later = await conversation(other_graph, vectors, timedelta(days=2))

    together = (await recall(graph, ASKED, vectors=vectors)).results
    apart = (await recall(other_graph, ASKED, vectors=vectors)).results

    assert together[0].text == QUESTION and apart[0].text == QUESTION
    lifted, alone = found(together, answer), found(apart, later)
    assert lifted is not None and alone is not None
    assert "context" in lifted.lanes and "context" not in alone.lanes
    assert lifted.score > alone.score and together.index(lifted) <= apart.index(alone)


async def test_a_retracted_answer_is_not_brought_back_by_its_question(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    *_, answer = await conversation(graph, vectors, timedelta(seconds=20))
    await retract(graph, answer, "the person said Melanie never suggested it")
    results = (await recall(graph, ASKED, vectors=vectors)).results
    assert found(results, answer) is None and QUESTION in [item.text for item in results]


async def test_a_turn_of_another_profile_said_in_between_is_never_a_neighbour(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    ours = await conversation(graph, vectors, timedelta(minutes=2))
    # Closer to the question than its own answer, and about a book for the trip too.
    theirs = ANSWER.replace("The Alchemist", "Don Quixote")
    await said(other_graph, vectors, theirs, START + timedelta(seconds=5))
    results = (await recall(graph, ASKED, vectors=vectors)).results
    assert {item.id for item in results} <= set(ours)
    lifted = found(results, ours[-1])
    assert lifted is not None and "context" in lifted.lanes
