"""Duplicates: two memories, told in separate sittings, that say the same thing.

The pair finder already sees them (and keeps them out of links, where a restatement links
nothing); here they become a dream of their own kind. Small talk said twice ("thanks, see you")
is no duplicate worth a question: each memory needs `MIN_WORDS` topical words. Facts are left
out: a fact and the fragment behind it say the same thing by design.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from graph.dreams.evidence import SAME_MOMENT, CandidatePair, is_restatement, topical_roots
from graph.dreams.kind_words import duplicate_draft
from graph.dreams.models import DreamDraft

MIN_WORDS: Final = 4


def word_overlap(pair: CandidatePair) -> float:
    """Shared topical words over the two memories' words together (Jaccard)."""
    first, second = topical_roots(pair.first.text), topical_roots(pair.second.text)
    union = first | second
    return len(first & second) / len(union) if union else 0.0


# Words that say when something happened: two sentences alike but for these tell of two
# occasions ("a film on Friday", "a film on Thursday"), a routine rather than a repetition.
_OCCASION = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|june|july|"
    r"august|september|october|november|december|yesterday|today|tonight|tomorrow|morning|"
    r"afternoon|evening|night|last|next)\b|\d+",
    re.IGNORECASE,
)


def occasions(text: str) -> list[str]:
    return [word.casefold() for word in _OCCASION.findall(text)]


def is_duplicate(pair: CandidatePair) -> bool:
    return (
        occasions(pair.first.text) == occasions(pair.second.text)
        and is_restatement(pair)
        and pair.first.kind == pair.second.kind == "fragment"
        and pair.apart >= SAME_MOMENT
        and min(len(topical_roots(pair.first.text)), len(topical_roots(pair.second.text))) >= MIN_WORDS
    )


def duplicate_drafts(pairs: Sequence[CandidatePair]) -> list[DreamDraft]:
    """A dream for each duplicate pair, the closest first."""
    found = [pair for pair in pairs if is_duplicate(pair)]
    found.sort(key=lambda pair: (-word_overlap(pair), pair.first.id, pair.second.id))
    return [
        duplicate_draft(
            pair.first, pair.second, word_overlap(pair), pair.meaning.cosine if pair.meaning else None
        )
        for pair in found
    ]
