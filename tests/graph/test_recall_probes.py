"""Recall on a new person's first memories (issue 30), against the real Neo4j and model: each
paraphrase finds the memory it means among the first three, and another profile's memories,
however many share the name and the words, change no rank and no score."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from tests.graph.recall_probes import ADA, PROBE_SETS, ProbeSet

pytestmark = pytest.mark.anyio


async def remember_set(graph: ProfileGraph, texts: tuple[str, ...], vectors: VectorKeeper) -> None:
    for text in texts:
        await remember(graph, RememberRequest(content=text), vectors=vectors)


async def ranking(graph: ProfileGraph, question: str, vectors: VectorKeeper) -> list[tuple[str, float]]:
    found = await recall(graph, RecallRequest(query=question, limit=5), vectors=vectors)
    return [(item.text, item.score) for item in found.results]


@pytest.mark.parametrize("probes", PROBE_SETS, ids=[probes.name for probes in PROBE_SETS])
async def test_each_paraphrase_finds_its_memory_among_the_first_three(
    graph: ProfileGraph, vectors: VectorKeeper, probes: ProbeSet
) -> None:
    await remember_set(graph, probes.memories, vectors)
    missed = {}
    for probe in probes.probes:
        found = await recall(graph, RecallRequest(query=probe.question, limit=3), vectors=vectors)
        if not any(item.text.startswith(probe.answer) for item in found.results):
            missed[probe.question] = [item.text for item in found.results]
    assert missed == {}


async def test_another_profile_sharing_the_name_and_words_changes_no_rank(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await remember_set(graph, ADA.memories, vectors)
    questions = [probe.question for probe in ADA.probes]
    alone = [await ranking(graph, question, vectors) for question in questions]

    # Ten times as many memories naming Ada, with the probes' own words, in another profile: in
    # one fulltext index, database-wide statistics would make "Ada" rarer or commoner here.
    crowd = tuple(f"{memory} (note {copy})" for copy in range(10) for memory in ADA.memories)
    await remember_set(other_graph, crowd + tuple(f"Ada {probe.question}" for probe in ADA.probes), vectors)
    beside = [await ranking(graph, question, vectors) for question in questions]

    assert beside == alone
    assert all(text in ADA.memories for ranked in beside for text, _ in ranked)
