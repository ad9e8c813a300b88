"""The embedding model as Reverie runs it, with the real model."""

from __future__ import annotations

import anyio
import pytest

from graph.embedding.encoder import Embedder

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
