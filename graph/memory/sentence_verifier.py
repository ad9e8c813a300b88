"""`SentenceVerifier` ("sentence-v1"): reads each supporting fragment's sentences for who a
claim is about, whether it is denied, hedged, asked, reported, past or future, and whether a
later clause takes it back, then gives the verdict the lexical verifier's way (any
contradiction wins, then any entailment; else "insufficient").

In one fragment:
1. The object: its salient words close together, each matched by lemma ("hiking" finds
   "hike"), company endings ("Corp") and a longer object's leading verb ("buy a flat")
   optional; a date for born_on and died_on (`dates`). With an evidence span found in the
   fragment, only mentions in the span's sentences count; a fragment without it is read whole.
2. The predicate: a cue lemma or a construction that says it (`cues`). Predicates without
   cues need none.
3. The reading of `stance`: whose, reported, mood, denied, time, taken back; compared with the
   claim's subject, modality and validity (`valid_to` set: a past statement supports it;
   `valid_from` set: a future one does).
The last mention that settles the claim decides the fragment, so a later correction wins.
Every reason for not entailing says what to change, in words a host can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.memory import irony, mood, questions, senses, stance, timing
from graph.memory.cues import find_cue, others_relation
from graph.memory.dates import DateParts, ambiguous_date, date_parts, find_date_mentions
from graph.memory.models import Verdict
from graph.memory.mood import Mood
from graph.memory.predicates import PREDICATE_RULES
from graph.memory.sentences import Focus, Fragment, find_span, lemmas_of, parts_of_speech, read_fragment
from graph.memory.stance import Time, Whose
from graph.memory.verifier import (
    SELF_SUBJECTS,
    ClaimStatement,
    FragmentReading,
    Reading,
    Verification,
    combine,
    label,
    polarity_of,
    search_terms,
)
from graph.text import normalize, tokens

_PHRASE_SLACK = 2
_QUESTION = "it is asked, not said: a question states nothing"
_ASSERTED_MODALITIES = frozenset({"assertion", "belief"})
# Pronouns that may stand for a named subject the fragment names before them.
_REFERRING = frozenset({"he", "she", "they", "his", "her", "their", "him", "them"})


@dataclass(frozen=True)
class _Claim:
    statement: ClaimStatement
    object_terms: tuple[frozenset[str], ...]
    object_words: frozenset[str]
    # The object's date, for predicates whose object is one (born_on, died_on).
    date: DateParts | None
    about_speaker: bool
    # The lemmas of a named subject's words; empty when the subject is the person themself.
    subject_terms: frozenset[str]
    cues: frozenset[str]

    @property
    def predicate(self) -> str:
        return self.statement.predicate


def _object_terms(value: str) -> tuple[frozenset[str], ...]:
    """The object's search terms by lemma, less company endings ("Corp") and a leading verb of
    a longer object ("buy a flat", "lives in Leeds"): people say the thing, not the verb."""
    terms = search_terms(value)
    kept = [term for term in terms if term not in senses.ORG_SUFFIXES] or list(terms)
    # "husband Pete", "mother Ada": a relation noun that is also a verb names the relation.
    leading_verb = "VERB" in parts_of_speech(kept[0]) and lemmas_of(kept[0]).isdisjoint(senses.PERSON_NOUNS)
    if len(kept) > 1 and leading_verb and tokens(value)[0] == kept[0]:
        kept = kept[1:]
    return tuple(_with_doers(_with_kin(lemmas_of(term))) for term in kept)


def _with_kin(lemmas: frozenset[str]) -> frozenset[str]:
    """A relation's lemmas with the other words for it ("grandfather": grandad, grandpa...)."""
    return lemmas.union(*(senses.KIN.get(lemma, frozenset()) for lemma in lemmas))


def _with_doers(lemmas: frozenset[str]) -> frozenset[str]:
    """An activity's lemmas with the noun for one who does it: "swimming" is said as "a decent
    swimmer", "welding" as "a welder". Spellings that are no word never match a text's word."""
    doers = {
        doer
        for lemma in lemmas
        if "VERB" in parts_of_speech(lemma) and len(lemma) > 2
        for doer in (
            f"{lemma}er",
            f"{lemma}{lemma[-1]}er",
            f"{lemma}r" if lemma.endswith("e") else f"{lemma}er",
        )
    }
    return lemmas | doers


