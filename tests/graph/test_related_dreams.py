"""How recall orders the dreams related to its results, without a database."""

from __future__ import annotations

import pytest

from graph.dreams.models import DreamStatus
from graph.recall.records import RecalledDream
from graph.recall.related import RELATED_DREAMS_LIMIT, related_dreams

pytestmark = pytest.mark.unit


def dream(dream_id: str, confidence: float = 0.5, *sources: str) -> RecalledDream:
    return RecalledDream(dream_id, f"hypothesis {dream_id}", DreamStatus.PROPOSED, 0.5, confidence, sources)


def test_dreams_citing_more_results_come_first_then_the_more_confident_then_text_matches() -> None:
    both = dream("both", 0.2, "m1", "m2")
    sure, unsure = dream("sure", 0.9, "m1"), dream("unsure", 0.1, "m2")
    worded = dream("worded", 0.99)

    related = related_dreams([("m1", [sure, both]), ("m2", [both, unsure])], [worded, sure])

    assert [r.dream_id for r in related] == ["both", "sure", "unsure", "worded"]
    assert related[0].reason == "cites recalled memory m1, m2"
    assert related[1].source_ids == ["m1"]
    assert related[3].reason == "its text matches the query"


def test_a_dream_citing_a_result_and_matching_the_words_is_listed_once_and_the_list_is_capped() -> None:
    citing = [dream(f"d{n}", n / 10, "m1") for n in range(RELATED_DREAMS_LIMIT + 2)]
    related = related_dreams([("m1", citing)], citing)
    assert len(related) == RELATED_DREAMS_LIMIT
    assert len({r.dream_id for r in related}) == RELATED_DREAMS_LIMIT
    assert all(r.reason.startswith("cites") for r in related)
    assert related_dreams([], []) == []
