"""Nightly due times in local wall-clock time, across DST, without a database."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from scheduler.timing import due_at, next_due

pytestmark = pytest.mark.unit
NY = "America/New_York"


def test_three_am_in_new_york_is_eight_utc_in_winter_and_seven_in_summer() -> None:
    assert due_at(date(2026, 1, 15), "03:00", NY) == datetime(2026, 1, 15, 8, tzinfo=UTC)
    assert due_at(date(2026, 7, 15), "03:00", NY) == datetime(2026, 7, 15, 7, tzinfo=UTC)


def test_a_start_time_skipped_by_spring_forward_runs_at_the_first_valid_minute() -> None:
    # 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT; 02:30 does not exist.
    assert due_at(date(2026, 3, 8), "02:30", NY) == datetime(2026, 3, 8, 7, tzinfo=UTC)


def test_a_start_time_repeated_by_fall_back_runs_at_its_first_occurrence() -> None:
    # 2026-11-01: 01:30 happens twice; the first is 01:30 EDT = 05:30 UTC.
    assert due_at(date(2026, 11, 1), "01:30", NY) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)


def test_next_due_moves_to_tomorrow_once_today_has_passed() -> None:
    assert next_due(datetime(2026, 7, 15, 6, 59, tzinfo=UTC), "03:00", NY) == datetime(
        2026, 7, 15, 7, tzinfo=UTC
    )
    assert next_due(datetime(2026, 7, 15, 7, 0, tzinfo=UTC), "03:00", NY) == datetime(
        2026, 7, 16, 7, tzinfo=UTC
    )
