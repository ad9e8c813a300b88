"""How a statement is put: asked, wished, planned, hedged or believed rather than asserted.
Pure functions over `sentences.Fragment`, as in `stance`.

A mood word counts in the object's clause up to the object, and in the subject-less clauses of
its sentence just before it ("Maybe one day, ..."), unless the wish is a thing's or someone
else's ("The form wanted my full name").
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from graph.memory import senses
from graph.memory.questions import is_question
from graph.memory.sentences import CONTRAST_WORDS, Focus, Fragment, Word
from graph.memory.stance import is_person, next_is, phrase, starts_subject


class Mood(StrEnum):
    ASSERTED = "asserted"
    QUESTION = "question"
    WISH = "wish"
    PLAN = "plan"
    HEDGE = "hedge"
    BELIEF = "belief"


def _has_subject(fragment: Fragment, clause: range) -> bool:
    return any(starts_subject(fragment.words[p]) or is_person(fragment.words, p) for p in clause)


def _scope(fragment: Fragment, focus: Focus) -> range:
    """The words that can hedge the focus: its clause up to the object, and the subject-less
    clauses of the sentence just before it ("Maybe one day, ...")."""
    words = fragment.words
    start = fragment.clause_range(focus.anchor).start
    sentence = fragment.sentence_range(focus.anchor)
    while start > sentence.start and words[start].base not in CONTRAST_WORDS:
        previous = fragment.clause_range(start - 1)
        if _has_subject(fragment, previous):
            break
        start = previous.start
    return range(start, focus.first)


def mood(fragment: Fragment, focus: Focus) -> tuple[Mood, str]:
    """How the statement is put, with the words that put it so (empty for a plain assertion)."""
    if is_question(fragment, focus):
        return Mood.QUESTION, "?"
    words = fragment.words
    for position in _scope(fragment, focus):
        found = mood_word(words, position)
        if found is not None and not _wanted_by_another(words, position):
            return found
    return Mood.ASSERTED, ""


def _wanted_by_another(words: Sequence[Word], position: int) -> bool:
    """A wish whose own subject, right before it, is a thing or someone else ("The form wanted
    my full name"): it is not the speaker's."""
    if position == 0:
        return False
    before = words[position - 1]
    return before.base not in senses.SPEAKER_WORDS and (before.noun or is_person(words, position - 1))


def _counterfactual_age(words: Sequence[Word], position: int) -> bool:
    """ "would have been 90", "would've turned 50": the age someone did not live to reach, which
    hedges nothing of the day it falls on."""
    following = [word.base for word in words[position + 1 : position + 4]]
    if words[position].full in {"would've", "wouldve"}:
        following = ["have", *following]
    return (
        following[:1] == ["have"]
        and len(following) >= 3
        and following[1] in {"been", "turned"}
        and following[2].isdigit()
    )


def mood_word(words: Sequence[Word], position: int) -> tuple[Mood, str] | None:
    """The mood a word gives what follows it ("want", "maybe", "one day", "I think"), if any."""
    word = words[position]
    two = phrase(words, position, position + 1)
    if word.is_(*senses.WISHES) or (
        word.full in {"i'd", "id", "would"} and next_is(words, position, "love", "like")
    ):
        return Mood.WISH, two
    if word.base == "one" and next_is(words, position, "day"):
        return Mood.WISH, two
    if word.is_(*senses.PLANS) or (
        word.is_("think", "wonder") and next_is(words, position, "about", "of", "whether")
    ):
        return Mood.PLAN, two
    if word.full in senses.UNDER_WAY:
        return Mood.PLAN, word.written
    if word.base in senses.HEDGES and not (word.base == "would" and next_is(words, position, "rather")):
        if _counterfactual_age(words, position):
            return None
        return Mood.HEDGE, word.written
    if word.is_(*senses.BELIEFS) and position > 0 and words[position - 1].base in senses.SPEAKER_SUBJECTS:
        return Mood.BELIEF, phrase(words, position - 1, position)
    return None
