"""The related_dreams part of recall: open dreams that touch the recalled memories or the question.

First come the dreams citing a result that stands out: one scoring at least `STANDING_OUT` of
the best result's score. The weak tail of a recall (a question about caffeine still returns ten
memories, the last ones about a tutor) says nothing about the question, and neither do the dreams
citing it. Those citing the best result come first, then those citing more results, then the
more confident. recall's searches bring each candidate's citing dreams along (`CITING_DREAMS`).

Then come dreams found by their own words (`DREAMS_MATCHING`), searched only with the question's
specific words (`specific_terms`): a dream that shares with "What happened on 14 March 2026?" only
"march" or "happened" is about another day. Each related dream says in words how it relates:
the recalled memory it cites, or the words it shares with the question; the ids stay as fields.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from graph.recall.models import RelatedDream
from graph.recall.periods import MONTH_NAMES
from graph.recall.records import RecalledDream
from graph.text import fulltext_clause, salient_terms, tokens

RELATED_DREAMS_LIMIT = 5
# A result scoring at least this share of the best one's score stands out (docs/recall.md).
STANDING_OUT: Final = 2 / 3
# How much of a recalled memory's words a reason quotes.
QUOTED_CHARS: Final = 80
# A shared word counts when one is the other with an ending ("drink", "drinks", "drinking"):
# the dream index stems, the words compared here do not. Shorter stems would tie "art" to "article".
_STEM_CHARS: Final = 4

# Words that place a question in time, or only frame it: a dream sharing nothing but these with a
# question is about another day, or another thing that happened.
_TIME_WORDS_TEXT: Final = """
    day days daily today tonight tomorrow yesterday week weeks weekly weekend weekends month months
    monthly year years yearly morning mornings afternoon afternoons evening evenings night nights
    late later lately early earlier recent recently ago last next time times date dates
"""
_FRAME_WORDS_TEXT: Final = """
    happen happens happened happening remember remembered remind tell told know knew think thought
    say said says thing things something anything everything nothing someone anyone
"""
_WEEKDAYS: Final = frozenset(name.lower() for name in (*calendar.day_name, *calendar.day_abbr))
_UNSPECIFIC: Final = frozenset(_TIME_WORDS_TEXT.split() + _FRAME_WORDS_TEXT.split()) | _WEEKDAYS | MONTH_NAMES


def specific_terms(question: str) -> list[str]:
    """The question's words that say what it is about: no stop word, short word, number, date
    word, month or weekday, nor a word that only frames a question ("happened", "remember")."""
    return [
        term
        for term in salient_terms(question)
        if term not in _UNSPECIFIC and not any(char.isdigit() for char in term)
    ]


def dream_terms(question: str) -> str | None:
    """The fulltext clause dreams are searched with, or None when the question has no specific word."""
    return fulltext_clause("text", " ".join(specific_terms(question)))


@dataclass(frozen=True)
class RecalledResult:
    """A result recall returns, as related dreams read it: its words, score and citing dreams."""

    id: str
    text: str
    score: float
    dreams: Sequence[RecalledDream]


def _quoted(text: str) -> str:
    cut = text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 1].rstrip() + "…"
    return f"“{cut}”"


def _citing(results: Sequence[RecalledResult]) -> list[RelatedDream]:
    """The dreams citing a result that stands out, best first, each naming the results it cites."""
    best = max((result.score for result in results), default=0.0)
    dreams: dict[str, RecalledDream] = {}
    cited: dict[str, list[RecalledResult]] = {}
    for result in results:
        if result.score < best * STANDING_OUT:
            continue
        for dream in result.dreams:
            dreams[dream.id] = dream
            cited.setdefault(dream.id, []).append(result)
    rank = {result.id: place for place, result in enumerate(results)}

    def order(dream_id: str) -> tuple[int, int, float]:
        memories = cited[dream_id]
        return rank[memories[0].id], -len(memories), -dreams[dream_id].confidence

    related = []
    for dream_id in sorted(cited, key=order):
        memories = cited[dream_id]
        quotes = " and ".join(_quoted(memory.text) for memory in memories)
        reason = (
            f"cites the memory you recalled: {quotes}"
            if len(memories) == 1
            else f"cites {len(memories)} memories you recalled: {quotes}"
        )
        related.append(dreams[dream_id].related(reason, cites_recalled=[memory.id for memory in memories]))
    return related


def _shares(term: str, word: str) -> bool:
    shorter, longer = sorted((term, word), key=len)
    return term == word or (longer.startswith(shorter) and len(shorter) >= _STEM_CHARS)


def shared_words(question: str, dream: RecalledDream) -> list[str]:
    """The question's specific words the dream's own words hold, in the question's order."""
    words = set(tokens(f"{dream.hypothesis} {dream.text}"))
    return [term for term in specific_terms(question) if any(_shares(term, word) for word in words)]


def related_dreams(
    question: str, results: Sequence[RecalledResult], matching: Sequence[RecalledDream]
) -> list[RelatedDream]:
    """`results` in recall's order; `matching` the dreams the question's specific words found."""
    related = _citing(results)
    listed = {dream.dream_id for dream in related}
    for dream in matching:
        shared = shared_words(question, dream)
        if dream.id in listed or not shared:
            continue
        words = ", ".join(f"“{word}”" for word in shared)
        related.append(dream.related(f"shares {words} with your question", shared_words=shared))
    return related[:RELATED_DREAMS_LIMIT]
