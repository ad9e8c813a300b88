"""Words that make a statement ironic: said to mean its opposite, so it states nothing ("Oh
sure, I work at NASA.", "Yeah, I totally love using Teams. Said no one ever."). Only set
phrases of irony are read; irony without one ("Failed my test four times") is not seen.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.memory import senses
from graph.memory.sentences import Focus, Fragment, Word
from graph.memory.stance import phrase

_LEAD_IN_WORDS = 6


def _opens_with(words: Sequence[Word], start: int, stop: int, phrases: tuple[tuple[str, ...], ...]) -> int:
    """How many words of a phrase open words[start:stop]; 0 when none does."""
    opening = tuple(word.base for word in words[start : min(stop, start + 4)])
    return next((len(said) for said in phrases if opening[: len(said)] == said), 0)


def _ironic_opening(fragment: Fragment, sentence: range) -> str | None:
    words = fragment.words
    length = _opens_with(words, sentence.start, sentence.stop, senses.IRONIC_OPENERS)
    return phrase(words, sentence.start, sentence.start + length - 1) if length else None


def _has_subject(words: Sequence[Word], sentence: range) -> bool:
    return any(words[p].base in senses.SPEAKER_SUBJECTS | senses.OTHER_PRONOUNS for p in sentence)


def ironic(fragment: Fragment, focus: Focus) -> str | None:
    """The words that make the statement at `focus` ironic: an ironic opening of its sentence
    (or of a short subject-less one right before: "Oh great, another Monday. Love Mondays."),
    or an ironic tag after it in its sentence or the next ("Said no one ever.")."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.anchor)
    found = _ironic_opening(fragment, sentence)
    if found is None and sentence.start > 0:
        before = fragment.sentence_range(sentence.start - 1)
        if len(before) <= _LEAD_IN_WORDS and not _has_subject(words, before):
            found = _ironic_opening(fragment, before)
    if found is not None:
        return found
    later = fragment.sentence_range(focus.end).stop
    stop = fragment.sentence_range(later).stop if later < len(words) else later
    position = fragment.clause_range(focus.end).stop
    while position < stop:
        # A tag opens a clause of its own; a bare "Not." is one only as the whole clause.
        clause = fragment.clause_range(position)
        length = _opens_with(words, position, clause.stop, senses.IRONIC_TAGS)
        if length and (words[position].base != "not" or len(clause) == 1):
            return phrase(words, position, position + length - 1)
        position = clause.stop
    return None
