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
    for word in words:
        if _YEAR.match(word):
            year = int(word)
        elif word in _MONTH_BY_NAME:
            month = _MONTH_BY_NAME[word]
        elif (ordinal := _ORDINAL.match(word)) is not None:
            day = int(ordinal.group(1))
        elif word in _FEASTS:
            month, day = _FEASTS[word]
    if year is None and month is None:
        return None
    return DateParts(year, month, day)


def date_parts(value: str) -> DateParts | None:
    """The parts of a claim's date value; None when it names no date this module reads."""
    text = value.strip().casefold()
    iso = _ISO.match(text)
    if iso is not None:
        year, month, day = (int(group) if group else None for group in iso.groups())
        return DateParts(year, month, day)
    return _parts_of_words(re.findall(r"[a-z]+|\d+(?:st|nd|rd|th)?", text))


def _numeric_dates(word: str) -> list[DateParts]:
    """Both readings of a numeric date (day first and month first), as people write either."""
    found = _NUMERIC.match(word)
    if found is None:
        return []
    first, second, year = (int(group) for group in found.groups())
    year = year + 2000 if year < 50 else year + 1900 if year < 100 else year
    return [DateParts(year, second, first), DateParts(year, first, second)]


def _agrees(wanted: DateParts, found: DateParts) -> bool:
    pairs = ((wanted.year, found.year), (wanted.month, found.month), (wanted.day, found.day))
    return all(want is None or want == have for want, have in pairs)


def find_date_mentions(fragment: Fragment, wanted: DateParts) -> list[tuple[int, int]]:
    """(first, last) word positions of each place the fragment says the wanted date."""
    words = fragment.words
    mentions: list[tuple[int, int]] = []
    for first in range(len(words)):
        numeric = [parts for parts in _numeric_dates(_raw(fragment, first)) if _agrees(wanted, parts)]
        if numeric:
            mentions.append((first, first))
            continue
        if _parts_of_words([words[first].base]) is None and not _ORDINAL.match(words[first].base):
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
