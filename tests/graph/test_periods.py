"""The days a recall question names, read without a database (graph/recall/periods.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from graph.recall.periods import GRACE_DAYS, Period, named_periods, nearness

pytestmark = pytest.mark.unit


def day(year: int, month: int, of: int) -> Period:
    return Period(date(year, month, of), date(year, month, of))


@pytest.mark.parametrize(
    ("question", "periods"),
    [
        ("What did Nate do for Joanna on 25 May, 2022?", (day(2022, 5, 25),)),
        ("What painting did Melanie show on October 13, 2023?", (day(2023, 10, 13),)),
        ("What happened on the 13th of October 2023?", (day(2023, 10, 13),)),
        ("What did Ada note on 2024-02-29?", (day(2024, 2, 29),)),
        ("What did Joanna achieve in January 2022?", (Period(date(2022, 1, 1), date(2022, 1, 31)),)),
        ("Which races did John win in 2023?", (Period(date(2023, 1, 1), date(2023, 12, 31)),)),
        ("Where did Melanie camp in June?", (Period(date(2000, 6, 1), date(2000, 6, 30), every_year=True),)),
        (
            "Where was John between August 11 and August 15 2023?",
            (Period(date(2023, 8, 11), date(2023, 8, 15)),),
        ),
        ("What did Ada cook on 3 March and on 9 April 2024?", (day(2024, 4, 9), day(2024, 3, 3))),
        ("What did Ada bake on 1 May?", (Period(date(2000, 5, 1), date(2000, 5, 1), every_year=True),)),
        ("what did ada bake on 3 june?", (Period(date(2000, 6, 3), date(2000, 6, 3), every_year=True),)),
    ],
)
def test_a_question_names_the_days_it_asks_about(question: str, periods: tuple[Period, ...]) -> None:
    assert named_periods(question) == periods


@pytest.mark.parametrize(
    "question",
    [
        "What may Ada cook for the party?",
        "Could 2 may be enough for the party?",
        "Did the band march in may?",
        "What did Ada do yesterday?",
        "Where did John go last weekend?",
        "What did Ada say on 31 April 2023?",
        "How many of the 2023 photos did Ada keep?",
    ],
)
def test_words_that_are_not_a_calendar_date_name_no_days(question: str) -> None:
    assert named_periods(question) == ()


def test_a_day_counts_on_the_calendar_where_it_was_said() -> None:
    evening_in_lima = datetime(2023, 10, 13, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert evening_in_lima.astimezone(UTC).day == 14
    assert nearness(evening_in_lima, [day(2023, 10, 13)]) == 1.0
    assert nearness(evening_in_lima.astimezone(UTC), [day(2023, 10, 13)]) < 1.0
    assert nearness(None, [day(2023, 10, 13)]) == 0.0


def test_what_was_said_around_the_days_named_counts_less_the_further_it_is() -> None:
    (named,) = named_periods("What movie did Joanna watch on 1 May, 2022?")
    after = [nearness(datetime(2022, 5, 1, 12, tzinfo=UTC) + timedelta(days=n), [named]) for n in range(12)]
    assert after[0] == 1.0 and after[1] == pytest.approx(1 - 1 / (GRACE_DAYS + 1))
    assert after == sorted(after, reverse=True) and after[GRACE_DAYS + 1 :] == [0.0] * (11 - GRACE_DAYS)
    assert nearness(datetime(2022, 4, 30, 12, tzinfo=UTC), [named]) == after[1]


def test_a_day_of_no_year_counts_in_every_year_and_its_bounds_enclose_each() -> None:
    (leap_day,) = named_periods("What did Ada do on 29 February?")
    assert nearness(datetime(2024, 2, 29, 12, tzinfo=UTC), [leap_day]) == 1.0
    assert nearness(datetime(2023, 6, 1, 12, tzinfo=UTC), [leap_day]) == 0.0
    # Only the leap years of the range have the day.
    assert [start.year for start, _ in leap_day.bounds(range(2019, 2025))] == [2020, 2024]
    grace = timedelta(days=GRACE_DAYS)
    for start, end in leap_day.bounds(range(2019, 2025)):
        assert start < datetime(start.year, 2, 29, tzinfo=UTC) - grace
        assert datetime(start.year, 3, 1, tzinfo=UTC) + grace < end
