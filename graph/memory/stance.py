"""How a sentence stands towards one mention of a claim's object: whose it is, whether it is
denied, hedged, wished, asked or reported, when it holds, and whether a later clause takes it
back. Pure functions over `sentences.Fragment`; the verdict is the verifier's business.

The reading is a set of clause rules over lemmas, not a parse (docs/memory.md says why):
- who: the nearest subject before the words that say the claim, within their clause (or an
  earlier clause of the sentence): a first-person word is the speaker; "my sister", "Dad",
  "she", a capitalised name are someone else; no subject at all is the speaker's own elided
  "I" of diary-style speech ("Started at Quillmark on Monday").
- denied: a negator between that clause's start and the object whose reach no new subject
  cuts; one that negates a verb of thinking ("I don't think I...") hedges instead.
- mood: a question, a wish, a plan, a hedge or a belief in the clause or in subject-less
  clauses leading up to it; a reporting verb whose subject is someone else ("my boss says").
- time: ended ("used to", "no longer", "left"), past (a state verb in the past tense, "until
  June"), future ("next month", "will").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from lemminflect import getAllInflections

from graph.memory import senses
from graph.memory.sentences import Fragment, Word


class Whose(StrEnum):
    SPEAKER = "speaker"
    SUBJECT = "subject"
    OTHER = "other"


class Mood(StrEnum):
    ASSERTED = "asserted"
    QUESTION = "question"
    WISH = "wish"
    PLAN = "plan"
    HEDGE = "hedge"
    BELIEF = "belief"
    REPORTED = "reported"


class Time(StrEnum):
    CURRENT = "current"
    ENDED = "ended"
    PAST = "past"
    FUTURE = "future"


@dataclass(frozen=True)
class Reading:
    """One mention of the object, read in its sentence. Phrases quote the fragment's words."""

    whose: Whose
    who: str
    negation: str | None
    denial: str | None
    mood: Mood
    mood_phrase: str
    time: Time
    time_phrase: str
    taken_back: str | None


@dataclass(frozen=True)
class Focus:
    """Where the claim is said: the object's words and the cue nearest them (None: no cue)."""

    first: int
    last: int
    cue: int | None

    @property
    def anchor(self) -> int:
        return self.first if self.cue is None else min(self.cue, self.first)


def _phrase(words: Sequence[Word], first: int, last: int) -> str:
    return " ".join(word.written for word in words[first : last + 1])


# --- who -----------------------------------------------------------------------------------


def _is_person_noun(word: Word) -> bool:
    return not word.lemmas.isdisjoint(senses.PERSON_NOUNS)


