"""How recall chooses and orders the dreams related to its results, without a database."""

from __future__ import annotations

import pytest

from graph.dreams.models import DreamStatus
from graph.recall.records import RecalledDream
from graph.recall.related import (
    RELATED_DREAMS_LIMIT,
    RecalledResult,
    dream_terms,
    related_dreams,
    specific_terms,
)

pytestmark = pytest.mark.unit


def dream(dream_id: str, confidence: float = 0.5, *sources: str, text: str = "") -> RecalledDream:
    hypothesis = text or f"hypothesis {dream_id}"
    return RecalledDream(dream_id, hypothesis, DreamStatus.PROPOSED, 0.5, confidence, sources)


def result(memory_id: str, score: float, *dreams: RecalledDream) -> RecalledResult:
    return RecalledResult(memory_id, f"the words of {memory_id}", score, dreams)


def test_dreams_citing_the_best_result_come_first_then_those_citing_more_then_the_more_confident() -> None:
    both = dream("both", 0.2, "m1", "m2")
    sure, unsure = dream("sure", 0.9, "m2"), dream("unsure", 0.1, "m2")
    best = dream("best", 0.1, "m1")

    related = related_dreams(
        "question", [result("m1", 0.9, best, both), result("m2", 0.8, sure, both, unsure)], []
    )

    assert [r.dream_id for r in related] == ["both", "best", "sure", "unsure"]
    assert related[0].reason == "cites 2 memories you recalled: “the words of m1” and “the words of m2”"
    assert related[0].cites_recalled == ["m1", "m2"]
    assert related[1].reason == "cites the memory you recalled: “the words of m1”"


def test_a_weak_result_brings_no_dream() -> None:
    weak = dream("weak", 0.9, "m2")
    related = related_dreams("question", [result("m1", 0.3), result("m2", 0.3 * 0.6, weak)], [])
    assert related == []


def test_a_dream_found_by_words_names_the_specific_words_it_shares() -> None:
    late = dream("late", text="Late in the day the tutor lessons happen.")
    coffee = dream("coffee", text="Drinking coffee after dinner keeps you awake.")

    related = related_dreams("Do I drink coffee late in the day?", [], [late, coffee])

    assert [r.dream_id for r in related] == ["coffee"]
    assert related[0].reason == "shares “drink”, “coffee” with your question"
    assert related[0].shared_words == ["drink", "coffee"]


def test_date_words_numbers_months_and_fillers_are_not_specific() -> None:
    assert specific_terms("What happened on 14 March 2026?") == []
    assert dream_terms("What happened on Tuesday, 14th of March?") is None
    assert specific_terms("Do I drink caffeine late in the day?") == ["drink", "caffeine"]
    assert dream_terms("caffeine in the evening") == "text:(caffeine)"


def test_a_dream_citing_a_result_and_matching_the_words_is_listed_once_and_the_list_is_capped() -> None:
    citing = [dream(f"d{n}", n / 10, "m1", text="coffee") for n in range(RELATED_DREAMS_LIMIT + 2)]
    related = related_dreams("coffee", [result("m1", 1.0, *citing)], citing)
    assert len(related) == RELATED_DREAMS_LIMIT
    assert len({r.dream_id for r in related}) == RELATED_DREAMS_LIMIT
    assert all(r.reason.startswith("cites") for r in related)
    assert related_dreams("coffee", [], []) == []