def find_mentions(
    fragment: Fragment, terms: Sequence[frozenset[str]], own_words: frozenset[str] = frozenset()
) -> list[tuple[int, int]]:
    """(first, last) positions where every object term occurs, each by one of its lemmas,
    within `len(terms) + 2` words, grown over the object's other words ("St" of "St Mary's")."""
    words = fragment.words
    span = len(terms) + _PHRASE_SLACK
    mentions: list[tuple[int, int]] = []
    position = 0
    while position < len(words):
        window = words[position : position + span]
        hits = [
            next((offset for offset, word in enumerate(window) if not word.lemmas.isdisjoint(term)), None)
            for term in terms
        ]
        if hits and hits[0] is not None and None not in hits and min(h for h in hits if h is not None) == 0:
            last = position + max(h for h in hits if h is not None)
            first = position
            while first > 0 and words[first - 1].base in own_words and last - first < span:
                first -= 1
            mentions.append((first, last))
            position = last + 1
        else:
            position += 1
    return mentions


@dataclass(frozen=True)
class _Settled:
    reading: Reading
    detail: str
    # How far the reading got: a reason from a mention that got further explains more.
    depth: int
    taken_back: bool = False


def _subject_problem(claim: _Claim, whose: Whose, who: str, named_earlier: bool) -> str | None:
    if claim.about_speaker:
        if whose is Whose.SPEAKER:
            return None
        return (
            f"the sentence is about '{who}', not the person: send subject '{who}' or a sentence "
            "the person says of themself"
        )
    subject = label(claim.statement.subject)
    if whose is Whose.SUBJECT or (named_earlier and whose is Whose.OTHER and who.casefold() in _REFERRING):
        return None
    about = "the speaker" if whose is Whose.SPEAKER else f"'{who}'"
    return f"the sentence is about {about}, not {subject}"


def _mood_problem(claim: _Claim, found: Mood, phrase: str) -> str | None:
    if found is Mood.ASSERTED:
        return None
    if found is Mood.QUESTION:
        return _QUESTION
    if claim.predicate in senses.WISHFUL or claim.statement.modality not in _ASSERTED_MODALITIES:
        return None
    if found is Mood.BELIEF and claim.statement.modality == "belief":
        return None
    kind = {Mood.WISH: "a wish", Mood.PLAN: "a plan", Mood.HEDGE: "a maybe", Mood.BELIEF: "a belief"}[found]
    modality = "belief" if found is Mood.BELIEF else "plan"
    return (
        f"'{phrase}' makes it {kind}, not an assertion: send modality {modality} (or has_goal for "
        "a goal), or nothing"
    )


def _time_reading(claim: _Claim, found: Time, phrase: str) -> tuple[Reading, str] | None:
    """None when the statement's time fits the claim's validity."""
    statement = claim.statement
    # A goal, or a claim sent as a plan, is about what is to come.
    wishful = claim.predicate in senses.WISHFUL or statement.modality not in _ASSERTED_MODALITIES
    # A choice said for later is a choice now: "I'll take the train over flying".
    later = wishful or statement.valid_from is not None or claim.predicate in senses.CHOICES
    if found is Time.CURRENT or (found is Time.FUTURE and later):
        return None
    if found in (Time.ENDED, Time.PAST) and statement.valid_to is not None:
        return None
    if found is Time.FUTURE:
        return (
            Reading.UNSETTLED,
            f"'{phrase}' says it has not started: send valid_from with the day it starts",
        )
    if found is Time.ENDED:
        return Reading.DENIES, f"'{phrase}' says it no longer holds (send valid_to for the past)"
    return Reading.UNSETTLED, f"'{phrase}' says it held in the past: send valid_to with the day it ended"


def _read_mention(
    fragment: Fragment, mention: tuple[int, int], claim: _Claim, where: str, span: range | None
) -> _Settled:
    found_at = f"object {label(claim.statement.object)} found in {where}"
    bare = Focus(mention[0], mention[1], None)
    if questions.is_question(fragment, bare):
        return _Settled(Reading.UNSETTLED, f"{found_at}, but {_QUESTION}", 3)
    cue = find_cue(fragment, bare, claim.predicate, claim.cues, span)
    vouched = claim.predicate not in senses.UNVOUCHED and _vouched(mention, span)
    owner = others_relation(fragment, bare) if claim.predicate == "relationship_to" else None
    if owner is not None:
        # The relation noun is there, but someone else's: saying so is what the host can fix.
        return _Settled(Reading.UNSETTLED, f"{found_at}, but {_relation_problem(owner)}", 2)
    if cue is None and claim.cues and not vouched:
        examples = ", ".join(sorted(claim.cues)[:5])
        return _Settled(
            Reading.UNSETTLED,
            f"{found_at} but no word saying {claim.predicate} ({examples}...) in its sentence: send "
            "as evidence the words that say it",
            1,
        )
    focus = Focus(mention[0], mention[1], cue)
    problem, subject_at = _whose_problem(fragment, focus, claim)
    if problem is not None:
        return _Settled(Reading.UNSETTLED, f"{found_at}, but {problem}", 2)
    return _read_stance(fragment, focus, claim, subject_at, found_at)


