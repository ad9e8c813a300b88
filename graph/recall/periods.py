"""The days a question names ("on 25 May, 2022", "in January 2023", "in June"), read so that recall
can prefer what was said then (`occurred_at`).

Only calendar dates are read, in the forms English questions write them: a day with its month
and year in either order, a month with its year, a month or a year after a preposition, and ISO
dates. A date that names no year takes the year the question names elsewhere ("between August 11
and August 15 2023"), or else holds in every year. Without a year beside it, a month name
counts alone only capitalised after a preposition ("in June"), and one that is also an everyday
word ("may", "march") beside a bare day only capitalised. Relative days ("yesterday", "last
weekend") are not read: they depend on when and where the person asks.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Final

_MONTHS: Final = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
# Every way a question may name a month, lowercased ("march", "mar", "sept").
MONTH_NAMES: Final = frozenset(_MONTHS)
_MONTH: Final = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY: Final = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR: Final = r"(?P<year>(?:19|20)\d\d)"
_AFTER: Final = r"(?:in|during|of|since|until|from|by|early|late|mid|around|throughout)\s+"
# Most exact first: a span one form reads is blanked before the next form looks.
_FORMS: Final = tuple(
    re.compile(form, re.IGNORECASE)
    for form in (
        r"\b(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d)\b",
        rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",
        rf"\b{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH}\s+{_DAY}\b",
        rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}\b",
        rf"\b{_AFTER}{_YEAR}\b",
    )
)
_MONTH_ALONE: Final = re.compile(rf"\b{_AFTER}{_MONTH}\b", re.IGNORECASE)
# Month names that are also everyday words ("it may rain", "a march").
_ALSO_WORDS: Final = frozenset({"may", "march", "mar"})
# "between 11 and 15 August", "from May to July 2023": two dates that bound one period.
_SPAN: Final = re.compile(r"\b(?:between|from)\b.+\b(?:and|to|until|through)\b", re.IGNORECASE)
# The year a date that names none is written in while it holds in every year: a leap year, so
# that 29 February is a day.
_ANY_YEAR: Final = 2000
# What was said up to this many days before or after the days a question names still counts
# toward them, less the further it is: a person tells of a day after it, and of plans before.
# Chosen with `graph.recall.fusion.DATE_SHARE` on the LoCoMo development split (docs/recall.md).
GRACE_DAYS: Final = 7
_GRACE: Final = timedelta(days=GRACE_DAYS)
# Days away from a date that no year around a moment has (29 February).
_FAR: Final = 366
# A UTC instant's calendar day differs from the day where it was said by at most this much.
_WIDEST_OFFSET: Final = timedelta(hours=14)


@dataclass(frozen=True)
class Period:
    """The days from `first` to `last`, both included; in every year when `every_year` (their
    year is then a placeholder)."""

    first: date
    last: date
    every_year: bool = False

    def days_away(self, moment: datetime) -> int:
        """How many days before or after the period `moment` fell (0: in it), on the calendar
        of its own offset."""
        day = moment.date()
        spans = self._placed(range(day.year - 1, day.year + 2))
        return min((max((span.first - day).days, (day - span.last).days, 0) for span in spans), default=_FAR)

    def bounds(self, years: range) -> list[tuple[datetime, datetime]]:
        """UTC instants that enclose the period and its grace days (in each of `years` when it
        holds in every year), wide enough for any offset."""
        return [
            (
                datetime.combine(span.first - _GRACE, time(), UTC) - _WIDEST_OFFSET,
                datetime.combine(span.last + _GRACE + timedelta(days=1), time(), UTC) + _WIDEST_OFFSET,
            )
            for span in self._placed(years)
        ]

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    def _placed(self, years: range) -> list[Period]:
        """The period itself, or, when it holds in every year, its days in each of `years` that
        has them (29 February only in leap years)."""
        if not self.every_year:
            return [self]
        return [span for year in years if (span := self._in(year)) is not None]

    def _in(self, year: int) -> Period | None:
        try:
            return Period(self.first.replace(year=year), self.last.replace(year=year))
        except ValueError:  # 29 February of a common year
            return None


@dataclass(frozen=True)
class _Named:
    """A date as written: its month and day may be missing, and so may its year."""

    year: int | None
    month: int | None
    day: int | None

    def period(self, year: int | None) -> Period | None:
        year = self.year or year
        if self.month is None:
            return None if year is None else Period(date(year, 1, 1), date(year, 12, 31))
        try:
            placed = date(year or _ANY_YEAR, self.month, self.day or 1)
        except ValueError:
            return None  # 31 April, month 13
        last = placed if self.day else placed.replace(day=calendar.monthrange(placed.year, self.month)[1])
        return Period(placed, last, every_year=year is None)


def _month(text: str) -> int:
    return int(text) if text.isdigit() else _MONTHS[text.lower()]


def _read(found: re.Match[str]) -> _Named:
    named = found.groupdict()
    return _Named(
        year=int(named["year"]) if named.get("year") else None,
        month=_month(named["month"]) if named.get("month") else None,
        day=int(named["day"]) if named.get("day") else None,
    )


def _a_month(found: re.Match[str], alone: bool = False) -> bool:
    """Whether the month `found` reads (if any) is meant as one: without a year beside it, a
    month name alone ("in June") counts only capitalised, and so does one that is also an
    everyday word ("1 may")."""
    named = found.groupdict()
    month = named.get("month")
    if not month or month.isdigit() or named.get("year") or month[0].isupper():
        return True
    return not alone and month.lower() not in _ALSO_WORDS


def _written(question: str) -> Iterator[_Named]:
    for form in _FORMS:
        yield from (_read(found) for found in form.finditer(question) if _a_month(found))
        question = form.sub(lambda found: " " * len(found.group()), question)
    yield from (_read(found) for found in _MONTH_ALONE.finditer(question) if _a_month(found, alone=True))


def named_periods(question: str) -> tuple[Period, ...]:
    """The periods `question` names, in the order of the forms that read them, without repeats."""
    written = list(_written(question))
    years = {named.year for named in written if named.year is not None}
    shared_year = years.pop() if len(years) == 1 else None
    periods = tuple(dict.fromkeys(p for p in (named.period(shared_year) for named in written) if p))
    if len(periods) == 2 and _SPAN.search(question) and periods[0].every_year == periods[1].every_year:
        first, last = min(p.first for p in periods), max(p.last for p in periods)
        return (Period(first, last, periods[0].every_year),)
    return periods


def nearness(moment: datetime | None, periods: Iterable[Period]) -> float:
    """1 when `moment` fell in one of `periods`, falling evenly to 0 at `GRACE_DAYS` + 1 days
    outside them; 0 when it is not known."""
    away = min((period.days_away(moment) for period in periods), default=_FAR) if moment else _FAR
    return max(0.0, 1.0 - away / (GRACE_DAYS + 1))
