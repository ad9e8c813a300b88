"""Whether a sentence asks, and whether the person answers their own question ("Do I want to
go back to uni? Honestly, yes."): a question states nothing, but one the speaker asks of
themself and answers in the next sentence states the answer. Pure functions over
`sentences.Fragment`, as in `stance`.
"""

from __future__ import annotations

from graph.memory import senses
from graph.memory.sentences import Focus, Fragment


def _asks(fragment: Fragment, focus: Focus) -> bool:
    sentence = fragment.sentence_range(focus.anchor)
    last = fragment.words[sentence.stop - 1]
    tail = fragment.text[last.end : last.end + 4].lstrip(" \"'\u201d)")
    if not tail.startswith("?"):
        return False
    first = fragment.words[sentence.start]
    return first.base in senses.QUESTION_OPENERS or fragment.words[focus.first].clause == last.clause


def is_question(fragment: Fragment, focus: Focus) -> bool:
    """Whether the object's sentence asks rather than says, and no answer of the speaker's own
    follows it."""
    return _asks(fragment, focus) and answer(fragment, focus) is None


def _of_the_speaker(fragment: Fragment, focus: Focus) -> bool:
    """A question the speaker asks of themself: "Do I...", "Am I still...", or one with no
    subject at all ("Tea or coffee?", "Stepdaughter?")."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.anchor)
    opener = words[sentence.start]
    if opener.base in senses.QUESTION_OPENERS:
        return (
            opener.base not in senses.DELIBERATING
            and sentence.start + 1 < len(words)
            and words[sentence.start + 1].base in senses.SPEAKER_SUBJECTS
        )
    return not any(words[p].base in senses.OTHER_PRONOUNS for p in sentence)


def answer(fragment: Fragment, focus: Focus) -> tuple[bool, str] | None:
    """The speaker's answer to their own question, from the sentence right after it: (True,
    "yes") for a yes ("Honestly, yes", "Yep", "Every single day"), (False, "No") for a no; None
    for no answer ("No idea", "Not sure"), an ironic one ("Yeah right") or a question of
    someone else's."""
    words = fragment.words
    if not _asks(fragment, focus) or not _of_the_speaker(fragment, focus):
        return None
    after = fragment.sentence_range(focus.anchor).stop
    while after < len(words) and words[after].base in senses.ANSWER_FILLERS:
        after += 1
    if (
        after >= len(words)
        or words[after].sentence != words[fragment.sentence_range(focus.anchor).stop].sentence
    ):
        return None
    said, following = words[after], words[after + 1].base if after + 1 < len(words) else ""
    same_sentence = after + 1 < len(words) and words[after + 1].sentence == said.sentence
    if said.base in senses.YES_ANSWERS and not (same_sentence and following in senses.IRONIC_AFTER_YES):
        return True, said.written
    if said.base in senses.NO_ANSWERS and not (same_sentence and following in senses.NOT_AN_ANSWER):
        return False, said.written
    return None
