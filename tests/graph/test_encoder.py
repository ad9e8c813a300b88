"""The embedding model as Reverie runs it, with the real model."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import anyio
import pytest

from graph.embedding.encoder import Embedder, OnnxEncoder, QueryVectors
from tests.manual_clock import ManualClock

pytestmark = pytest.mark.anyio

PUPPY = "We adopted a puppy named Biscuit last spring."
OTHERS = [
    "I live in Lisbon near the old harbour.",
    "My sister's wedding is in June, on a boat with forty guests.",
]


async def test_a_text_gets_the_same_vector_alone_as_beside_other_texts(embedder: Embedder) -> None:
    [alone] = await embedder.passages([PUPPY])
    beside = await embedder.passages([*OTHERS, PUPPY])
    concurrent: dict[int, list[float]] = {}

    async def encode(number: int, texts: list[str]) -> None:
        concurrent[number] = (await embedder.passages(texts))[-1]

    async with anyio.create_task_group() as group:
        for number in range(8):
            group.start_soon(encode, number, [*OTHERS[: number % 3], PUPPY])

    assert beside[-1] == alone
    assert all(vector == alone for vector in concurrent.values())


class _CountedRuns:
    """The real encoder, with its runs counted."""

    def __init__(self, encoder: OnnxEncoder) -> None:
        self.encoder = encoder
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return self.encoder.encode(texts)


async def test_a_question_asked_again_by_its_profile_is_not_encoded_again(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = f"where did we adopt the puppy {uuid.uuid4().hex}"
    counted = _CountedRuns(embedder._encoder)
    monkeypatch.setattr(embedder, "_encoder", counted)

    first = await embedder.query(question, "alice")
    first[0] = 42.0  # the caller's own list: the kept vector must not change with it
    again = await embedder.query(question, "alice")
    by_another = await embedder.query(question, "bob")

    fresh = counted.encoder.encode([embedder.spec.query_prefix + question])[0]
    assert again == fresh
    assert by_another == fresh
    # Once for alice, once for bob (kept apart, so timing tells bob nothing of alice).
    assert len(counted.texts) == 2


def test_the_question_encoded_first_goes_first() -> None:
    kept = QueryVectors(size=2)
    kept.keep("alice", "dogs", [1.0, 0.0])
    kept.keep("alice", "cats", [0.0, 1.0])
    assert kept.get("alice", "dogs") == [1.0, 0.0]  # being asked again does not keep it longer
    kept.keep("alice", "birds", [0.5, 0.5])

    assert kept.get("alice", "dogs") is None
    assert kept.get("alice", "cats") == [0.0, 1.0]
    assert kept.get("alice", "birds") == [0.5, 0.5]
    assert kept.get("bob", "cats") is None


def test_a_vector_expires_its_lifetime_after_it_was_encoded_however_often_asked() -> None:
    clock = ManualClock()
    kept = QueryVectors(size=8, lifetime=10.0, clock=clock)
    kept.keep("alice", "dogs", [1.0, 0.0])
    kept.keep("alice", "fish", [0.6, 0.8])
    clock.now = 9.0
    assert kept.get("alice", "dogs") == [1.0, 0.0]  # asking again does not make it last longer
    kept.keep("alice", "cats", [0.0, 1.0])
    kept.keep("bob", "birds", [0.5, 0.5])

    clock.now = 10.0
    assert (kept.held("alice"), kept.held("bob")) == (1, 1)  # asked again or not, both went
    assert kept.get("alice", "dogs") is None
    assert kept.get("alice", "cats") == [0.0, 1.0]
    clock.now = 19.0
    assert kept.held("alice") == kept.held("bob") == 0


def test_dropping_an_askers_vectors_keeps_the_others() -> None:
    kept = QueryVectors(size=8)
    kept.keep("alice", "dogs", [1.0, 0.0])
    kept.keep("bob", "dogs", [1.0, 0.0])
    kept.drop("alice")
    assert (kept.held("alice"), kept.held("bob")) == (0, 1)
    assert kept.get("alice", "dogs") is None
