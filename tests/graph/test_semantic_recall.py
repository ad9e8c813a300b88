"""Recall by meaning, against the real Neo4j and the real embedding model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from graph.access import GraphStore, ProfileGraph
from graph.embedding.catalog import MODELS
from graph.embedding.encoder import Embedder
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.loader import load_embedder
from graph.embedding.status import semantic_status
from graph.embedding.store import embed_missing
from graph.localdb import LocalNeo4j
from graph.memory.models import ClaimInput
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.retraction import retract
from graph.recall.models import RecallResult
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from graph.rows import time_of

pytestmark = pytest.mark.anyio

PUPPY = "We adopted a puppy named Biscuit last spring."
OTHERS = (
    "I drive a blue hatchback to the office every morning.",
    "My favourite food is a bowl of spicy ramen.",
    "I am learning to play the violin on Sundays.",
    "We flew to Lisbon for the winter holidays.",
)
# Shares no word with PUPPY, not even after stemming.
PET_QUESTION = "Does the person own a dog?"


async def remember_all(
    graph: ProfileGraph, texts: tuple[str, ...], vectors: VectorKeeper | None
) -> dict[str, str]:
    ids = {}
    for text in texts:
        stored = await remember(graph, RememberRequest(content=text), vectors=vectors)
        ids[text] = stored.fragment.id
    return ids


def top(found: RecallResult) -> tuple[str, list[str]]:
    assert found.results, "recall returned nothing"
    return found.results[0].text, list(found.results[0].lanes)


async def test_a_paraphrase_is_found_by_meaning_and_only_by_meaning(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await remember_all(graph, (PUPPY, *OTHERS), vectors)

    found = await recall(graph, RecallRequest(query=PET_QUESTION, limit=3), vectors=vectors)
    lexical_only = await recall(graph, RecallRequest(query=PET_QUESTION, limit=3), vectors=None)

    assert top(found) == (PUPPY, ["semantic"])
    assert PUPPY not in [item.text for item in lexical_only.results]


async def test_withdrawn_memories_nearer_the_question_do_not_hide_a_live_one(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    """The index search filters by profile and model, and the status is checked on what it
    returns: when all the first neighbours are withdrawn, the lane asks the index again."""
    await remember_all(graph, (PUPPY, *OTHERS), vectors)
    withdrawn = await remember_all(
        graph, tuple(f"Yes, the person owns a dog (note {n})." for n in range(40)), vectors
    )
    for fragment_id in withdrawn.values():
        await retract(graph, fragment_id, "the person has no dog")

    found = await recall(graph, RecallRequest(query=PET_QUESTION, limit=1), vectors=vectors)

    assert top(found) == (PUPPY, ["semantic"])


async def test_an_exact_rare_name_still_ranks_first(graph: ProfileGraph, vectors: VectorKeeper) -> None:
    named = "Had a long lunch with Zorblax at the harbour cafe."
    await remember_all(
        graph,
        (
            "Had a long lunch with my friend at the harbour cafe.",
            "Lunch with colleagues at a cafe by the harbour again.",
            named,
            "The harbour cafe serves the best lunch in town.",
        ),
        vectors,
    )

    found = await recall(graph, RecallRequest(query="lunch with Zorblax", limit=4), vectors=vectors)

    assert top(found) == (named, ["lexical", "semantic"])


async def test_a_result_says_which_lanes_found_it_and_when_it_happened(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    # An offset other than UTC, to the microsecond: times come back from the searches as text
    # (`graph.rows.time_of`), which must keep the instant and the offset.
    said = datetime(2023, 5, 8, 13, 56, 7, 123456, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    await remember(graph, RememberRequest(content=PUPPY, occurred_at=said), vectors=vectors)
    await remember(graph, RememberRequest(content=OTHERS[0]), vectors=vectors)

    found = await recall(graph, RecallRequest(query="puppy Biscuit", limit=2), vectors=vectors)
    driving = await recall(graph, RecallRequest(query="blue hatchback", limit=1), vectors=vectors)

    assert (found.results[0].text, found.results[0].occurred_at) == (PUPPY, said)
    assert found.results[0].occurred_at.utcoffset() == timedelta(hours=5, minutes=30)
    assert found.results[0].lanes == ["lexical", "semantic"]
    assert driving.results[0].occurred_at == driving.results[0].created_at


async def test_times_in_a_named_zone_keep_their_instant_and_offset(graph: ProfileGraph) -> None:
    # Sent as they are, zoneinfo times reach the driver's encoder, which misreads them: an hour
    # off on some calls, a crash of the process on others (`graph.clock.as_utc` says why).
    said = [datetime(2023, month, 1, 12, 30, tzinfo=ZoneInfo("Europe/Paris")) for month in (1, 4, 7, 11)]
    for number, when in enumerate(said):
        await remember(
            graph, RememberRequest(content=f"Watered fern number {number} on the balcony.", occurred_at=when)
        )

    now_in_tokyo = datetime.now(ZoneInfo("Asia/Tokyo"))
    found = await recall(graph, RecallRequest(query="watered fern balcony", limit=4, known_at=now_in_tokyo))

    shown = sorted(item.occurred_at for item in found.results if item.occurred_at is not None)
    assert shown == said
    assert [when.utcoffset() for when in shown] == [timedelta(hours=hours) for hours in (1, 2, 2, 1)]


async def test_times_read_as_text_keep_the_instant_and_offset_of_a_named_zone(store: GraphStore) -> None:
    # Built inside Neo4j: a zoneinfo datetime sent from Python would test the driver's encoder
    # rather than `time_of` (`graph.clock.as_utc` says what goes wrong there).
    async with store.driver.session() as session:
        result = await session.run(
            "WITH datetime({year: 2023, month: 3, day: 26, hour: 3, minute: 30, second: 7,"
            " nanosecond: 123456789, timezone: 'Europe/Paris'}) AS t RETURN toString(t) AS text"
        )
        record = await result.single()
    assert record is not None and record["text"].endswith("[Europe/Paris]")

    read = time_of(record["text"])

    assert read == datetime(2023, 3, 26, 1, 30, 7, 123456, tzinfo=UTC)
    assert read.utcoffset() == timedelta(hours=2)


async def test_claims_and_the_facts_they_become_carry_vectors(
    graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    claim = ClaimInput(
        subject="user", predicate="likes", object="jazz", extract_conf=0.9, resolution_conf=0.9
    )
    stored = await remember(
        graph, RememberRequest(content="I really like jazz.", claims=[claim]), vectors=vectors
    )

    found = await recall(graph, RecallRequest(query="favourite kind of music", limit=5), vectors=vectors)
    status = await semantic_status(graph, embedder)

    assert stored.claims[0].fact is not None
    assert ("fact", ["semantic"]) in [(item.kind, list(item.lanes)) for item in found.results]
    assert (status.pending, status.embedded) == (0, 3)  # fragment, claim, fact


async def test_two_models_vectors_never_meet_and_backfill_moves_to_the_running_model(
    graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    older = load_embedder(LocalNeo4j.default_home(), "all-minilm-l6-v2")
    assert older is not None and older.model_id != embedder.model_id
    async with keeping(older) as older_vectors:
        await remember_all(graph, (PUPPY, *OTHERS), older_vectors)

    before = await recall(graph, RecallRequest(query=PET_QUESTION, limit=5), vectors=vectors)
    pending = (await semantic_status(graph, embedder)).pending
    moved = await embed_missing(graph, embedder, EmbeddedKind.FRAGMENT)
    after = await recall(graph, RecallRequest(query=PET_QUESTION, limit=5), vectors=vectors)

    assert all("semantic" not in item.lanes for item in before.results)
    assert (pending, moved) == (5, 5)
    assert top(after) == (PUPPY, ["semantic"])
    assert (await semantic_status(graph, older)).embedded == 0
    assert set(MODELS) >= {"e5-small-v2", "all-minilm-l6-v2"}


async def test_backfill_resumes_after_an_interruption_and_recall_works_meanwhile(
    graph: ProfileGraph, embedder: Embedder, vectors: VectorKeeper
) -> None:
    texts = tuple(f"Note {number}: the garden needs watering near shed {number}." for number in range(150))
    await remember_all(graph, (PUPPY, *texts), None)  # an old graph: no vectors at all

    lexical = await recall(graph, RecallRequest(query="puppy", limit=1), vectors=vectors)

    class Interrupted(Exception):
        pass

    def stop_after_first(_: int) -> None:
        raise Interrupted

    with pytest.raises(Interrupted):
        await embed_missing(graph, embedder, EmbeddedKind.FRAGMENT, batch_size=64, on_batch=stop_after_first)
    halfway = (await semantic_status(graph, embedder)).pending
    resumed = await embed_missing(graph, embedder, EmbeddedKind.FRAGMENT, batch_size=64)
    again = await embed_missing(graph, embedder, EmbeddedKind.FRAGMENT, batch_size=64)
    found = await recall(graph, RecallRequest(query=PET_QUESTION, limit=1), vectors=vectors)

    assert top(lexical) == (PUPPY, ["lexical"])
    assert (halfway, resumed, again) == (151 - 64, 151 - 64, 0)
    assert (await semantic_status(graph, embedder)).pending == 0
    assert top(found) == (PUPPY, ["semantic"])