def _relation_problem(owner: str) -> str:
    whose = owner.removesuffix("'s")
    return f"the relation is {owner}, not the person's: send subject '{whose}'"


def _vouched(mention: tuple[int, int], span: range | None) -> bool:
    """Whether the host's evidence span holds the whole mention: the host read those words as
    saying the claim, so a missing predicate word does not refuse it. Who says it, and whether
    it is denied, hedged, asked, reported, past or taken back, is still read."""
    return span is not None and mention[0] in span and mention[1] in span


def _whose_problem(fragment: Fragment, focus: Focus, claim: _Claim) -> tuple[str | None, int | None]:
    """What is wrong with who the words are about, if anything, and where their subject is."""
    if claim.predicate in senses.SPEECH_ACTS and claim.about_speaker:
        # Who corrects is who says the correcting word ("Correction: Mara's surname is...",
        # "My sister corrected me"), not whom the corrected words are about; a correcting
        # word after the value ("Galway, sorry") is the speaker's own.
        words = fragment.words
        sentence = fragment.sentence_range(focus.first)
        said = next((p for p in sentence if not words[p].lemmas.isdisjoint(claim.cues)), None)
        if said is None or said >= focus.first:
            return None, None
        focus = Focus(said, said, None)
    whose, who, subject_at = stance.find_subject(
        fragment, focus, claim.subject_terms, claim.predicate in senses.PERSON_OBJECTS
    )
    event = not claim.about_speaker and claim.predicate in senses.EVENTS
    if whose is Whose.SPEAKER and event and stance.named_after(fragment, focus, claim.subject_terms):
        return None, subject_at
    named_earlier = any(
        not claim.subject_terms.isdisjoint(word.lemmas) for word in fragment.words[: focus.anchor]
    )
    problem = _subject_problem(claim, whose, who, named_earlier)
    if problem is None and claim.predicate == "identity_is":
        named = stance.names_another(fragment, focus)
        if named is not None:
            problem = f"it names '{named}', not the person"
    if problem is None and not claim.cues:
        described = stance.attributive(fragment, focus)
        if described is not None:
            problem = f"'{described}' uses it to describe something, not to say it of anyone"
    return problem, subject_at


def _read_stance(
    fragment: Fragment, focus: Focus, claim: _Claim, subject_at: int | None, found_at: str
) -> _Settled:
    reported = stance.reporter(fragment, subject_at, focus) or stance.quoted_from(fragment, focus)
    if reported is not None and not _self_report(claim, reported):
        return _Settled(
            Reading.UNSETTLED,
            f"{found_at}, but '{reported}' reports someone else's words: send what the person says "
            "themself, or authority 'other'",
            3,
        )
    mocked = irony.ironic(fragment, focus)
    if mocked is not None:
        return _Settled(
            Reading.UNSETTLED,
            f"{found_at}, but '{mocked}' makes it ironic: send what the person means, in their words",
            3,
        )
    found_mood, mood_phrase = mood.mood(fragment, focus)
    problem = _mood_problem(claim, found_mood, mood_phrase)
    if problem is not None:
        return _Settled(Reading.UNSETTLED, f"{found_at}, but {problem}", 3)
    negated, hedged = stance.negation(fragment, focus, subject_at)
    if negated is not None:
        if hedged:
            return _Settled(
                Reading.UNSETTLED, f"{found_at}, but '{negated}' doubts it rather than says it", 4
            )
        return _Settled(Reading.DENIES, f"{found_at} with negation '{negated}'", 4)
    denied = stance.denial(fragment, focus, claim.predicate)
    if denied is not None:
        return _Settled(Reading.DENIES, f"{found_at} with '{denied}', the opposite of {claim.predicate}", 4)
    found_time, time_phrase = timing.time(fragment, focus, claim.predicate)
    timed = _time_reading(claim, found_time, time_phrase)
    if timed is not None:
        return _Settled(timed[0], f"{found_at}, but {timed[1]}", 5)
    old = timing.replaced(fragment, focus) if claim.predicate in senses.SPEECH_ACTS else None
    if old is not None:
        return _Settled(
            Reading.UNSETTLED,
            f"{found_at}, but '{old}' marks it as the value being corrected: send the new value",
            6,
        )
    taken = timing.taken_back(fragment, focus)
    if taken is not None:
        return _Settled(
            Reading.UNSETTLED, f"{found_at}, but a later '{taken}' takes it back", 6, taken_back=True
        )
    return _Settled(Reading.AFFIRMS, f"{found_at}, said by {_said_by(claim, found_mood)}", 7)


