"""A claim's date found in a person's words however either writes it: "1990-03-14" is said as
"14 March 1990", "the 14th of March, 1990", "March 14 1990" or "14/03/1990".

A date is its parts (year, month, day), any of which a value may leave out ("1990", "17
September"); a mention is a short run of words of one sentence holding every part the value
has, and no other year, month or day that disagrees with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph.memory.sentences import Fragment

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_BY_NAME = (
    {name: number for number, name in enumerate(_MONTHS, start=1)}
    | {name[:3]: number for number, name in enumerate(_MONTHS, start=1)}
    | {"sept": 9}
)
# Days named by a feast rather than a number.
_FEASTS = {"christmas": (12, 25)}
# Days written as words: "the first", "the twenty-first" (read as "twenty" then "first").
_DAY_WORDS = {
    word: day
    for day, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ],
        start=1,
    )
} | {"thirtieth": 30}
_TENS = {"twenty": 20, "thirty": 30}
_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_NUMERIC = re.compile(r"^(\d{1,2})[/.](\d{1,2})[/.](\d{2,4})$")
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?$")
_YEAR = re.compile(r"^\d{4}$")
_WINDOW = 6


@dataclass(frozen=True)
class DateParts:
    year: int | None
    month: int | None
    day: int | None


def _parts_of_words(words: list[str]) -> DateParts | None:
    year = month = day = None
    for previous, word in zip(["", *words], words, strict=False):
        if _YEAR.match(word):
            if year is not None and year != int(word):
                # Two years are two dates ("in 1999 and died in 2019"), not one.
                return None
            year = int(word)
        elif word in _MONTH_BY_NAME:
            month = _MONTH_BY_NAME[word]
        elif (ordinal := _ORDINAL.match(word)) is not None:
            day = int(ordinal.group(1)) if _is_day(word) else day
        elif word in _FEASTS:
            month, day = _FEASTS[word]
        elif word in _DAY_WORDS:
            day = _DAY_WORDS[word] + _TENS.get(previous, 0)
    if year is None and month is None:
        return None
    return DateParts(year, month, day)


def _is_day(word: str) -> bool:
    """A day of a month in figures ("14", "3rd"); "90" in "would have been 90" is an age."""
    found = _ORDINAL.match(word)
    return found is not None and 1 <= int(found.group(1)) <= 31


def date_parts(value: str) -> DateParts | None:
    """The parts of a claim's date value; None when it names no date this module reads."""
    text = value.strip().casefold()
    iso = _ISO.match(text)
    if iso is not None:
        year, month, day = (int(group) if group else None for group in iso.groups())
        return DateParts(year, month, day)
    return _parts_of_words(re.findall(r"[a-z]+|\d+(?:st|nd|rd|th)?", text))


_DAY_FIRST = re.compile(r"\b(?:uk|british|european|dd[/.-]mm)\b", re.IGNORECASE)
_MONTH_FIRST = re.compile(r"\b(?:us (?:format|style|date)|american|mm[/.-]dd)\b", re.IGNORECASE)


def _writers_order(fragment: Fragment) -> bool | None:
    """Whether the fragment's numeric dates are written day first (True) or month first
    (False), when its words say so ("uk format", "mm/dd") or another of its dates can only be
    read one way ("25/12/1984"); None when nothing settles it."""
    if _DAY_FIRST.search(fragment.text):
        return True
    if _MONTH_FIRST.search(fragment.text):
        return False
    for token in fragment.text.split():
        found = _NUMERIC.match(token.strip("().,;:!?"))
        if found is None:
            continue
        first, second = int(found.group(1)), int(found.group(2))
        if first > 12 >= second or second > 12 >= first:
            return first > 12
    return None


def _numeric_dates(word: str, day_first: bool | None = None) -> list[DateParts]:
    """The readings of a numeric date that name a real day: "1987-02-14" has one; "25/12/1984"
    one (no month 25); "3/4/88" two, 3 April as the UK writes it and March 4 as the US does."""
    iso = _ISO.match(word)
    if iso is not None and iso.group(3) is not None:
        return [DateParts(*(int(group) for group in iso.groups()))]
    found = _NUMERIC.match(word)
    if found is None:
        return []
    first, second, year = (int(group) for group in found.groups())
    year = year + 2000 if year < 50 else year + 1900 if year < 100 else year
    readings = {DateParts(year, second, first), DateParts(year, first, second)}
    if day_first is not None:
        readings = {DateParts(year, second, first) if day_first else DateParts(year, first, second)}
    return [parts for parts in readings if parts.month is not None and 1 <= parts.month <= 12]


def ambiguous_date(fragment: Fragment, wanted: DateParts) -> str | None:
    """A numeric date of the fragment that says the wanted day in one order and another day in
    the other ("3/4/88" for 3 April): the words do not settle which the person meant."""
    day_first = _writers_order(fragment)
    for position in range(len(fragment.words)):
        raw = _raw(fragment, position)
        readings = _numeric_dates(raw, day_first)
        agreeing = [parts for parts in readings if _agrees(wanted, parts)]
        if len(readings) == 2 and len(agreeing) == 1:
            return raw
    return None


def _agrees(wanted: DateParts, found: DateParts) -> bool:
    pairs = ((wanted.year, found.year), (wanted.month, found.month), (wanted.day, found.day))
    return all(want is None or want == have for want, have in pairs)


def find_date_mentions(fragment: Fragment, wanted: DateParts) -> list[tuple[int, int]]:
    """(first, last) word positions of each place the fragment says the wanted date."""
    words = fragment.words
    mentions: list[tuple[int, int]] = []
    day_first = _writers_order(fragment)
    for first in range(len(words)):
        readings = _numeric_dates(_raw(fragment, first), day_first)
        if readings and all(_agrees(wanted, parts) for parts in readings):
            # Said in either order, or in the only order that names a real day.
            mentions.append((first, first))
            continue
        if readings:
            continue
        base = words[first].base
        if _parts_of_words([base]) is None and not _is_day(base) and base not in _DAY_WORDS | _TENS:
            continue
        for last in range(first, min(first + _WINDOW, len(words))):
            if words[last].sentence != words[first].sentence:
                break
            said = _parts_of_words([word.base for word in words[first : last + 1]])
            if said is not None and _agrees(wanted, said) and _complete(wanted, said):
                mentions.append((first, last))
                break
    return _outermost(mentions)


def _raw(fragment: Fragment, position: int) -> str:
    """The characters around a word up to the next space: "02/11/1987" is three words."""
    word = fragment.words[position]
    start = fragment.text.rfind(" ", 0, word.start) + 1
    end = fragment.text.find(" ", word.end)
    return fragment.text[start : end if end >= 0 else len(fragment.text)].strip("().,;:!?")


def _complete(wanted: DateParts, said: DateParts) -> bool:
    return all(
        want is None or have is not None
        for want, have in ((wanted.year, said.year), (wanted.month, said.month), (wanted.day, said.day))
    )


def _outermost(mentions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    for first, last in mentions:
        if kept and first <= kept[-1][1]:
            continue
        kept.append((first, last))
    return kept
