"""Duplicates: two memories, told in separate sittings, that say the same specific thing.

The pair finder already sees restatements (and keeps them out of links, where a restatement
links nothing); here the ones worth merging become a dream of their own kind. Each rule below
answers a way two sentences can look alike and still not be one memory told twice:

- the same words in other roles ("moved the standup to make room for the review", "moved the
  review to make room for the standup"): the shared words must come in much the same order;
- one detail swapped ("paid the phone bill", "paid the gas bill"): no content word of one may
  stand where the other has another;
- the same routine on two occasions ("a film on Friday night", "... on Thursday night"): the
  words that say when must agree;
- the same courtesy ("thanks, your support means a lot"): the two must share something
  specific, a name or a word uncommon in English ("EpiPen", "boiler", "Lisbon").

Facts are left out: a fact and the fragment behind it say the same thing by design.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Final

from graph.dreams.evidence import (
    NEAR_DUPLICATE_COSINE,
    NEAR_DUPLICATE_OVERLAP,
    SAME_MOMENT,
    CandidatePair,
    term_root,
    topical_roots,
    topical_terms,
)
from graph.dreams.kind_words import duplicate_draft
from graph.dreams.models import DreamDraft

MIN_WORDS: Final = 4
# How much of the two word sequences must line up (difflib's ratio over topical words in order).
MIN_SAME_ORDER: Final = 0.7
# A shared word at least this uncommon in English (wordfreq Zipf 4.0 or rarer: under ten uses
# per million words, "boiler", "landlord"; not "appreciated" or "greatly") is specific.
SPECIFIC_RARITY: Final = 0.6

# Words that say when or how much: two sentences alike but for these tell of two occasions ("a
# film on Friday", "a film on Thursday"; "forty minutes", "forty-five minutes"), a routine
# rather than a repetition.
_OCCASION = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|june|july|"
    r"august|september|october|november|december|yesterday|today|tonight|tomorrow|morning|"
    r"afternoon|evening|night|last|next|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|"
    r"dozen)\b|\d+",
    re.IGNORECASE,
)


def occasions(text: str) -> list[str]:
    return [word.casefold() for word in _OCCASION.findall(text)]


def word_overlap(pair: CandidatePair) -> float:
    """Shared topical words over the two memories' words together (Jaccard)."""
    first, second = topical_roots(pair.first.text), topical_roots(pair.second.text)
    union = first | second
    return len(first & second) / len(union) if union else 0.0


def aligned(first: str, second: str) -> SequenceMatcher[str]:
    """The two texts' topical words (by root, in order), aligned."""
    roots = [[term_root(term) for term in topical_terms(text)] for text in (first, second)]
    return SequenceMatcher(None, roots[0], roots[1], autojunk=False)


def substituted(alignment: SequenceMatcher[str]) -> bool:
    """Whether the alignment swaps one content word for another ("the phone bill", "the gas
    bill"): one detail differs, so they are two memories. A rephrasing adds or drops words around
    the same ones instead."""
    return any(tag == "replace" for tag, *_ in alignment.get_opcodes())


def specific(pair: CandidatePair) -> bool:
    """Whether the two share a word few of the profile's memories use (the pair's evidence, which
    leaves out names only used to address someone) that is a name or uncommon in English."""
    return any(term.entity or term.english >= SPECIFIC_RARITY for term in pair.shared)


def is_duplicate(pair: CandidatePair) -> bool:
    first, second = pair.first.text, pair.second.text
    alike = (
        pair.first.kind == pair.second.kind == "fragment"
        and pair.apart >= SAME_MOMENT
        and (pair.meaning is None or pair.meaning.cosine >= NEAR_DUPLICATE_COSINE)
        and min(len(topical_roots(first)), len(topical_roots(second))) >= MIN_WORDS
        and word_overlap(pair) >= NEAR_DUPLICATE_OVERLAP
        and occasions(first) == occasions(second)
        and specific(pair)
    )
    if not alike:
        return False
    # Aligned once, last: the dearest check, for the few pairs still alike.
    alignment = aligned(first, second)
    return alignment.ratio() >= MIN_SAME_ORDER and not substituted(alignment)


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
