"""The review page's words and pictures, computed without a browser: statements read as sentences,
each bar of the Nights chart says which run it is, and a dream's dates sit on one line."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.dreams.models import DreamRun, DreamSource, DreamStatus, RunSummary
from graph.memory.predicates import PREDICATE_RULES, in_words, statement_in_words
from server.review.charts import dream_picture, night_bars

pytestmark = pytest.mark.unit


def run(night: str, started: str, promoted: int = 1) -> RunSummary:
    return RunSummary(
        run=DreamRun(
            run_id=started,
            trigger="manual",
            run_date=night,
            status="completed",
            started_at=datetime.fromisoformat(started),
        ),
        dreams={DreamStatus.PROMOTED: promoted},
    )


def test_every_relation_reads_as_words_and_a_statement_about_the_person_says_you() -> None:
    assert all("_" not in in_words(name) for name in PREDICATE_RULES)
    assert in_words("has_goal") == "has a goal:" and in_words("works_at") == "works at"
    assert statement_in_words("user", "works_at", "Acme") == "you work at Acme"
    assert statement_in_words("user", "identity_is", "Ana") == "you are Ana"
    assert statement_in_words("user", "has_goal", "a marathon") == "you have a goal: a marathon"
    assert statement_in_words("Ana", "works_at", "Acme") == "Ana works at Acme"
    # A name from an older graph still reads without its underscore.
    assert statement_in_words("Ana", "lives_in", "Lisbon") == "Ana lives in Lisbon"


def test_runs_of_one_night_are_told_apart_by_their_time_and_the_night_is_written_once() -> None:
    newest_first = [
        run("2026-11-28", "2026-11-28T06:41:50+00:00"),
        run("2026-11-28", "2026-11-28T06:41:10+00:00"),
        run("2026-11-28", "2026-11-28T03:00:00+00:00"),
        run("2026-11-27", "2026-11-27T03:00:00+00:00"),
    ]
    bars = night_bars(newest_first, "Europe/Lisbon")
    assert [bar.label for bar in bars] == ["27 Nov", "03:00", "06:41:10", "06:41:50"]
    assert [bar.shared_night for bar in bars] == ["", "28 Nov", "", ""]
    # In New York the first three runs were late on the 27th (local) but the night stays the run's.
    assert [bar.label for bar in night_bars(newest_first[:2], "America/New_York")] == ["01:41:10", "01:41:50"]


def test_a_dreams_memories_are_drawn_by_date_on_one_line_with_their_first_words() -> None:
    at = [datetime(2024, month, 7, tzinfo=UTC) for month in (2, 5, 8, 11)]
    sources = [
        DreamSource(
            kind="fragment",
            id=str(index),
            text=f"Took the kayak out, trip number {index}",
            active=True,
            at=when,
        )
        for index, when in enumerate(at)
    ]
    picture = dream_picture(sources)
    assert picture is not None
    for drawn in (picture.wide, picture.tall):
        assert [node.day for node in drawn] == ["7 Feb", "7 May", "7 Aug", "7 Nov"]
        assert {node.year for node in drawn} == {"2024"}
        assert all(node.snippet.startswith("Took the kayak") for node in drawn)
    assert len({node.y for node in picture.wide}) == 1
    assert len({node.x for node in picture.tall}) == 1
    assert dream_picture(sources[:1]) is None