def _self_report(claim: _Claim, reported: str) -> bool:
    """A named subject telling of themself ("She told us she learned to sail") is their word."""
    if claim.about_speaker:
        return False
    said = {word.casefold() for word in reported.split()}
    return not said.isdisjoint(_REFERRING) or not claim.subject_terms.isdisjoint(said)


def _said_by(claim: _Claim, found: Mood) -> str:
    who = "the person" if claim.about_speaker else label(claim.statement.subject)
    how = "" if found is Mood.ASSERTED else f" ({found.value})"
    return f"{who}, not negated{how}"


def _read(claim: _Claim, text: str, number: int) -> FragmentReading:
    fragment = read_fragment(text)
    where = f"fragment {number}"
    mentions = (
        find_date_mentions(fragment, claim.date)
        if claim.date is not None
        else find_mentions(fragment, claim.object_terms, claim.object_words)
    )
    span = find_span(fragment, claim.statement.evidence) if claim.statement.evidence else None
    if span is not None:
        sentences = {fragment.words[position].sentence for position in span}
        mentions = [m for m in mentions if fragment.words[m[0]].sentence in sentences] or mentions
    if not mentions:
        return FragmentReading(Reading.UNSETTLED, _object_missing(claim, fragment, where))
    settled: list[_Settled] = []
    for mention in mentions:
        settled.append(_read_mention(fragment, mention, claim, where, span))
        if settled[-1].taken_back:
            # Later mentions sit in the words that took it back.
            return FragmentReading(settled[-1].reading, settled[-1].detail)
    deciding = [reading for reading in settled if reading.reading is not Reading.UNSETTLED]
    chosen = deciding[-1] if deciding else max(settled, key=lambda reading: reading.depth)
    return FragmentReading(chosen.reading, chosen.detail)


def _object_missing(claim: _Claim, fragment: Fragment, where: str) -> str:
    unsettled = ambiguous_date(fragment, claim.date) if claim.date is not None else None
    if unsettled is not None:
        return (
            f"'{unsettled}' in {where} reads as one day written day first and another written "
            "month first: send the date in words, or words that settle the order"
        )
    present = frozenset(lemma for word in fragment.words for lemma in word.lemmas)
    own = claim.object_words
    # Name the object's own word, not another word for it ("wife", not "missus").
    missing = [
        min(term, key=lambda lemma: (lemma not in own, lemma))
        for term in claim.object_terms
        if present.isdisjoint(term)
    ]
    value = label(claim.statement.object)
    if missing:
        return (
            f"object {value} not found in {where} (missing: {', '.join(missing[:5])}): send the "
            "object in the person's own words"
        )
    return f"the words of object {value} occur in {where} but not together"


class SentenceVerifier:
    """Reads sentences for who, negation, mood, time and take-backs; see the module docstring."""

    name = "sentence-v1"

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification:
        polarity = polarity_of(claim.polarity)
        if polarity is None:
            reason = f"unknown polarity {label(claim.polarity)} (use positive or negative)"
            return Verification(Verdict.INSUFFICIENT, self.name, reason)
        terms = self._claim(claim)
        if not terms.object_terms or (not terms.about_speaker and not terms.subject_terms):
            return Verification(
                Verdict.INSUFFICIENT, self.name, "the claim's subject or object has no words to find"
            )
        if not fragments:
            return Verification(Verdict.INSUFFICIENT, self.name, "no supporting fragments")
        readings = [_read(terms, text, number) for number, text in enumerate(fragments, start=1)]
        return combine(readings, polarity, self.name)

    @staticmethod
    def _claim(claim: ClaimStatement) -> _Claim:
        about_speaker = normalize(claim.subject) in SELF_SUBJECTS
        rule = PREDICATE_RULES.get(claim.predicate)
        subject_terms = (
            frozenset()
            if about_speaker
            else frozenset(lemma for term in search_terms(claim.subject) for lemma in lemmas_of(term))
        )
        return _Claim(
            statement=claim,
            about_speaker=about_speaker,
            object_terms=_object_terms(claim.object),
            object_words=frozenset(tokens(claim.object)),
            date=date_parts(claim.object) if rule is not None and rule.object_is_date else None,
            subject_terms=subject_terms,
            cues=senses.CUES.get(claim.predicate, frozenset()),
        )
