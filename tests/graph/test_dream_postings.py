"""A rare name two memories share is offered as a link however large the profile, and a thread
the night's slice of a large profile repeats is a theme.

A profile above the bound on vectors read whole is searched from seeds (its newest memories
and a few places in its life); its words are read whole far past that bound, and past the word
bound a slice of two blocks moves every night. Here the bounds are lowered so a few dozen
memories take those paths; the seeds are pinned (the newest, and the oldest two: the other
windows fall after the last memory when "now" is a century on), so the planted pair, in the
middle of the profile, is reached only through its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest

from graph.access import ProfileGraph, ProfileTx
from graph.dreams import neighbours, postings, themes
from graph.dreams.candidates import corpus_size_of
from graph.dreams.host import list_candidates
from graph.dreams.postings import slice_starts
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember

pytestmark = pytest.mark.anyio

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
# Everyday notes: common words only, none shared by exactly two of them with weight to link.
EVERYDAY = (
    "Walked to the shop for bread and milk before work.",
    "Cooked pasta for dinner and watched the news.",
    "Long meeting at the office about the budget.",
    "Called my mother in the evening, she sounded well.",
    "Cleaned the kitchen and took out the rubbish.",
    "Rain all day, stayed inside and read a book.",
    "Bought new running shoes at the mall.",
    "Went to the gym after work, legs are sore.",
    "Paid the electricity bill online.",
    "Had coffee with a colleague near the station.",
)
PAIR = (
    "Took the little boat out past Quenvale lighthouse and the wind turned cold.",
    "Back at Quenvale lighthouse, sailing the little boat along the harbour wall.",
)


def _profile(pair_at: tuple[int, int], size: int) -> list[str]:
    """`size` everyday notes with the planted pair at the two positions (oldest first)."""
    texts = [f"{EVERYDAY[i % len(EVERYDAY)]} Note {i}." for i in range(size)]
    texts[pair_at[0]], texts[pair_at[1]] = PAIR
    return texts


async def _remember_all(graph: ProfileGraph, texts: Sequence[str], vectors: VectorKeeper) -> list[str]:
    """The texts remembered in order, a day apart; their ids."""
    ids = []
    for day, text in enumerate(texts):
        request = RememberRequest(content=text, occurred_at=START + timedelta(days=day))
        ids.append((await remember(graph, request, vectors=vectors)).fragment.id)
    await vectors.settled(graph)
    return ids


async def _offered(graph: ProfileGraph, vectors: VectorKeeper) -> list[set[str]]:
    """Every candidate pair the host's model is offered (one page of the largest size)."""
    now = datetime.now(UTC) + timedelta(days=36_500)
    listed = await list_candidates(graph, 20, vectors, now=now)
    return [set(candidate.source_ids) for candidate in listed.candidates]


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vectors above their whole-profile bound: the profile is searched from seeds."""
    monkeypatch.setattr(neighbours, "EXACT_LIMIT", 10)


async def test_a_rare_name_pair_beyond_the_seeds_is_offered_in_a_seeded_profile(
    seeded: None, graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    ids = await _remember_all(graph, _profile((5, 14), 40), vectors)

    assert {ids[5], ids[14]} in await _offered(graph, vectors)


async def test_another_profiles_words_neither_make_a_pair_nor_crowd_one_out(
    seeded: None, graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    ids = await _remember_all(graph, _profile((5, 14), 40), vectors)
    lone = await _remember_all(other_graph, [*EVERYDAY, PAIR[0]], vectors)
    # The neighbour names Quenvale thirty times: counted with this profile's words, the name
    # would be too common to link anything, and the neighbour's own lone use would pair with it.
    crowd = [f"Quenvale harbour notice number {i}: boats moved." for i in range(30)]
    crowd_ids = await _remember_all(other_graph, crowd, vectors)

    offered = await _offered(graph, vectors)
    assert {ids[5], ids[14]} in offered
    assert all(pair <= set(ids) for pair in offered)
    # In the neighbour, the lone note and the crowd share the name with thirty others: no
    # profile's candidates cross into the other.
    assert all(pair <= {*lone, *crowd_ids} for pair in await _offered(other_graph, vectors))


async def test_above_the_word_bound_a_moving_slice_reaches_a_pair_in_far_apart_blocks(
    seeded: None, monkeypatch: pytest.MonkeyPatch, graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    monkeypatch.setattr(postings, "WORD_LIMIT", 20)
    monkeypatch.setattr(postings, "BLOCK", 10)
    # Blocks of ten: the pair is in the first and the third of four.
    ids = await _remember_all(graph, _profile((3, 24), 40), vectors)

    async def offered_on(night: int) -> bool:
        monkeypatch.setattr(postings, "slice_starts", lambda size, _: slice_starts(size, night))
        return {ids[3], ids[24]} in await _offered(graph, vectors)

    reached = [night for night in range(6) if await offered_on(night)]
    assert reached == [1]  # blocks 0 and 2, the second of the six pairs of blocks


@pytest.mark.parametrize("blocks", [2, 3, 5, 10])
def test_every_two_blocks_share_a_slice_within_one_round_of_nights(blocks: int) -> None:
    size = blocks * postings.BLOCK
    nights = blocks * (blocks - 1) // 2
    reached = {frozenset(slice_starts(size, night)) for night in range(nights)}

    assert reached == {
        frozenset((a * postings.BLOCK, b * postings.BLOCK)) for a, b in combinations(range(blocks), 2)
    }
    assert slice_starts(size, nights) == slice_starts(size, 0)


THREAD = (
    "Repotted the Marrowby fern on the balcony, its fronds had gone brown at the tips.",
    "The Marrowby fern is putting out new curled fronds after the repotting last month.",
    "Gave a cutting of the Marrowby fern to my neighbour, wrapped in damp newspaper.",
)


async def test_above_the_word_bound_a_thread_the_slice_repeats_is_a_theme_beyond_the_newest(
    monkeypatch: pytest.MonkeyPatch, graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    monkeypatch.setattr(postings, "WORD_LIMIT", 20)
    monkeypatch.setattr(postings, "BLOCK", 10)
    monkeypatch.setattr(themes, "SEEDS", 5)  # the newest five say nothing of the thread
    texts = [f"{EVERYDAY[i % len(EVERYDAY)]} Note {i}." for i in range(40)]
    for position, text in zip((2, 6, 24), THREAD, strict=True):
        texts[position] = text
    await _remember_all(graph, texts, vectors)

    async def topics(tx: ProfileTx) -> list[str]:
        # The first night reads the first two blocks, which hold two of the thread's three.
        return [theme.topic for theme in await themes.find_themes(tx, None, await corpus_size_of(tx))]

    assert "marrowby" in await graph.read(topics)
