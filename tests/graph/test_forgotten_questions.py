"""What a person forgets leaves no question's vector in the process: a forget or an erase of a
profile drops the vectors of its questions that recall kept (`QueryVectors`), at once and only
its own; other processes let theirs expire (tests/graph/test_encoder.py)."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.forgetting.cascade import forget
from graph.forgetting.profile import erase_profile
from graph.memory.pipeline import RememberRequest, remember
from graph.recall.request import RecallRequest
from graph.recall.search import recall

pytestmark = pytest.mark.anyio

BIKE = "Ada commutes by bicycle along the canal."
QUESTIONS = ("How does Ada get to the office?", "Does Ada cycle along the canal?")


async def asked(graph: ProfileGraph, vectors: VectorKeeper) -> str:
    """Remember one memory in `graph` and recall it with each question; the memory's id."""
    stored = await remember(graph, RememberRequest(content=BIKE), vectors=vectors)
    for question in QUESTIONS:
        await recall(graph, RecallRequest(query=question, limit=1), vectors=vectors)
    assert vectors.embedder.questions_kept(graph.profile_id) == len(QUESTIONS)
    return stored.fragment.id


async def test_a_forget_drops_the_profiles_question_vectors_and_no_others(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    bike = await asked(graph, vectors)
    await asked(other_graph, vectors)

    await forget(graph, [bike], embedder=vectors.embedder)

    assert vectors.embedder.questions_kept(graph.profile_id) == 0
    assert vectors.embedder.questions_kept(other_graph.profile_id) == len(QUESTIONS)


async def test_erasing_a_profile_drops_its_question_vectors_and_no_others(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await asked(graph, vectors)
    await asked(other_graph, vectors)

    await erase_profile(graph, vectors.embedder)

    assert vectors.embedder.questions_kept(graph.profile_id) == 0
    assert vectors.embedder.questions_kept(other_graph.profile_id) == len(QUESTIONS)
