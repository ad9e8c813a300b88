"""Host-written dreams under concurrency: however many hosts write at once, no pair of memories
is dreamed twice and a pair judged empty is never dreamed, held by the graph, not by a read
before a write. Also the check a cycle makes of a whole night's drafts at once."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from itertools import combinations
from typing import Any

import anyio
import pytest

from graph.access import ProfileGraph
from graph.dreams import host
from graph.dreams.models import HostDreamResult, sources_key
from graph.dreams.store import TakenPairs, pairs_taken_each
from graph.embedding.keeper import VectorKeeper
from graph.errors import InvalidInputError
from graph.memory.pipeline import RememberRequest, remember
from graph.scope import ScopedQuery
from tests.graph.memory_support import read

pytestmark = pytest.mark.anyio
WORDS = host.DreamWords("Is it one story?", "Both name the same place.", "What if it is?", "Ask the person.")
CITED = ScopedQuery(
    "test_dreams_cited",
    """
    MATCH (d:Dream {profile_id: $profile_id})-[:DREAMED_FROM]->(s)
    RETURN d.id AS id, collect(s.id) AS sources
    """,
)
EMPTY = ScopedQuery(
    "test_empty_pairs", "MATCH (e:EmptyPair {profile_id: $profile_id}) RETURN e.pair_key AS key"
)
Attempt = Callable[[], Awaitable[HostDreamResult]]


async def memories(graph: ProfileGraph, vectors: VectorKeeper, count: int) -> list[str]:
    place = f"Brennholt{uuid.uuid4().hex[:5]}"
    texts = [
        f"We hiked above {place} at dawn and the fog lifted over the lake.",
        f"The hut warden at {place} told us about the old salt road.",
        f"Bought a map of {place} and its valleys for the autumn trip.",
        f"My sister wants to see {place} when she visits in June.",
    ]
    stored = [await remember(graph, RememberRequest(content=text), vectors=vectors) for text in texts[:count]]
    await vectors.settled(graph)
    return [result.fragment.id for result in stored]


async def all_at_once(attempts: list[Attempt]) -> list[HostDreamResult | InvalidInputError]:
    outcomes: list[HostDreamResult | InvalidInputError] = []

    async def attempt(run: Attempt) -> None:
        try:
            outcomes.append(await run())
        except InvalidInputError as refused:
            outcomes.append(refused)

    async with anyio.create_task_group() as group:
        for run in attempts:
            group.start_soon(attempt, run)
    return outcomes


def writing(graph: ProfileGraph, ids: list[str], vectors: VectorKeeper, writer: str) -> Attempt:
    return lambda: host.write_dream(graph, ids, WORDS, writer, vectors)


def judging(graph: ProfileGraph, ids: list[str], writer: str) -> Attempt:
    return lambda: host.judge_empty(graph, ids, writer)


async def pairs_held(graph: ProfileGraph) -> tuple[list[str], set[str]]:
    """Every pair some dream cites (a pair twice if two dreams do), and the pairs judged empty."""
    dreamed = [
        sources_key(pair)
        for row in await read(graph, CITED)
        for pair in combinations(sorted(row["sources"]), 2)
    ]
    return dreamed, {row["key"] for row in await read(graph, EMPTY)}


@pytest.mark.parametrize("trial", range(5))
async def test_two_hosts_linking_overlapping_memories_at_once_write_one_dream(
    graph: ProfileGraph, vectors: VectorKeeper, trial: int
) -> None:
    a, b, c = await memories(graph, vectors, 3)

    outcomes = await all_at_once(
        [writing(graph, [a, b], vectors, "host:one"), writing(graph, [a, b, c], vectors, "host:two")]
    )

    written = [outcome for outcome in outcomes if isinstance(outcome, HostDreamResult)]
    refused = [str(outcome) for outcome in outcomes if isinstance(outcome, InvalidInputError)]
    assert len(written) == 1 and len(refused) == 1
    assert "never the same pair twice" in refused[0] and "Nothing was written" in refused[0]
    dreamed, _ = await pairs_held(graph)
    assert len(dreamed) == len(set(dreamed)) >= 1


async def test_a_burst_of_links_themes_and_an_empty_verdict_keeps_every_pair_to_one_answer(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    a, b, c, d = await memories(graph, vectors, 4)
    attempts = [
        writing(graph, [a, b], vectors, "host:one"),
        writing(graph, [a, b, c], vectors, "host:two"),
        writing(graph, [a, b, d], vectors, "host:three"),
        judging(graph, [a, b], "host:four"),
        writing(graph, [b, a], vectors, "host:five"),
        writing(graph, [c, d], vectors, "host:six"),
    ]

    outcomes: list[Any] = await all_at_once(attempts)

    dreamed, empty = await pairs_held(graph)
    assert len(dreamed) == len(set(dreamed))  # no pair in two dreams
    assert not empty & set(dreamed)  # no dream of a pair judged empty
    assert sources_key([a, b]) in set(dreamed) | empty  # the contested pair got exactly one answer
    written = [outcome for outcome in outcomes if isinstance(outcome, HostDreamResult)]
    assert len(written) == len(await read(graph, CITED)) + len(empty)


async def test_a_nights_drafts_are_each_checked_against_their_own_pairs(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    a, b, c, d = await memories(graph, vectors, 4)
    dream = await host.write_dream(graph, [a, b], WORDS, "host:one", vectors)
    await host.judge_empty(graph, [c, d], "host:two")
    drafts = [[a, c], [b, a, d], [d, c], [b, d], [a, b, c, d]]

    taken = await graph.read(pairs_taken_each, drafts)

    assert taken == [
        TakenPairs(None, None),  # one memory of the dream, none of the empty pair
        TakenPairs(dream.dream_id, None),
        TakenPairs(None, sources_key([c, d])),
        TakenPairs(None, None),
        TakenPairs(dream.dream_id, sources_key([c, d])),
    ]
    assert await graph.read(pairs_taken_each, []) == []
