"""Duplicates: two memories, told in separate sittings, that say the same specific thing.

The pair finder already sees restatements (and keeps them out of links, where a restatement
links nothing); here the ones worth merging become a dream of their own kind. A duplicate's
promotion retracts one of the two, so the two must mean the same: `same_meaning` refuses a pair
that differs by a negation ("confirmed my penicillin allergy", "confirmed I have no penicillin
allergy"), an amount ("forty minutes", "forty-five minutes"), a time ("on Friday night", "on
Thursday night"), a swapped detail ("the phone bill", "the gas bill") or the same words in other
roles ("moved the standup to make room for the review", "moved the review to make room for the
standup"). Such a pair is no duplicate and is not proposed as anything else either: a
contradiction dream asks about a fact and a later claim, and two fragments have neither. Besides,
the two must share something specific, a name or a word uncommon in English ("EpiPen", "boiler",
"Lisbon"), so the same courtesy twice ("thanks, your support means a lot") is none.

Facts are left out: a fact and the fragment behind it say the same thing by design; so is what
the person shared (`remember`'s `shared`): two captions alike describe two photos.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Final

from graph.dreams.evidence import (
    NEAR_DUPLICATE_COSINE,
    NEAR_DUPLICATE_OVERLAP,
    SAME_MOMENT,
    CandidatePair,
    jaccard,
    topical_roots,
)
from graph.dreams.kind_words import duplicate_draft
from graph.dreams.models import DreamDraft
from graph.dreams.postings import ProfileWords
from graph.dreams.same_meaning import meaning_difference

MIN_WORDS: Final = 4
# Memories of a routine: other memories saying at least this share of a duplicate's words, and
# how many of them make the sentence a routine (`is_routine`).
SIBLING_OVERLAP: Final = 0.5
MIN_SIBLINGS: Final = 2
# A shared word at least this uncommon in English (wordfreq Zipf 4.0 or rarer: under ten uses
# per million words, "boiler", "landlord"; not "appreciated" or "greatly") is specific.
SPECIFIC_RARITY: Final = 0.6


def word_overlap(pair: CandidatePair) -> float:
    """Shared topical words over the two memories' words together (Jaccard)."""
    return jaccard(topical_roots(pair.first.text), topical_roots(pair.second.text))


def specific(pair: CandidatePair) -> bool:
    """Whether the two share a word few of the profile's memories use (names only used to address
    someone left out) that is a name or uncommon in English. A restatement says it in the same
    frame, which keeps such a word from linking two memories but not from being specific."""
    return any(term.entity or term.english >= SPECIFIC_RARITY for term in (*pair.shared, *pair.framed))


def is_duplicate(pair: CandidatePair) -> bool:
    first, second = pair.first.text, pair.second.text
    return (
        pair.first.kind == pair.second.kind == "fragment"
        # Two photos alike are two photos, and a message quoted again is not said twice.
        and pair.first.own_words
        and pair.second.own_words
        and pair.apart >= SAME_MOMENT
        and (pair.meaning is None or pair.meaning.cosine >= NEAR_DUPLICATE_COSINE)
        and min(len(topical_roots(first)), len(topical_roots(second))) >= MIN_WORDS
        and word_overlap(pair) >= NEAR_DUPLICATE_OVERLAP
        and specific(pair)
        # Read last, the dearest check, for the few pairs still alike.
        and meaning_difference(first, second) is None
    )


def is_routine(pair: CandidatePair, words: ProfileWords) -> bool:
    """Whether the two are one routine sentence said on two days ("Cooked risotto with tofu for
    dinner"): the profile holds at least `MIN_SIBLINGS` other memories that say much of it with
    other values ("Cooked risotto with chicken for dinner", "Cooked a stew with tofu ..."). Two
    dinners are two events, not one thing said twice; a restatement has no such siblings."""
    roots = topical_roots(pair.first.text)
    pair_ids = {pair.first.id, pair.second.id}
    nearby = {m.id: m for root in roots for m in words.postings.get(root, ()) if m.id not in pair_ids}
    # A third copy of the same sentence is the thing said once more, not another value.
    siblings = (
        m
        for m in nearby.values()
        if SIBLING_OVERLAP <= jaccard(roots, topical_roots(m.text)) < NEAR_DUPLICATE_OVERLAP
    )
    return sum(1 for _ in islice(siblings, MIN_SIBLINGS)) >= MIN_SIBLINGS


def duplicate_drafts(pairs: Sequence[CandidatePair], words: ProfileWords | None = None) -> list[DreamDraft]:
    """A dream for each duplicate pair, the closest first; with the profile's `words`, none that
    is a routine said again (`is_routine`)."""
    found = [pair for pair in pairs if is_duplicate(pair) and not (words and is_routine(pair, words))]
    found.sort(key=lambda pair: (-word_overlap(pair), pair.first.id, pair.second.id))
    return [
        duplicate_draft(
            pair.first, pair.second, word_overlap(pair), pair.meaning.cosine if pair.meaning else None
        )
        for pair in found
    ]
