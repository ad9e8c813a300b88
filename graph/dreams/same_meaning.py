"""Whether two near-identical texts mean the same thing: the rule a duplicate must pass.

Two texts can share nearly every word and vector yet say opposite things ("confirmed my
penicillin allergy", "confirmed I have no penicillin allergy"). A duplicate's promotion retracts
one of the two, so it must mean what the other means. This rule reads the two texts' words (no
model, no profile) and names the first way they differ:

- **negation**: what each text denies. Every negator ("no", "not", "never", any "...n't",
  "without", "no longer", "used to", ...) governs the content words of its clause after it (else
  the word before it); the two texts must deny the same words, whichever negator says it: "I
  don't have a penicillin allergy" and "I have no penicillin allergy" agree, "I have a penicillin
  allergy" and either do not.
- **quantity**: every number (digits, number words folded into one value: "forty-five" is 45,
  "a dozen" 12) and every word of how many or how often ("all", "some", "only", "twice",
  "always", "rarely"), each with the next word of its clause (else the one before), the word it
  counts: "two cats and three dogs" is not "three cats and two dogs".
- **when**: the words that say when (weekdays, months, seasons, parts of the day, "yesterday",
  "last", "next", a number beside a month), in order: the same routine on another day is another
  memory.
- **detail**: each text has a content word the other lacks ("Porto" and "Lisbon", "Almeida" and
  "Silva"). A word added on one side only is a rephrasing, not a swap.
- **roles**: three shared content words in the opposite order ("Ana told Ben", "Ben told Ana";
  "moved the standup to make room for the review" and the other way round). A word or a clause
  moved whole keeps its role.

Negators and amounts are compared by the words both texts use, so a swapped word is told as a
detail, not as another negation. Case, punctuation, inflections (`term_root`), tone ("really",
"haha") and function words never make a difference, but for a few that say which way things
stand ("before", "after", "same", "another"). The rule errs towards "different": a missed
duplicate costs a question not asked, a wrong one a retracted memory.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import Final

from graph.dreams.evidence import term_root
from graph.text import STOP_WORDS, is_negator, normalize


class Difference(StrEnum):
    NEGATION = "negation"
    QUANTITY = "quantity"
    WHEN = "when"
    DETAIL = "detail"
    ROLES = "roles"


_SAYS: Final = {
    Difference.NEGATION: "one denies what the other says",
    Difference.QUANTITY: "they give another number or amount",
    Difference.WHEN: "they say another time",
    Difference.DETAIL: "a word of one is replaced by another",
    Difference.ROLES: "the same words stand in other roles",
}


@dataclass(frozen=True)
class MeaningDifference:
    """The first way two texts differ, with what each says there (empty: nothing)."""

    kind: Difference
    first: tuple[str, ...]
    second: tuple[str, ...]

    def describe(self) -> str:
        def said(words: tuple[str, ...]) -> str:
            return ", ".join(f"“{word}”" for word in words) if words else "nothing"

        return f"{_SAYS[self.kind]}: {said(self.first)} in one, {said(self.second)} in the other"


# Words that deny besides the negators claims are read with (`graph.text.is_negator`).
_MORE_NEGATORS_TEXT = "without none nobody nothing nowhere neither nor anymore hardly barely scarcely"
# A negator's second word, taken with it: "no longer", "no more", "used to", "any more".
_NEGATING_PAIRS: Final = frozenset({("no", "longer"), ("no", "more"), ("used", "to"), ("any", "more")})
_ONES_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen
"""
_TENS_TEXT = "twenty thirty forty fifty sixty seventy eighty ninety"
# Multipliers of the number words before them: "two hundred", "a dozen" (one dozen).
_SCALES: Final = {"dozen": 12, "hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9}
# How many or how often, in words that are no number (and ordinals in digits, "2nd").
_AMOUNTS_TEXT = """
    all both each every some most many few fewer several half quarter couple more less least
    once twice thrice always usually often sometimes occasionally rarely seldom frequently
    daily weekly monthly yearly annually first second third fourth fifth sixth seventh eighth
    ninth tenth only
"""
# "may" is left out: far more often "might" than the month.
_MONTHS_TEXT = "january february march april june july august september october november december"
_WHEN_TEXT = """
    monday tuesday wednesday thursday friday saturday sunday weekend weekday
    spring summer autumn winter morning afternoon evening night tonight noon midnight dawn dusk
    yesterday today tomorrow last next ago
"""
# Tone, not content: saying a thing warmly or twice over does not change it.
_TONE_TEXT = """
    hey hi hello oh ah wow lol haha hahaha omg hmm um umm yay ooh aww ugh
    really so very totally actually basically honestly literally just quite truly indeed
"""
# Function words that still say which way things stand ("before" or "after" the rash, the
# "same" doctor or "another"): content here, though search and evidence pass over them.
_RELATION_TEXT = "before after above below under over against until same other another own"
_MORE_NEGATORS: Final = frozenset(_MORE_NEGATORS_TEXT.split())
_ONES: Final = {word: value for value, word in enumerate(_ONES_TEXT.split())}
_TENS: Final = {word: 10 * (index + 2) for index, word in enumerate(_TENS_TEXT.split())}
_AMOUNTS: Final = frozenset(_AMOUNTS_TEXT.split())
_MONTHS: Final = frozenset(_MONTHS_TEXT.split())
_WHEN: Final = _MONTHS | frozenset(_WHEN_TEXT.split())
_TONE: Final = frozenset(_TONE_TEXT.split())
_RELATIONS: Final = frozenset(_RELATION_TEXT.split())
# Words, numbers ("1,200", "3.5" and "2nd" are one token each) and the marks that end a clause.
_TOKEN = re.compile(
    r"\d+(?:[.,]\d+)*(?:st|nd|rd|th)?|[^\W\d_]+(?:'[^\W\d_]+)*|[.,;:!?()\[\]{}\"\u201c\u201d\u2013\u2014]"
)


def _value(token: str) -> float | None:
    """A token's value when it is a number in digits or one number word ("1,200", "forty")."""
    if token[0].isdigit():
        try:
            return float(token.replace(",", ""))
        except ValueError:
            return None  # an ordinal in digits ("2nd")
    return _ONES.get(token, _TENS.get(token))


def _starts_number(token: str) -> bool:
    return _value(token) is not None or token in _SCALES


def _folded(tokens: Sequence[str], start: int) -> tuple[str, int]:
    """The number the words from `start` write ("two hundred and five", "forty five", "a dozen"
    from "dozen"), as text, and the index after them."""
    total, current, index = 0.0, 0.0, start
    while index < len(tokens):
        token = tokens[index]
        value = _value(token)
        if value is not None:
            current += value
        elif token in _SCALES:
            scaled = max(current, 1) * _SCALES[token]
            total, current = (total + scaled, 0.0) if _SCALES[token] >= 1_000 else (total, scaled)
        elif token != "and" or index + 1 == len(tokens) or not _starts_number(tokens[index + 1]):
            break
        index += 1
    return f"{total + current:g}", index


class _Part(StrEnum):
    BREAK = "break"  # the end of a clause
    DENIES = "denies"
    AMOUNT = "amount"
    WHEN = "when"
    WORD = "word"  # a content word, by its root


@dataclass(frozen=True)
class _Token:
    part: _Part
    value: str  # a content word's root, a number's value, else the words as written
    written: str


def _parts(text: str) -> list[_Token]:
    """The text's tokens that bear on its meaning, each with its part; the rest (function words,
    tone) left out."""
    tokens = _TOKEN.findall(normalize(text))
    parts: list[_Token] = []
    index = 0
    while index < len(tokens):
        token, end = tokens[index], index + 1
        pair = (token, tokens[end] if end < len(tokens) else "")
        if not token[0].isalnum():
            parts.append(_Token(_Part.BREAK, token, token))
        elif pair in _NEGATING_PAIRS or is_negator(token) or token in _MORE_NEGATORS:
            end += pair in _NEGATING_PAIRS
            parts.append(_Token(_Part.DENIES, "not", " ".join(tokens[index:end])))
        elif _starts_number(token) or token in _AMOUNTS or token[0].isdigit():
            number, end = _folded(tokens, index) if _starts_number(token) else (token, end)
            # A number within two words of a month is a date ("3 March", "March 3rd 2024", "the
            # 3rd of March"): it says when.
            beside = set(tokens[max(index - 2, 0) : index]) | set(tokens[end : end + 2])
            part = _Part.WHEN if beside & _MONTHS else _Part.AMOUNT
            parts.append(_Token(part, number, " ".join(tokens[index:end])))
        elif token in _WHEN:
            parts.append(_Token(_Part.WHEN, token, token))
        elif token in _RELATIONS or (token not in STOP_WORDS and token not in _TONE):
            parts.append(_Token(_Part.WORD, term_root(token), token))
        index = end
    return parts


def _clause_words(parts: Sequence[_Token], start: int, step: int, shared: frozenset[str]) -> Iterator[_Token]:
    """The content words in `shared` from `start` on, forwards (`step` 1) or backwards (-1), to
    the end of the clause or the next negator."""
    index = start
    while 0 <= index < len(parts) and parts[index].part not in (_Part.BREAK, _Part.DENIES):
        if parts[index].part is _Part.WORD and parts[index].value in shared:
            yield parts[index]
        index += step


@dataclass(frozen=True)
class _Reading:
    """A text as this rule reads it: its parts, its content words (by root, in order) and its
    words of time."""

    parts: tuple[_Token, ...]
    content: tuple[str, ...]
    written: dict[str, str]  # each content word's root as the text first writes it
    when: tuple[str, ...]

    def as_written(self, roots: Sequence[str]) -> tuple[str, ...]:
        return tuple(self.written[root] for root in roots)

    def tally(self, part: _Part, shared: frozenset[str]) -> tuple[Counter[str], dict[str, str]]:
        """Its denials (or amounts), each with what it qualifies among the words both texts use
        (a word only one uses is a swapped detail, told as such), and each as written. A denial
        qualifies the rest of its clause (else the word before it) and is keyed by those words'
        roots, sorted, whichever the negator ("don't have an allergy" and "have no allergy" deny
        the same); an amount qualifies the next word of its clause (else the one before)."""
        tallied: Counter[str] = Counter()
        shown: dict[str, str] = {}
        for index, mark in enumerate(self.parts):
            if mark.part is not part:
                continue
            after = _clause_words(self.parts, index + 1, 1, shared)
            words = list(after) if part is _Part.DENIES else list(islice(after, 1))
            words = words or list(islice(_clause_words(self.parts, index - 1, -1, shared), 1))
            key = " ".join([mark.value, *sorted(word.value for word in words)])
            tallied[key] += 1
            shown[key] = " ".join([mark.written, *(word.written for word in words)])
        return tallied, shown


def _read(text: str) -> _Reading:
    parts = tuple(_parts(text))
    words = [token for token in parts if token.part is _Part.WORD]
    written = {word.value: word.written for word in reversed(words)}
    when = tuple(token.value for token in parts if token.part is _Part.WHEN)
    return _Reading(parts, tuple(word.value for word in words), written, when)


def _tallies_apart(kind: Difference, one: _Reading, other: _Reading) -> MeaningDifference | None:
    """How the two texts' denials (or amounts) differ, as each writes them; None when they agree."""
    part = _Part.DENIES if kind is Difference.NEGATION else _Part.AMOUNT
    shared = frozenset(one.content) & frozenset(other.content)
    (first, first_shown), (second, second_shown) = one.tally(part, shared), other.tally(part, shared)
    if first == second:
        return None
    return MeaningDifference(
        kind,
        tuple(first_shown[key] for key in sorted((first - second).elements())),
        tuple(second_shown[key] for key in sorted((second - first).elements())),
    )


def meaning_difference(first: str, second: str) -> MeaningDifference | None:
    """The first way `first` and `second` differ in meaning, or None when they say the same."""
    one, other = _read(first), _read(second)
    for tallied in (Difference.NEGATION, Difference.QUANTITY):
        if apart := _tallies_apart(tallied, one, other):
            return apart
    if one.when != other.when:
        return MeaningDifference(Difference.WHEN, one.when, other.when)
    words, other_words = frozenset(one.content), frozenset(other.content)
    only_first = tuple(dict.fromkeys(word for word in one.content if word not in other_words))
    only_second = tuple(dict.fromkeys(word for word in other.content if word not in words))
    if only_first and only_second:
        return MeaningDifference(Difference.DETAIL, one.as_written(only_first), other.as_written(only_second))
    swapped = _reordered(one.content, other.content)
    if swapped:
        ordered = sorted(swapped, key=other.content.index)
        return MeaningDifference(Difference.ROLES, one.as_written(swapped), other.as_written(ordered))
    return None


def _reordered(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """Three words both use that stand in the opposite order in the other text, when the words
    stand in other roles ("moved A to make room for B", "moved B to make room for A"; "Ana told
    Ben", "Ben told Ana"); else nothing. A word or a block moved whole keeps every role ("Ines,
    my daughter" for "my daughter Ines"; "X, Ana said" for "Ana said X")."""
    place = {word: index for index, word in reversed(list(enumerate(second)))}
    shared = [word for word in dict.fromkeys(first) if word in place]
    order = [place[word] for word in shared]
    # The middle of three: a word with a later one before it and an earlier one after it. The
    # earliest word from each position on is found once, the latest before it as the loop goes.
    earliest = list(range(len(order)))
    for at in reversed(range(len(order) - 1)):
        if order[earliest[at + 1]] < order[at]:
            earliest[at] = earliest[at + 1]
    latest = 0
    for middle in range(1, len(order) - 1):
        after = earliest[middle + 1]
        if order[latest] > order[middle] > order[after]:
            return (shared[latest], shared[middle], shared[after])
        latest = middle if order[middle] > order[latest] else latest
    return ()
