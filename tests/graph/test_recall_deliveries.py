"""A recall request delivered again (a balancer's retry) counts once in the recall signals, in
one process or across several (each `signalling()` here stands for a process), and a delivery
key counts apart in each profile; against the real Neo4j and model."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.memory.models import RecallSignals as Signals
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.recalled import recall_signals
from graph.recall.models import RecallResult
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from graph.recall.signals import signalling

pytestmark = pytest.mark.anyio

BIKE = "Ada commutes by bicycle along the canal."
QUESTION = "How does Ada get to the office?"


async def answered(graph: ProfileGraph, vectors: VectorKeeper) -> RecallResult:
    await remember(graph, RememberRequest(content=BIKE), vectors=vectors)
    result = await recall(graph, RecallRequest(query=QUESTION, limit=1), vectors=vectors)
    assert [item.text for item in result.results] == [BIKE]
    return result


async def signals_of(graph: ProfileGraph) -> tuple[int, list[int]]:
    """How many questions are logged, and each memory's recall count."""
    signals: Signals = await graph.read(recall_signals, 10)
    return len(signals.recent_questions), [memory.recall_count for memory in signals.most_recalled]


async def test_the_same_delivery_counts_once_in_one_process_and_across_processes(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    result = await answered(graph, vectors)
    async with signalling() as first:
        first.note(graph, result, "delivery-1")
        first.note(graph, result, "delivery-1")  # sent again to the same process at once
    async with signalling() as second:
        second.note(graph, result, "delivery-1")  # and to another, after the first wrote it
    assert await signals_of(graph) == (1, [1])

    async with signalling() as third:
        third.note(graph, result, "delivery-2")  # another request asking the same
        third.note(graph, result)  # a recall without a key (stdio) always counts
    assert await signals_of(graph) == (3, [3])


async def test_a_delivery_key_counts_apart_in_each_profile(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    mine, theirs = await answered(graph, vectors), await answered(other_graph, vectors)
    async with signalling() as signals:
        signals.note(graph, mine, "delivery-1")
        signals.note(other_graph, theirs, "delivery-1")
    assert await signals_of(graph) == (1, [1])
    assert await signals_of(other_graph) == (1, [1])
