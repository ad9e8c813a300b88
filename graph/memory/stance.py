"""How a sentence stands towards one mention of a claim's object: whose it is, whether it is
denied or reported (how it is put is in `mood`, asked in `questions`, ironic in `irony`; when it
holds and whether a later clause takes it back in `timing`). Pure functions over
`sentences.Fragment`; the verdict is the verifier's business.

The reading is a set of clause rules over lemmas, not a parse (docs/memory.md says why):
- who: the nearest subject before the words that say the claim, within their sentence: a
  first-person word is the speaker; "my sister", "Dad", "she", a name are someone else; no
  subject at all is the speaker's own elided "I" of diary-style speech ("Started at Quillmark").
- denied: a negator from that subject to the object (or to a cue after it) whose reach no new
  subject cuts; one that negates a verb of thinking ("I don't think I...") hedges instead.
- reported: a reporting verb whose subject is someone else ("my boss says"), unless a later
  clause agrees ("and she's right").
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache

from lemminflect import getAllInflections

from graph.memory import senses
from graph.memory.questions import answer
from graph.memory.sentences import CONTRAST_WORDS, Focus, Fragment, Word
from graph.text import STOP_WORDS


class Whose(StrEnum):
    SPEAKER = "speaker"
    SUBJECT = "subject"
    OTHER = "other"


class Time(StrEnum):
    CURRENT = "current"
    ENDED = "ended"
    PAST = "past"
    FUTURE = "future"


def phrase(words: Sequence[Word], first: int, last: int) -> str:
    return " ".join(word.written for word in words[first : last + 1])


def next_is(words: Sequence[Word], position: int, *bases: str) -> bool:
    return position + 1 < len(words) and words[position + 1].base in bases


@lru_cache(maxsize=4_096)
def _forms(lemma: str, tag: str) -> frozenset[str]:
    return frozenset(getAllInflections(lemma).get(tag, ()))


def has_form(word: Word, tag: str, lemmas: frozenset[str] | None = None) -> bool:
    return any(word.full in _forms(lemma, tag) for lemma in (word.lemmas if lemmas is None else lemmas))


# --- who -----------------------------------------------------------------------------------


def is_possessive(words: Sequence[Word], position: int) -> bool:
    """Whether a word ending in 's owns what follows ("Noor's wife") rather than hiding "is" or
    "has" before a verb, an article or a number ("Stepdaughter's got", "Mum's a nurse", "mum's 70")."""
    word = words[position]
    if not word.full.endswith("'s") or word.base in senses.OTHER_PRONOUNS:
        return False
    following = words[position + 1] if position + 1 < len(words) else None
    if following is None or following.sentence != word.sentence:
        return False
    participle = (
        following.verb and not following.noun and (has_form(following, "VBN") or has_form(following, "VBD"))
    )
    return not (following.base in senses.DETERMINERS or following.base.isdigit() or participle)


def _is_person_noun(word: Word) -> bool:
    return not word.lemmas.isdisjoint(senses.PERSON_NOUNS)


def _is_name(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    if not word.capitalised or word.base in senses.SPEAKER_WORDS or word.base in STOP_WORDS:
        return False
    if word.base in senses.INTERJECTIONS:
        return False
    # A capital proves little by itself ("National Insurance", a sentence's first word): a
    # name is a word the lexicon does not know, one that owns something ("Tom's brother"), or
    # one a verb agreeing with someone else follows ("Priya works", "Tom is").
    following = words[position + 1] if position + 1 < len(words) else None
    if word.full.endswith("'s") or (following is not None and _third_person_verb(following)):
        return True
    # An unknown word before a noun is more likely a number or a brand than a person.
    return not word.known and not word.base.isdigit() and (following is None or not _pure_noun(following))


def _pure_noun(word: Word) -> bool:
    return word.noun and not word.verb


def _third_person_verb(word: Word) -> bool:
    return word.full in {"is", "has", "does"} or (
        word.full.endswith("s") and has_form(word, "VBZ") and not has_form(word, "NNS")
    )


def is_person(words: Sequence[Word], position: int) -> bool:
    """Someone other than the speaker: a pronoun, a person noun, a name, "the receptionist"."""
    word = words[position]
    if word.base in senses.OTHER_PRONOUNS or _is_person_noun(word) or _is_name(words, position):
        return True
    return word.noun and word.base.endswith(senses.AGENT_ENDINGS)


def _acting_noun(words: Sequence[Word], position: int) -> bool:
    """A thing or a role that does something: "the barista keeps writing", "the form asks"."""
    word = words[position]
    return (
        (word.noun or not word.known)
        and position > 0
        and words[position - 1].base in senses.DETERMINERS - senses.SPEAKER_POSSESSIVES
        and position + 1 < len(words)
        # "keeps" may be a plural noun too; after "the barista" it is the verb.
        and has_form(words[position + 1], "VBZ")
    )


def _may_act(words: Sequence[Word], position: int) -> bool:
    """Whether a noun or a name stands where a subject (or an owner) can: not right after a
    preposition or a verb that acts on it ("lunch with Sam", "ditched Spotify", "back from
    Lisbon"), and a bare
    lower-case noun only before a verb ("password manager first", "leap-year baby here" name
    nothing that acts; "sis says hi" does)."""
    word = words[position]
    start = _name_start(words, position)
    before = words[start - 1] if start > 0 else None
    following = words[position + 1] if position + 1 < len(words) else None
    if before is not None and before.sentence == word.sentence and _governs(before):
        # ...unless a thing follows that goes to them: "bought Dad a Kindle" is Dad's Kindle.
        return following is not None and following.base in senses.DETERMINERS
    if word.capitalised or word.full.endswith("'s") or (following is not None and following.verb):
        return True
    return before is not None and (before.base in senses.DETERMINERS or before.full.endswith("'s"))


def _name_start(words: Sequence[Word], position: int) -> int:
    """The first word of the capitalised run holding `position` ("Corvid Labs"), stopping at a
    verb that opens the sentence ("Left Corvid Labs")."""
    start = position
    while (
        start > 0
        and words[start].capitalised
        and words[start - 1].capitalised
        and words[start - 1].sentence == words[position].sentence
    ):
        if words[start - 1].known and words[start - 1].verb:
            break
        start -= 1
    return start


def _governs(word: Word) -> bool:
    """A preposition, or a verb that takes what follows as its object (not one that opens a
    clause of its own, as "says" and "think" do)."""
    if word.base in senses.PREPOSITIONS:
        return True
    # A capitalised word that may be a verb before a name opens the sentence as one: "Left".
    verb = word.verb and (not word.noun or word.capitalised)
    return verb and not word.is_(*senses.REPORTING, *senses.COGNITIVE, "be")


def _subject_at(
    words: Sequence[Word], position: int, focus: Focus, subject_terms: frozenset[str]
) -> tuple[Whose, int] | None:
    """The subject a word makes, if it makes one, and where its phrase starts."""
    word = words[position]
    owner = words[position - 1] if position > 0 else None
    if subject_terms and word.base in subject_terms:
        if owner is not None and owner.full.endswith("'s") and owner.base not in subject_terms:
            # "My friend's mum": someone else's relation, not the claim's subject.
            return Whose.OTHER, position - 1
        return Whose.SUBJECT, position
    if word.base in senses.SPEAKER_SUBJECTS:
        return Whose.SPEAKER, position
    if focus.holds(position) or not (
        word.base in senses.OTHER_PRONOUNS
        or _is_person_noun(word)
        or _is_name(words, position)
        or _acting_noun(words, position)
    ):
        return None
    if word.base not in senses.OTHER_PRONOUNS and not _may_act(words, position):
        return None
    if word.base in senses.OBJECT_PRONOUNS or (
        word.base == "you" and (position + 1 >= len(words) or not words[position + 1].verb)
    ):
        # "told you yesterday", "visiting them": not who the sentence is about.
        return None
    if (
        next_is(words, position, "called", "named")
        and position + 2 == focus.first
        and not word.full.endswith("'s")
    ):
        # "Someone called Tom": the words that introduce the object, not who acts.
        return None
    start = position - 1 if owner is not None and owner.base in senses.SPEAKER_POSSESSIVES else position
    return Whose.OTHER, start


def find_subject(
    fragment: Fragment, focus: Focus, subject_terms: frozenset[str], person_object: bool
) -> tuple[Whose, str, int | None]:
    """Who the words at `focus` are said of: (whose, their words, where they stand)."""
    words = fragment.words
    anchor = focus.anchor
    owner = _owner_between(fragment, focus)
    if owner is not None:
        return Whose.OTHER, phrase(words, owner, owner), owner
    for position in range(anchor - 1, _subject_reach(fragment, anchor) - 1, -1):
        word = words[position]
        if word.base in senses.SPEAKER_POSSESSIVES and not any(
            _is_person_noun(words[between]) for between in range(position + 1, anchor)
        ):
            # "my job at Acme", "my full legal name": the speaker's own.
            return Whose.SPEAKER, word.written, position
        found = _subject_at(words, position, focus, subject_terms)
        if found is None:
            continue
        whose, start = found
        owned = whose is Whose.OTHER and words[start].base in senses.SPEAKER_POSSESSIVES
        if person_object and owned and position + 1 == focus.first:
            # "my friend Tom": naming the speaker's relation is saying the speaker knows them.
            return Whose.SPEAKER, phrase(words, start, position), start
        return whose, phrase(words, start, position), start
    return Whose.SPEAKER, "", None


def _owner_between(fragment: Fragment, focus: Focus) -> int | None:
    """Someone owning what the object is said to be, after it ("Daniel is my brother's name")."""
    words = fragment.words
    if focus.cue is None or focus.cue <= focus.last:
        return None
    clause = fragment.clause_range(focus.last)
    return next(
        (
            p
            for p in range(focus.last + 1, clause.stop)
            if words[p].full.endswith("'s") and is_person(words, p)
        ),
        None,
    )


def named_after(fragment: Fragment, focus: Focus, subject_terms: frozenset[str]) -> bool:
    """Whether the named subject stands between the cue and the object ("Lost Nana on ...",
    "since Dad died"): an event said of them with the speaker as witness."""
    words = fragment.words
    return any(
        not subject_terms.isdisjoint(words[position].lemmas)
        for position in fragment.clause_range(focus.anchor)
        if position < focus.first
    )


def names_another(fragment: Fragment, focus: Focus) -> str | None:
    """Naming words with someone other than the speaker between them and the name ("named the
    kitten Biscuit", "I'd call her Iris"): the name is theirs."""
    words = fragment.words
    if focus.cue is None or focus.cue > focus.first or not words[focus.cue].is_("name", "call"):
        return None
    between = [words[p] for p in range(focus.cue + 1, focus.first)]
    if any(word.base in senses.SPEAKER_WORDS for word in between):
        return None
    named = [
        word for word in between if word.noun or word.base in senses.OTHER_PRONOUNS | senses.OBJECT_PRONOUNS
    ]
    return " ".join(word.written for word in between) if named else None


def attributive(fragment: Fragment, focus: Focus) -> str | None:
    """The object describing another thing ("a vegetarian lasagne", "lots of left-handed
    people"), not said of anyone."""
    words = fragment.words
    after = focus.last + 1
    if focus.first == 0 or after >= len(words) or words[after].sentence != words[focus.last].sentence:
        return None
    if (
        words[focus.first - 1].base in senses.DESCRIBING
        and words[after].noun
        and (not words[after].verb or has_form(words[after], "NNS"))
    ):
        return phrase(words, focus.first - 1, after)
    return None


def _subject_reach(fragment: Fragment, anchor: int) -> int:
    """How far back a subject may stand: the sentence's start, or the start of the first
    clause on the way that a connective opens ("..., since getting fit is", "which is")."""
    words = fragment.words
    sentence = fragment.sentence_range(anchor)
    start = fragment.clause_range(anchor).start
    while start > sentence.start and words[start].base not in senses.CONNECTIVES:
        start = fragment.clause_range(start - 1).start
    return start


def reporter(fragment: Fragment, subject_at: int | None, focus: Focus) -> str | None:
    """The words of someone else reporting the statement ("my boss says"), unless the speaker
    agrees later in the sentence ("and honestly she's right")."""
    words = fragment.words
    sentence = fragment.sentence_range(focus.anchor)
    end = subject_at if subject_at is not None else focus.anchor
    for position in range(end - 1, sentence.start - 1, -1):
        if words[position].base in CONTRAST_WORDS:
            # "The team swears by Linear but I'm still on Jira": the report ends at the "but".
            return None
        if not words[position].is_(*senses.REPORTING):
            continue
        if words[position].is_("accord", "apparently"):
            return words[position].written
        for back in range(position - 1, sentence.start - 1, -1):
            if words[back].base in senses.SPEAKER_SUBJECTS:
                break
            if is_person(words, back):
                if _agreed(fragment, focus):
                    return None
                owned = back > sentence.start and words[back - 1].base in senses.SPEAKER_POSSESSIVES
                return phrase(words, back - 1 if owned else back, position)
    return None


def _agreed(fragment: Fragment, focus: Focus) -> bool:
    """The speaker agreeing with a report later in its sentence or in the next one ("and she's
    right", "They're not wrong")."""
    words = fragment.words
    after = fragment.sentence_range(focus.last).stop
    stop = fragment.sentence_range(after).stop if after < len(words) else after
    return any(
        words[later].is_(*senses.AGREEING) or (words[later].base == "wrong" and is_negator(words, later - 1))
        for later in range(focus.last + 1, stop)
    )


def quoted_from(fragment: Fragment, focus: Focus) -> str | None:
    """Who is quoted when the object stands inside quotation marks ('Sam texted: "I love
    jazz!"'): the "I" in someone else's quote is them. The speaker quoting themself is theirs."""
    words = fragment.words
    if not words[focus.first].quoted:
        return None
    sentence = fragment.sentence_range(focus.first)
    opening = focus.first
    while opening > sentence.start and words[opening - 1].quoted:
        opening -= 1
    for position in range(opening - 1, sentence.start - 1, -1):
        if words[position].base in senses.SPEAKER_SUBJECTS:
            return None
        if is_person(words, position):
            return phrase(words, position, opening - 1)
    return _attributed_after(fragment, focus)


def _attributed_after(fragment: Fragment, focus: Focus) -> str | None:
    """'"I love jazz," Sam said.': the quote's speaker named right after it."""
    words = fragment.words
    closing = focus.last
    while closing + 1 < len(words) and words[closing + 1].quoted:
        closing += 1
    after = range(closing + 1, min(closing + 4, len(words)))
    speaker = next(
        (p for p in after if words[p].base in senses.SPEAKER_SUBJECTS or is_person(words, p)), None
    )
    said = any(words[p].is_(*senses.REPORTING) for p in after)
    if speaker is None or not said or words[speaker].base in senses.SPEAKER_SUBJECTS:
        return None
    return phrase(words, speaker, after.stop - 1)


# --- denied ----------------------------------------------------------------------------------


def is_negator(words: Sequence[Word], position: int) -> bool:
    word = words[position]
    if not (word.full in senses.NEGATORS or word.full.endswith("n't")):
        return False
    return not _opens_idiom(words, position) and not any(
        _opens_idiom(words, earlier) and position - earlier <= 2
        for earlier in range(max(0, position - 2), position)
    )


def _opens_idiom(words: Sequence[Word], position: int) -> bool:
    """Whether a negator opens an idiom that denies nothing ("not only", "can't say no to": the
    "no" inside it denies nothing either)."""
    word = words[position]
    if not (word.full in senses.NEGATORS or word.full.endswith("n't")):
        return False
    following = tuple(w.base for w in words[position + 1 : position + 3])
    return any(following[: len(idiom)] == idiom for idiom in senses.NOT_DENIALS)


def starts_subject(word: Word) -> bool:
    return word.base in senses.SPEAKER_SUBJECTS or word.base in senses.OTHER_PRONOUNS


def negation(fragment: Fragment, focus: Focus, subject_at: int | None) -> tuple[str | None, bool]:
    """(the negating words, whether they only hedge) from the subject (or the clause's start)
    to the object, or to the cue when it follows the object in the same clause."""
    replied = answer(fragment, focus)
    if replied is not None and not replied[0]:
        # "Do I want kids? No.": the speaker's own answer denies what they asked.
        return replied[1], False
    words = fragment.words
    clause = fragment.clause_range(focus.first)
    start = min(clause.start, fragment.clause_range(focus.anchor).start)
    if subject_at is not None and words[subject_at].sentence == words[focus.first].sentence:
        start = min(start, subject_at)
    stop = focus.end if focus.end in clause else focus.first
    for position in range(start, stop + 1):
        if focus.holds(position) or position == focus.cue or not is_negator(words, position):
            continue
        later = range(position + 1, focus.anchor)
        if _closed_off(fragment, position, focus):
            continue
        if any(starts_subject(words[between]) for between in later):
            governed = next((words[p] for p in later if words[p].base not in senses.FILLERS), None)
            if governed is not None and governed.is_(*senses.COGNITIVE):
                return phrase(words, position, position + 1), True
            if governed is not None and governed.base in senses.DISOWNING:
                return _disowned(words, position, range(position + 1, stop + 1), focus)
            continue
        if words[position].base == "no" and next_is(words, position, "longer", "more"):
            return phrase(words, position, position + 1), False
        return words[position].written, False
    return None, False


def _closed_off(fragment: Fragment, negator: int, focus: Focus) -> bool:
    """A negator that has its own words in an earlier clause, closed by a dash or a semicolon
    ("I'm not unemployed anymore - started at Fennick Labs"): it negates those words only."""
    words = fragment.words
    own = fragment.clause_range(negator)
    if focus.anchor in own or own.stop >= len(words) or words[own.stop].sentence != words[negator].sentence:
        return False
    boundary = fragment.text[words[own.stop - 1].end : words[own.stop].start]
    has_words = any(words[p].base not in senses.FILLERS for p in range(negator + 1, own.stop))
    return has_words and any(mark in boundary for mark in ("-", "\u2013", "\u2014", ";"))


def _disowned(words: Sequence[Word], negator: int, rest: range, focus: Focus) -> tuple[str | None, bool]:
    """A negated verb of saying before a clause of its own ("Not gonna pretend I...", "Can't say
    I...", "Not that I...", "It's not like I..."): a second negator in that clause cancels the
    first ("...I don't adore reality TV" says the person adores it); without one the clause is
    what the speaker will not say, so it is denied."""
    second = next(
        (p for p in rest if not focus.holds(p) and p != focus.cue and is_negator(words, p)),
        None,
    )
    if second is not None:
        return None, False
    return phrase(words, negator, negator + 1), False


def denial(fragment: Fragment, focus: Focus, predicate: str) -> str | None:
    """A word that says the opposite of the predicate of the object ("hate", "can't stand")."""
    if predicate in senses.CHOICES:
        passed = passed_over(fragment, focus)
        if passed is not None:
            return passed
    denying = senses.DENIALS.get(predicate, frozenset())
    words = fragment.words
    clause = fragment.clause_range(focus.first)
    for position in range(clause.start, focus.first):
        word = words[position]
        later = range(position + 1, focus.first)
        # "I hate how much I love reality TV": a new subject says its own thing; "not bad at".
        said_alone = not any(starts_subject(words[p]) for p in later)
        if word.is_(*denying) and said_alone and (position == 0 or not is_negator(words, position - 1)):
            return word.written
        if (
            predicate == "likes"
            and word.base in {"stand", "bear"}
            and position > 0
            and is_negator(words, position - 1)
        ):
            return phrase(words, position - 1, position)
    return None


def passed_over(fragment: Fragment, focus: Focus) -> str | None:
    """The words that make the object the thing not chosen: "morning workouts over evening
    ones", "rather than the train", "prefer tea to coffee", "dark chocolate > milk"."""
    words = fragment.words
    if focus.first == 0:
        return None
    between = fragment.text[words[focus.first - 1].end : words[focus.first].start]
    if ">" in between:
        return ">"
    before = focus.first - 1
    while before > 0 and words[before].base in senses.DETERMINERS:
        before -= 1
    word = words[before]
    if word.sentence != words[focus.first].sentence:
        return None
    if word.base in senses.PASSED_OVER or (
        word.base == "of" and before > 0 and words[before - 1].base == "instead"
    ):
        return phrase(words, before, focus.first - 1)
    if word.base == "to" and any(words[p].is_("prefer") for p in fragment.clause_range(before) if p < before):
        return phrase(words, before, focus.first - 1)
    return None
