"""How recall fuses its two lanes and validates its request, without a database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graph.errors import InvalidInputError
from graph.memory.models import ClarificationView
from graph.recall.fusion import (
    DATE_SHARE,
    NEIGHBOUR_SHARE,
    SEMANTIC_WEIGHT,
    LaneResults,
    clarifications_of,
    fuse,
    lift_neighbours,
    meaning_share,
)
from graph.recall.models import RecallKind
from graph.recall.periods import named_periods, nearness
from graph.recall.records import FoundMemory
from graph.recall.request import MAX_QUERY_CHARS, RecallRequest, search_terms, search_words

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


FLOOR = 0.7


def cosine(value: float) -> float:
    """A plain cosine as Neo4j scores it (0..1)."""
    return (1.0 + value) / 2.0


def test_the_meaning_share_runs_from_the_models_floor_to_a_perfect_match() -> None:
    assert meaning_share(cosine(1.0), FLOOR) == pytest.approx(1.0)
    assert meaning_share(cosine(0.85), FLOOR) == pytest.approx(0.5)
    # Below the floor a memory is not related at all, not negatively related.
    assert meaning_share(cosine(0.2), FLOOR) == 0.0


def test_a_lexical_match_on_a_word_every_memory_has_does_not_outweigh_meaning() -> None:
    # Issue 30: every memory names Ada, so the shortest one matched the name best and, rescaled
    # over its own lane, took the whole lexical half. Its share is now near nothing.
    lanes = LaneResults(
        lexical={"fragment": [memory("greyhound", 0.01), memory("noodles", 0.3)]},
        semantic={"fragment": [memory("noodles", cosine(0.86)), memory("greyhound", cosine(0.78))]},
    )
    ranked = fuse(lanes, FLOOR, limit=2)
    assert [found.memory.id for found in ranked] == ["noodles", "greyhound"]
    assert ranked[0].score == pytest.approx((1 - SEMANTIC_WEIGHT) * 0.3 + SEMANTIC_WEIGHT * 0.16 / 0.3)


def test_each_candidate_is_scored_by_both_lanes_whichever_brought_it() -> None:
    lanes = LaneResults(
        lexical={"fragment": [memory("words", 0.8)]},
        shares={"meaning": 0.2},
        semantic={"fragment": [memory("meaning", cosine(0.9))]},
        similarities={"words": cosine(0.75)},
    )
    ranked = fuse(lanes, FLOOR, 5)
    scores = {found.memory.id: (found.lexical, found.semantic, found.lanes) for found in ranked}
    assert scores["words"] == (0.8, pytest.approx(1 / 6), ["lexical", "semantic"])
    assert scores["meaning"] == (0.2, pytest.approx(2 / 3), ["lexical", "semantic"])


def test_a_memory_below_the_floor_that_shares_no_word_counts_for_neither_lane() -> None:
    lanes = LaneResults(
        lexical={"fragment": [memory("words", 0.5)]},
        semantic={"fragment": [memory("far", cosine(0.5))]},
        similarities={"words": cosine(0.6)},
    )
    scores = {found.memory.id: (found.score, found.lanes) for found in fuse(lanes, FLOOR, 5)}
    assert scores["words"] == (pytest.approx((1 - SEMANTIC_WEIGHT) * 0.5), ["lexical"])
    assert scores["far"] == (0.0, [])


def test_without_the_semantic_lane_the_lexical_share_is_the_whole_score() -> None:
    lanes = LaneResults(lexical={"fact": [memory("a", 0.6, "fact"), memory("b", 0.2, "fact")]})
    ranked = fuse(lanes, FLOOR, limit=5)
    assert [(found.memory.id, found.score) for found in ranked] == [("a", 0.6), ("b", 0.2)]


def test_ties_go_to_the_better_source_then_the_newer_memory() -> None:
    lanes = LaneResults(
        lexical={
            "fragment": [
                memory("old", 0.4, quality=0.5, age_days=10),
                memory("new", 0.4, quality=0.5, age_days=1),
                memory("good", 0.4, quality=0.95, age_days=30),
            ]
        }
    )
    assert [found.memory.id for found in fuse(lanes, FLOOR, limit=2)] == ["good", "new"]


def said_on(found: FoundMemory, when: datetime) -> FoundMemory:
    return replace(found, occurred_at=when)


def test_a_memory_said_in_the_days_the_question_names_is_lifted_toward_one() -> None:
    that_day = datetime(2023, 10, 13, 15, tzinfo=UTC)
    weeks_later, day_after = that_day + timedelta(weeks=3), that_day + timedelta(days=1)
    lanes = LaneResults(
        lexical={
            "fragment": [
                said_on(memory("painting", 0.6), weeks_later),
                said_on(memory("shown", 0.2), that_day),
                said_on(memory("told after", 0.2), day_after),
            ]
        },
        periods=named_periods("What painting did Melanie show on 13 October 2023?"),
        # Said that day, found by no other lane, with a cosine at the model's floor.
        dated=[said_on(memory("that day", cosine(FLOOR)), that_day)],
    )
    scores = {found.memory.id: (found.score, found.lanes) for found in fuse(lanes, FLOOR, 5)}
    assert scores["painting"] == (pytest.approx(0.6), ["lexical"])
    assert scores["shown"] == (pytest.approx(0.2 + DATE_SHARE * 0.8), ["lexical", "date"])
    assert scores["that day"] == (pytest.approx(DATE_SHARE), ["date"])
    near = nearness(day_after, lanes.periods)
    assert 0 < near < 1
    assert scores["told after"] == (pytest.approx(0.2 + DATE_SHARE * near * 0.8), ["lexical", "date"])


def test_a_next_turn_said_in_the_named_days_is_lifted_by_both() -> None:
    that_day = datetime(2023, 10, 13, 15, tzinfo=UTC)
    lanes = LaneResults(
        lexical={"fragment": [said_on(memory("question", 0.9), that_day)]},
        periods=named_periods("What did Melanie answer on 13 October 2023?"),
    )
    chosen = fuse(lanes, FLOOR, 5)
    answer = said_on(memory("answer", 0.0), that_day + timedelta(seconds=30))
    lifted = {
        found.memory.id: found for found in lift_neighbours(chosen, [("question", answer)], lanes, FLOOR, 5)
    }
    dated_question = 0.9 + DATE_SHARE * 0.1
    assert lifted["question"].score == pytest.approx(dated_question)
    assert lifted["answer"].score == pytest.approx(
        DATE_SHARE + NEIGHBOUR_SHARE * (dated_question - DATE_SHARE)
    )
    assert lifted["answer"].lanes == ["date", "context"]


def test_a_turn_said_next_to_a_chosen_result_takes_a_share_of_its_lead() -> None:
    lanes = LaneResults(
        lexical={"fragment": [memory("question", 0.9), memory("other", 0.5)]},
        shares={"answer": 0.1},
        semantic={"fragment": [memory("question", cosine(0.97))]},  # meaning share 0.9
    )
    chosen = fuse(lanes, FLOOR, limit=2)
    lead = {found.memory.id: found.score for found in chosen}["question"]
    answer = memory("answer", cosine(0.85))  # meaning share 0.5
    ranked = lift_neighbours(chosen, [("question", answer)], lanes, FLOOR, limit=2)
    own = (1 - SEMANTIC_WEIGHT) * 0.1 + SEMANTIC_WEIGHT * 0.5
    assert [found.memory.id for found in ranked] == ["question", "answer"]
    assert ranked[1].score == pytest.approx(own + NEIGHBOUR_SHARE * (lead - own), abs=1e-6)
    assert ranked[1].lanes == ["lexical", "semantic", "context"]


def test_a_neighbour_that_outscores_its_anchor_keeps_its_own_score_and_lanes() -> None:
    lanes = LaneResults(lexical={"fragment": [memory("strong", 0.8), memory("weak", 0.3)]})
    chosen = fuse(lanes, FLOOR, limit=2)
    ranked = lift_neighbours(chosen, [("weak", memory("strong", 0.0))], lanes, FLOOR, limit=2)
    assert [(found.memory.id, found.score, found.lanes) for found in ranked] == [
        ("strong", 0.8, ["lexical"]),
        ("weak", 0.3, ["lexical"]),
    ]


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


def test_the_lexical_lane_searches_each_word_alone_without_common_words_or_syntax() -> None:
    assert search_words(RecallRequest(query="What cuisine does Ada's family love? title:x*")) == [
        "cuisine", "ada", "family", "love", "title", "x"
    ]  # fmt: skip
