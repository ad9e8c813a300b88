"""Vectors written after the write commits (`graph.embedding.keeper`), with the real model."""

from __future__ import annotations

import logging
import socket
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from graph.access import ConnectionSettings, GraphStore, ProfileGraph
from graph.clock import utcnow
from graph.embedding.encoder import Embedder, Vector
from graph.embedding.healer import VectorHealer
from graph.embedding.keeper import Unembedded, VectorKeeper, keeping
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.status import semantic_status
from graph.embedding.store import embed_passages, vector_counts
from graph.memory.pipeline import RememberRequest, confirm, remember, remember_in
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from tests.graph.memory_support import works_at

pytestmark = pytest.mark.anyio


PUPPY = "We adopted a puppy named Biscuit last spring."


async def test_recall_waits_for_the_vectors_queued_before_it(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    # Stored without vectors, then queued at once, the puppy last: writing them all takes the
    # model several runs, far longer than recall takes to encode its question.
    texts = [f"Invoice {number} for the roof repair was paid." for number in range(200)] + [PUPPY]
    stored = [await remember(graph, RememberRequest(content=text)) for text in texts]
    vectors.keep(
        graph,
        [Unembedded(EmbeddedKind.FRAGMENT, s.fragment.id) for s in stored],
    )

    found = await recall(graph, RecallRequest(query="Does the person own a dog?", limit=1), vectors=vectors)

    assert [(item.text, item.lanes) for item in found.results] == [(PUPPY, ["semantic"])]


async def test_a_memory_just_remembered_is_found_by_meaning(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await remember(graph, RememberRequest(content=PUPPY), vectors=vectors)

    found = await recall(graph, RecallRequest(query="Does the person own a dog?", limit=1), vectors=vectors)

    assert [(item.text, item.lanes) for item in found.results] == [(PUPPY, ["semantic"])]


async def test_settled_means_the_fragment_its_claim_and_the_fact_have_their_vectors(
    graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    stored = await remember(
        graph,
        RememberRequest(content="I work at Initech now.", claims=[works_at("Initech")]),
        vectors=vectors,
    )
    await vectors.settled(graph)

    status = await semantic_status(graph, embedder)
    assert stored.claims[0].fact is not None
    assert (status.embedded, status.pending) == (3, 0)


class ReadCounting(ProfileGraph):
    """A profile's graph that counts the read transactions opened through it."""

    reads = 0

    async def read(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return await super().read(work, *args, **kwargs)


async def test_the_keeper_embeds_what_a_remember_stored_without_reading_it_back(
    graph: ProfileGraph, store: GraphStore, embedder: Embedder, vectors: VectorKeeper
) -> None:
    # The remember's own transaction hands the keeper the texts it stored without a vector: a
    # read transaction before the model runs cost each remember about 4 ms of Neo4j's CPU.
    counting = ReadCounting(store, graph.profile_id)
    request = RememberRequest(content="I work at Initech now.", claims=[works_at("Initech")])

    await remember(counting, request, vectors=vectors)
    await vectors.settled(counting)

    assert counting.reads == 0
    status = await semantic_status(graph, embedder)
    assert (status.embedded, status.pending) == (3, 0)


async def test_a_claim_restated_with_vectors_in_hand_gets_its_vector_in_that_write(
    graph: ProfileGraph, embedder: Embedder
) -> None:
    # A promoted dream's confirmation is written so: its vectors computed before the transaction.
    await remember(graph, RememberRequest(content="I work at Initech now.", claims=[works_at("Initech")]))
    assert (await semantic_status(graph, embedder)).embedded == 0
    restating = RememberRequest(content="Still at Initech, yes.", claims=[works_at("Initech")])
    passages = await embed_passages(embedder, restating.passages())

    result = await graph.write(remember_in, restating, utcnow(), vectors=passages)

    # The new fragment and the restated claim carry the vector; the first fragment and the fact,
    # stored earlier without one, wait for the keeper or a backfill.
    assert result.claims[0].fact is not None
    status = await semantic_status(graph, embedder)
    assert (status.embedded, status.pending) == (2, 2)


async def test_leaving_the_keeper_writes_every_vector_still_queued(
    graph: ProfileGraph, embedder: Embedder
) -> None:
    async with keeping(embedder) as vectors:
        for number in range(40):
            await remember(
                graph, RememberRequest(content=f"Day {number}: walked to the lake."), vectors=vectors
            )

    status = await semantic_status(graph, embedder)
    assert (status.embedded, status.pending) == (40, 0)


async def test_a_node_of_another_profile_queued_under_this_one_gets_no_vector(
    graph: ProfileGraph, other_graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    theirs = await remember(other_graph, RememberRequest(content="Their secret garden has roses."))
    mine = await remember(graph, RememberRequest(content="My garden has tulips."))

    vectors.keep(
        graph,
        [
            Unembedded(EmbeddedKind.FRAGMENT, theirs.fragment.id),
            Unembedded(EmbeddedKind.FRAGMENT, mine.fragment.id),
        ],
    )
    await vectors.settled(graph)

    assert (await semantic_status(other_graph, embedder)).pending == 1
    assert (await semantic_status(graph, embedder)).embedded == 1


async def test_an_unreachable_database_leaves_the_whole_queue_pending_at_once(
    embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = GraphStore.connect(ConnectionSettings(f"bolt://127.0.0.1:{port}", "neo4j", "unused"))
    graph = store.profile("nowhere")
    nodes = [Unembedded(EmbeddedKind.FRAGMENT, f"f{number}") for number in range(300)]
    try:
        with caplog.at_level(logging.WARNING, logger="graph.embedding.keeper"):
            async with keeping(embedder) as vectors:
                assert vectors is not None
                vectors.keep(graph, nodes)
                await vectors.settled(graph)
    finally:
        await store.close()

    warnings = [record.getMessage() for record in caplog.records if record.name == "graph.embedding.keeper"]
    assert len(warnings) == 1
    assert warnings[0].startswith("300 memories of profile nowhere stay without vectors (Neo4j at bolt://")


async def test_a_fact_the_person_confirms_gets_its_vector_even_when_its_claim_had_none(
    graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    # Stored by a process that wrote no vectors: the claim has none for the new fact to copy.
    await remember(graph, RememberRequest(content="I work at Acme Corp.", claims=[works_at("Acme Corp")]))
    beta = await remember(
        graph, RememberRequest(content="I work at Beta Labs.", claims=[works_at("Beta Labs")])
    )

    confirmed = await confirm(graph, beta.claims[0].claim_id, "accept_claim", vectors=vectors)
    await vectors.settled(graph)

    assert confirmed.claim.fact is not None
    found = await recall(graph, RecallRequest(query="Where is my job?", limit=3), vectors=vectors)
    assert any(
        item.kind == "fact" and "Beta Labs" in item.text and item.lanes == ["semantic"]
        for item in found.results
    )
    assert (await semantic_status(graph, embedder)).embedded == 2  # the Beta claim and its fact


class CountingEmbedder(Embedder):
    """The real model, counting the texts it is asked to embed as passages."""

    def __init__(self, model: Embedder) -> None:
        super().__init__(model._encoder)
        self.texts: list[str] = []

    async def passages(self, texts: Sequence[str]) -> list[Vector]:
        self.texts.extend(texts)
        return await super().passages(texts)


async def test_two_processes_healing_one_profile_embed_each_memory_once(
    graph: ProfileGraph, store: GraphStore, embedder: Embedder
) -> None:
    texts = [f"Planted {number} tulip bulbs along the north fence." for number in range(40)]
    for text in texts:
        await remember(graph, RememberRequest(content=text))  # stored as a killed server left them
    first, second = CountingEmbedder(embedder), CountingEmbedder(embedder)
    async with anyio.create_task_group() as both:
        for model in (first, second):
            both.start_soon(VectorHealer(model).heal, store, [graph.profile_id])
    assert sorted(first.texts + second.texts) == sorted(texts), "every memory embedded exactly once"
    assert first.texts and second.texts, "both took part"
    assert [c.pending for c in await vector_counts(graph, embedder.model_id)] == [0] * len(EmbeddedKind)
