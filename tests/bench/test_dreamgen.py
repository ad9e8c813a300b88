"""The synthetic dream lanes: deterministic for a seed, and their truth consistent with their words."""

from __future__ import annotations

from collections import defaultdict

import pytest

from bench.dream_judges import Judged
from bench.dream_lanes import LaneRun, Seen, candidate_figures, finder_figures
from bench.dreamgen.registry import GENERATORS
from bench.dreamgen.truth import Lane, Planted, Said, words_of
from graph.dreams.evidence import term_root, topical_roots

pytestmark = pytest.mark.unit

SEEDS = (1, 2)


@pytest.fixture(scope="module", params=[(name, seed) for name in GENERATORS for seed in SEEDS], ids=str)
def lane(request: pytest.FixtureRequest) -> Lane:
    name, seed = request.param
    return GENERATORS[name](seed)


def _holders(lane: Lane) -> dict[str, set[int]]:
    holders: dict[str, set[int]] = defaultdict(set)
    for index, memory in enumerate(lane.memories):
        for word in words_of(memory.text):
            holders[word].add(index)
    return holders


@pytest.mark.parametrize("name", GENERATORS)
def test_a_seed_gives_the_same_lane_and_another_seed_another(name: str) -> None:
    assert GENERATORS[name](1) == GENERATORS[name](1)
    assert GENERATORS[name](1).memories != GENERATORS[name](2).memories


def test_every_memory_is_told_once(lane: Lane) -> None:
    texts = [memory.text for memory in lane.memories]
    assert len(set(texts)) == len(texts)


def test_a_planted_name_is_in_exactly_its_group(lane: Lane) -> None:
    holders = _holders(lane)
    for group in lane.planted:
        assert holders[group.name.casefold()] == set(group.members), group.name


def test_no_other_word_makes_a_pair(lane: Lane) -> None:
    """A topical word (read as the finder reads words: its root) that only two memories hold
    links them as surely as a planted name: only planted names may do that, or the truth would
    miss links a finder rightly draws."""
    holders: dict[str, set[int]] = defaultdict(set)
    for index, memory in enumerate(lane.memories):
        for root in topical_roots(memory.text):
            holders[root].add(index)
    names = {term_root(group.name.casefold()) for group in lane.planted}
    pairs = {root: sorted(members) for root, members in holders.items() if len(members) == 2}
    assert {root: members for root, members in pairs.items() if root not in names} == {}


def test_groups_are_apart_when_dated(lane: Lane) -> None:
    assert all(len(group.members) >= 2 for group in lane.planted)
    if not lane.dated:
        assert all(memory.at is None for memory in lane.memories)
        return
    for group in lane.planted:
        days = {at.date() for index in group.members if (at := lane.memories[index].at) is not None}
        assert len(days) == len(group.members), group.name


@pytest.mark.parametrize(
    ("name", "memories", "links", "themes", "dated"),
    [
        ("sitting", 200, 15, 0, False),
        ("sitting-dated", 200, 15, 0, True),
        ("dozen", 12, 5, 0, True),
        ("dozen-sitting", 12, 5, 0, False),
        ("chat", 440, 12, 4, True),
        ("journal-40", 40, 5, 1, True),
        ("journal-2400", 2400, 40, 10, True),
    ],
)
def test_the_shapes(name: str, memories: int, links: int, themes: int, dated: bool) -> None:
    lane = GENERATORS[name](1)
    assert (len(lane.memories), len(lane.links), len(lane.themes), lane.dated) == (
        memories,
        links,
        themes,
        dated,
    )


def test_the_lane_figures_count_what_the_truth_says() -> None:
    """A toy lane: memories 0-1 a planted link, 2-4 a theme, 5 a distractor. Dreams citing each
    end of the link beside the distractor do not find it."""
    said = tuple(Said(f"memory {index}", None) for index in range(6))
    lane = Lane(
        "toy",
        "toy",
        1,
        "one person",
        said,
        (Planted("a", frozenset({0, 1})), Planted("b", frozenset({2, 3, 4}))),
    )
    run = LaneRun(lane)
    run.dreams = [
        Seen("link", [0, 5], False, "", None),
        Seen("link", [3, 4], True, "", None),
        Seen("link", [1, 5], False, "", None),
    ]
    assert finder_figures(run) | {"by_kind": None} == {
        "dreams": 3,
        "true": 1,
        "precision": 1 / 3,
        "links_found": 0,
        "themes_found": 1,
        "by_kind": None,
    }
    judged = Judged(candidates=[frozenset({0, 1}), frozenset({1, 5}), frozenset({2, 4}), frozenset({0, 5})])
    figures = candidate_figures(lane, judged)
    assert (figures["link_recall"], figures["themes"], figures["true"], figures["read_per_true"]) == (
        1.0,
        1,
        2,
        2.0,
    )
    assert lane.group_of(frozenset({2, 3, 4})) == lane.planted[1]
    assert lane.group_of(frozenset({1, 2})) is None
