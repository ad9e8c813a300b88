"""How recall fuses its two lanes and validates its request, without a database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graph.errors import InvalidInputError
from graph.memory.models import ClarificationView
from graph.recall.fusion import clarifications_of, fuse, rescaled
from graph.recall.models import RecallKind
from graph.recall.records import FoundMemory
from graph.recall.request import MAX_QUERY_CHARS, RecallRequest, search_terms

pytestmark = pytest.mark.unit

START = datetime(2026, 1, 1, tzinfo=UTC)


def memory(
    memory_id: str, score: float, kind: RecallKind = "fragment", quality: float = 0.5, age_days: int = 0
) -> FoundMemory:
    return FoundMemory(
        kind=kind,
        id=memory_id,
        text=f"text of {memory_id}",
        status="active",
        created_at=START - timedelta(days=age_days),
        occurred_at=None,
        quality=quality,
        score=score,
        clarifications=(),
        dreams=(),
    )


def test_rescaled_maps_a_list_onto_zero_to_one() -> None:
    assert rescaled([]) == []
    assert rescaled([4.0, 2.0, 3.0]) == [1.0, 0.0, 0.5]
    # A lone score, or all equal, is a full match rather than a division by zero.
    assert rescaled([0.3]) == [1.0]
    assert rescaled([2.0, 2.0]) == [1.0, 1.0]


def test_a_memory_both_lanes_found_outranks_one_found_by_either() -> None:
    lexical = {"fragment": [memory("words", 9.0), memory("both", 5.0), memory("weak", 1.0)]}
    semantic = {"fragment": [memory("meaning", 0.9), memory("both", 0.85), memory("far", 0.5)]}
    ranked = fuse(lexical, semantic, limit=6)
    assert [found.memory.id for found in ranked][:1] == ["both"]
    both = ranked[0]
    assert both.lanes == ["lexical", "semantic"]
    assert both.score == pytest.approx(0.5 * 0.5 + 0.5 * 0.875)
    assert {found.memory.id: found.lanes for found in ranked}["meaning"] == ["semantic"]


def test_without_the_semantic_lane_the_lexical_scores_are_the_whole_score() -> None:
    ranked = fuse({"fact": [memory("a", 3.0, "fact"), memory("b", 1.0, "fact")]}, None, limit=5)
    assert [(found.memory.id, found.score) for found in ranked] == [("a", 1.0), ("b", 0.0)]


def test_each_kind_is_rescaled_over_its_own_lexical_candidates() -> None:
    # BM25 scores of two indexes are not comparable: each kind's best is a full lexical match.
    lexical = {"fact": [memory("fact", 2.0, "fact")], "fragment": [memory("frag", 40.0), memory("x", 1.0)]}
    scores = {found.memory.id: found.score for found in fuse(lexical, None, limit=5)}
    assert scores["fact"] == scores["frag"] == 1.0


def test_ties_go_to_the_better_source_then_the_newer_memory() -> None:
    lexical = {
        "fragment": [
            memory("old", 1.0, quality=0.5, age_days=10),
            memory("new", 1.0, quality=0.5, age_days=1),
            memory("good", 1.0, quality=0.95, age_days=30),
        ]
    }
    assert [found.memory.id for found in fuse(lexical, None, limit=2)] == ["good", "new"]


def question(question_id: str, age_days: int) -> ClarificationView:
    return ClarificationView(
        id=question_id,
        question=f"question {question_id}",
        claim_id="c1",
        fact_id="f1",
        status="open",
        created_at=START - timedelta(days=age_days),
    )


def test_clarifications_of_the_results_are_listed_once_newest_first() -> None:
    shared, older, newest = question("shared", 2), question("older", 5), question("newest", 0)
    first = replace(memory("a", 1.0), clarifications=(shared, older))
    second = replace(memory("b", 1.0), clarifications=(shared, newest))
    assert [q.id for q in clarifications_of([first, second], limit=5)] == ["newest", "shared", "older"]
    assert [q.id for q in clarifications_of([first, second], limit=2)] == ["newest", "shared"]


def test_a_query_without_searchable_words_is_refused_with_what_to_do() -> None:
    with pytest.raises(InvalidInputError, match="use a few words about the topic"):
        search_terms(RecallRequest(query="the and of"))
    with pytest.raises(InvalidInputError, match=f"the limit is {MAX_QUERY_CHARS}"):
        search_terms(RecallRequest(query="x" * (MAX_QUERY_CHARS + 1)))
    with pytest.raises(InvalidInputError, match="limit must be"):
        search_terms(RecallRequest(query="sourdough", limit=0))
    assert "sourdough" in search_terms(RecallRequest(query="Sourdough starter"))