def _is_name(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    if not word.capitalised or word.base == "i" or word.base in senses.SPEAKER_WORDS:
        return False
    at_start = position == 0 or words[position - 1].sentence != word.sentence
    # A capital at a sentence's start proves nothing unless the lexicon does not know the word.
    return not at_start or len(word.lemmas) == 1


def _subject_at(
    words: Sequence[Word], position: int, focus: Focus, subject_terms: frozenset[str]
) -> tuple[Whose, int] | None:
    """The subject a word makes, if it makes one, and where its phrase starts."""
    word = words[position]
    if subject_terms and word.base in subject_terms:
        return Whose.SUBJECT, position
    if word.base in senses.SPEAKER_SUBJECTS:
        return Whose.SPEAKER, position
    if word.base in senses.OTHER_PRONOUNS:
        return Whose.OTHER, position
    inside_focus = focus.first <= position <= focus.last
    if _is_person_noun(word) and not inside_focus:
        owner = words[position - 1] if position > 0 else None
        start = position - 1 if owner is not None and owner.base in senses.SPEAKER_POSSESSIVES else position
        return Whose.OTHER, start
    if _is_name(words, position) and not inside_focus:
        return Whose.OTHER, position
    return None


def find_subject(
    fragment: Fragment, focus: Focus, subject_terms: frozenset[str], person_object: bool
) -> tuple[Whose, str, int | None]:
    """Who the words at `focus` are said of: (whose, their words, where they stand)."""
    words = fragment.words
    anchor = focus.anchor
    sentence = fragment.sentence_range(anchor)
    for position in range(anchor - 1, sentence.start - 1, -1):
        word = words[position]
        if word.base in senses.SPEAKER_POSSESSIVES and position == anchor - 1:
            # "my job at Acme", "my sister Anna": the speaker's own.
            return Whose.SPEAKER, word.written, position
        found = _subject_at(words, position, focus, subject_terms)
        if found is None:
            continue
        whose, start = found
        if person_object and whose is Whose.OTHER and words[start].base in senses.SPEAKER_POSSESSIVES:
            # "my friend Tom": naming the speaker's relation is saying the speaker knows them.
            return Whose.SPEAKER, _phrase(words, start, position), start
        return whose, _phrase(words, start, position), start
    return Whose.SPEAKER, "", None


def reporter(fragment: Fragment, subject_at: int | None, anchor: int) -> str | None:
    """The words of someone else reporting the statement ("my boss says"), if anyone does."""
    words = fragment.words
    sentence = fragment.sentence_range(anchor)
    end = subject_at if subject_at is not None else anchor
    for position in range(end - 1, sentence.start - 1, -1):
        if not words[position].is_(*senses.REPORTING):
            continue
        if words[position].base == "accord":
            return _phrase(words, position, min(position + 2, end - 1))
        for back in range(position - 1, sentence.start - 1, -1):
            speaker = words[back]
            if speaker.base in senses.SPEAKER_SUBJECTS:
                break
            if speaker.base in senses.OTHER_PRONOUNS or _is_person_noun(speaker) or _is_name(words, back):
                start = back - 1 if back > 0 and words[back - 1].base in senses.SPEAKER_POSSESSIVES else back
                return _phrase(words, max(start, sentence.start), position)
    return None


# --- denied ----------------------------------------------------------------------------------


def _negator(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    if not (word.full in senses.NEGATORS or word.full.endswith("n't")):
        return False
    following = words[position + 1] if position + 1 < len(words) else None
    return following is None or following.base not in senses.NOT_DENIALS


def _starts_subject(word: Word) -> bool:
    return word.base in senses.SPEAKER_SUBJECTS or word.base in senses.OTHER_PRONOUNS


def negation(fragment: Fragment, focus: Focus, subject_at: int | None) -> tuple[str | None, bool]:
    """(the negating words, whether they only hedge) between the subject and the object."""
    words = fragment.words
    start = subject_at if subject_at is not None else fragment.clause_range(focus.anchor).start
    start = min(start, fragment.clause_range(focus.first).start)
    for position in range(start, focus.first):
        if words[position].clause != words[focus.first].clause and position < fragment.clause_range(
            focus.anchor
        ).start:
            continue
        if not _negator(words, position):
            continue
        later = range(position + 1, focus.anchor)
        if any(_starts_subject(words[between]) for between in later):
            governed = next((words[p] for p in later if not words[p].is_("really", "even", "actually")), None)
            if governed is not None and governed.is_(*senses.COGNITIVE):
                return _phrase(words, position, position + 1), True
            continue
        following = "no longer" if words[position].base == "no" and _next_is(words, position, "longer") else ""
        return following or words[position].written, False
    return None, False


def _next_is(words: Sequence[Word], position: int, *bases: str) -> bool:
    return position + 1 < len(words) and words[position + 1].base in bases


def denial(fragment: Fragment, focus: Focus, predicate: str) -> str | None:
    """A word that says the opposite of the predicate of the object ("hate", "can't stand")."""
    denying = senses.DENIALS.get(predicate, frozenset())
    words = fragment.words
    clause = fragment.clause_range(focus.first)
    for position in range(clause.start, focus.first):
        word = words[position]
        if word.is_(*denying):
            return word.written
        if word.base == "stand" and position > 0 and _negator(words, position - 1) and predicate == "likes":
            return _phrase(words, position - 1, position)
    return None


# --- mood ----------------------------------------------------------------------------------


def _scope(fragment: Fragment, focus: Focus) -> range:
    """The words that can hedge the focus: its clause up to the object, and the subject-less
    clauses of the sentence just before it ("Maybe one day, ...")."""
    words = fragment.words
    clause = fragment.clause_range(focus.anchor)
    start = clause.start
    sentence = fragment.sentence_range(focus.anchor)
    while start > sentence.start:
        previous = fragment.clause_range(start - 1)
        if any(_starts_subject(words[p]) for p in previous) or words[previous.stop - 1].is_("but"):
            break
        start = previous.start
    return range(start, focus.first)


def _ends_with_question(fragment: Fragment, focus: Focus) -> bool:
    sentence = fragment.sentence_range(focus.anchor)
    last = fragment.words[sentence.stop - 1]
    tail = fragment.text[last.end : last.end + 4].lstrip(" \"'\u201d)")
    if not tail.startswith("?"):
        return False
    first = fragment.words[sentence.start]
    return first.base in senses.QUESTION_OPENERS or fragment.words[focus.first].clause == last.clause


def mood(fragment: Fragment, focus: Focus) -> tuple[Mood, str]:
    """How the statement is put, with the words that put it so (empty for a plain assertion)."""
    if _ends_with_question(fragment, focus):
        return Mood.QUESTION, "?"
    words = fragment.words
    for position in _scope(fragment, focus):
        word = words[position]
        if word.is_(*senses.WISHES) or (word.full in {"i'd", "id", "would"} and _next_is(words, position, "love", "like")):
            return Mood.WISH, _phrase(words, position, position + 1)
        if word.is_(*senses.PLANS) or (word.base == "think" and _next_is(words, position, "about", "of")):
            return Mood.PLAN, _phrase(words, position, position + 1)
        if word.base == "one" and _next_is(words, position, "day"):
            return Mood.WISH, _phrase(words, position, position + 1)
        if word.base in senses.HEDGES:
            return Mood.HEDGE, word.written
        if word.is_(*senses.BELIEFS) and position > 0 and words[position - 1].base in senses.SPEAKER_SUBJECTS:
            return Mood.BELIEF, _phrase(words, position - 1, position)
    return Mood.ASSERTED, ""


# --- when ----------------------------------------------------------------------------------


@lru_cache(maxsize=4_096)
def _past_forms(lemma: str) -> frozenset[str]:
    return frozenset(getAllInflections(lemma).get("VBD", ()))


def _is_past_state(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    states = word.lemmas & senses.STATES
    if not any(word.full in _past_forms(lemma) for lemma in states):
        return False
    # "I've worked here for years" is perfect, and holds now.
    before = words[max(0, position - 2) : position]
    return not any(earlier.is_("have") for earlier in before)


def _time_marker(words: Sequence[Word], position: int, predicate: str) -> tuple[Time, str] | None:
    word = words[position]
    if word.base == "used" and _next_is(words, position, "to"):
        if position > 0 and words[position - 1].is_("be", "get"):
            return None
        return Time.ENDED, "used to"
    if word.base == "no" and _next_is(words, position, "longer", "more"):
        return Time.ENDED, _phrase(words, position, position + 1)
    if word.base in senses.ENDED:
        return Time.ENDED, word.written
    if predicate in {"works_at", "works_on", "uses"} and word.is_(*senses.ENDING_VERBS):
        return Time.ENDED, word.written
    if word.base in {"until", "till"}:
        return Time.PAST, _phrase(words, position, position + 1)
    if word.base in senses.FUTURE or word.full.endswith("'ll"):
        return Time.FUTURE, word.written
    if word.base in {"going", "about"} and _next_is(words, position, "to"):
        return Time.FUTURE, _phrase(words, position, position + 1)
    if word.base == "next" and position + 1 < len(words) and words[position + 1].is_(*senses.FUTURE_AFTER_NEXT):
        return Time.FUTURE, _phrase(words, position, position + 1)
    if _is_past_state(words, position):
        return Time.PAST, word.written
    return None


def time(fragment: Fragment, focus: Focus, predicate: str) -> tuple[Time, str]:
    """When the statement holds, by the words of its clause (and a following 'until' clause)."""
    words = fragment.words
    clause = fragment.clause_range(focus.anchor)
    end = fragment.clause_range(focus.last).stop
    if end < len(words) and words[end].sentence == words[focus.last].sentence and words[end].base in {
        "until",
        "till",
        "anymore",
    }:
        end = fragment.clause_range(end).stop
    found: tuple[Time, str] | None = None
    for position in range(clause.start, end):
        marker = _time_marker(words, position, predicate)
        if marker is not None and (found is None or marker[0] is Time.ENDED):
            found = marker
    return found or (Time.CURRENT, "")


# --- taken back ------------------------------------------------------------------------------

_TAKE_BACK_OPENERS = frozenset({"but", "actually", "well", "or", "though", "nah", "nope", "jk", "wait", "lol"})
_TAKE_BACK_WORDS = frozenset(
    """not no never nope nah really anymore kidding joking jk lol haha did used to do does was were
    is am are it that this i me so well actually or but though just anyway wait scratch mind never
    more longer any at all now until fell through happen happened last ago week month year
    yesterday recently then""".split()
)
_TAKE_BACK_SIGNS = frozenset({"kidding", "joking", "jk", "scratch", "did", "used", "fell"})


def taken_back(fragment: Fragment, focus: Focus) -> str | None:
    """Words of a later, content-free clause that take the statement back ("just kidding",
    "or I did until June", "well, not really"), looked for up to the end of the next sentence."""
    words = fragment.words
    position = fragment.clause_range(focus.last).stop
    limit_sentence = words[focus.last].sentence + 1
    while position < len(words) and words[position].sentence <= limit_sentence:
        clause = fragment.clause_range(position)
        said = [words[p] for p in clause]
        opener = said[0].base in _TAKE_BACK_OPENERS or said[0].sentence != words[focus.last].sentence
        content_free = all(word.base in _TAKE_BACK_WORDS or word.full in senses.NEGATORS for word in said)
        signs = any(word.base in _TAKE_BACK_SIGNS or word.full in senses.NEGATORS for word in said)
        if opener and content_free and signs:
            return _phrase(words, clause.start, clause.stop - 1)
        position = clause.stop
    return None
