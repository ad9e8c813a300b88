"""Claim verification: do a claim's supporting fragments entail it, contradict it, or neither?

The pipeline depends only on the `ClaimVerifier` protocol, so a model-backed verifier can
replace `LexicalVerifier` later without touching it. The lexical one is deterministic and cheap,
and errs towards "insufficient": a claim it cannot settle stays a candidate, which costs a later
confirmation, while a wrong "entailed" could let a false belief through the gates.

How `LexicalVerifier` reads one fragment (all text goes through `graph.text`):
1. Subject: its salient words must all occur. A subject that is the person themself ("user",
   "me", "i", "self", "person") is satisfied by a first-person word (i, i'm, i've, im, me, my,
   mine, myself).
2. Object: its salient words must all occur close together (within `len(terms) + 2` words, any
   order), so "Acme Corp" matches "acme corp" and "corp acme" but not words far apart.
3. Cue: when the predicate has cue words (`policy.CUE_WORDS` by default), one must occur
   within 12 words of the object, because a bare mention of "Acme" says nothing about working
   there. A predicate without cue words skips this step.
4. Negation, only inside the object's clause (clauses end at , ; : . ! ? brackets, quotes and
   dashes): a negator up to 3 words before the object, or up to 2 words before a cue word that
   leads up to the object (and anything between them), or a trailing "anymore" / "no longer" /
   "no more" / "not anymore" up to 3 words after it. Negators: not, no, never, cannot, any
   "...n't" form and its apostrophe-less spellings, stopped, quit, former, formerly, "used to";
   "left" only for works_at and works_on, where leaving ends the relation.
A fragment whose object mentions are all unnegated affirms the object, all negated denies it,
and a mix is a conflict. A negative-polarity claim reads affirmation and denial the other way.

Across fragments a conflict wins: any contradiction makes the verdict "contradicted" even when
another fragment entails the claim, because disagreeing evidence must be reviewed, not promoted.
Otherwise any entailment gives "entailed", and no settling fragment gives "insufficient".

Known limits of reading words without parsing: "I don't think I like jazz" reads as liking jazz,
"not only do I love jazz" as denying it, "my sister works at Acme" satisfies a first-person
subject, and dates must be written the same way as in the claim.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from graph.memory.models import Polarity, Verdict
from graph.memory.predicates import CUE_WORDS
from graph.text import STOP_WORDS, is_negator, normalize, salient_terms, tokens

__all__ = [
    "SELF_SUBJECTS",
    "ClaimStatement",
    "ClaimVerifier",
    "FragmentReading",
    "LexicalVerifier",
    "Polarity",
    "Reading",
    "StatedClaim",
    "Verdict",
    "Verification",
    "statement_of",
]


@dataclass(frozen=True)
class ClaimStatement:
    subject: str
    predicate: str
    object: str
    polarity: str = Polarity.POSITIVE
    # What the host says of the claim beyond the triple: how it was said, when it held, and the
    # words of the fragment that say it. A verifier may read them; none is required.
    modality: str = "assertion"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: str | None = None


class StatedClaim(Protocol):
    """What a claim says, however it is held (a host's input, a stored claim node)."""

    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def polarity(self) -> str: ...
    @property
    def modality(self) -> str: ...
    @property
    def valid_from(self) -> datetime | None: ...
    @property
    def valid_to(self) -> datetime | None: ...
    @property
    def evidence(self) -> str | None: ...


def statement_of(claim: StatedClaim) -> ClaimStatement:
    """The claim as a verifier reads it."""
    return ClaimStatement(
        subject=claim.subject,
        predicate=claim.predicate,
        object=claim.object,
        polarity=claim.polarity,
        modality=claim.modality,
        valid_from=claim.valid_from,
        valid_to=claim.valid_to,
        evidence=claim.evidence,
    )


@dataclass(frozen=True)
class Verification:
    verdict: Verdict
    verifier: str
    # One short sentence naming what was found or missing, shown to the person and the host.
    reason: str


class ClaimVerifier(Protocol):
    @property
    def name(self) -> str: ...

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification: ...


SELF_SUBJECTS = frozenset({"user", "the user", "me", "i", "self", "myself", "person", "the person"})
_FIRST_PERSON = frozenset({"i", "i'm", "i've", "i'd", "i'll", "im", "ive", "me", "my", "mine", "myself"})
# Pairs are checked first so a reason quotes "no longer" rather than a bare "no".
_LEADING_PAIRS = frozenset({("no", "longer"), ("no", "more"), ("not", "anymore"), ("used", "to")})
_TRAILING_PAIRS = frozenset({("no", "longer"), ("no", "more"), ("any", "more"), ("not", "anymore")})
_DEPARTURE_PREDICATES = frozenset({"works_at", "works_on"})

_NEGATION_WINDOW = 3
_CUE_NEGATION_WINDOW = 2
_CUE_REACH = 6
_CUE_CONTEXT = 12
_TRAILING_WINDOW = 3
_PHRASE_SLACK = 2
_MAX_LISTED_FRAGMENTS = 3
_MAX_LABEL_CHARS = 60

_CLAUSE_BREAK = re.compile(r"[.!?](?=\s|$)|[,;:()\[\]{}\"\n\u201c\u201d\u2013\u2014\u3001\u3002]")


class Reading(StrEnum):
    """What one fragment says of a claim's object, before the claim's polarity is applied."""

    AFFIRMS = "affirms"
    DENIES = "denies"
    CONFLICTS = "conflicts"
    UNSETTLED = "unsettled"


@dataclass(frozen=True)
class FragmentReading:
    reading: Reading
    detail: str


@dataclass(frozen=True)
class _ClaimTerms:
    predicate: str
    object_label: str
    object_terms: tuple[str, ...]
    object_words: frozenset[str]
    subject_label: str
    # None when the subject is the person themself.
    subject_terms: tuple[str, ...] | None
    # In the table's order for quoting in reasons, and as a set for lookups.
    cues: tuple[str, ...]
    cue_set: frozenset[str]
    departure: bool


@dataclass(frozen=True)
class _Doc:
    words: tuple[str, ...]
    clauses: tuple[int, ...]


def label(text: str) -> str:
    short = " ".join(text.split())
    if len(short) > _MAX_LABEL_CHARS:
        short = short[: _MAX_LABEL_CHARS - 3] + "..."
    return f"'{short}'"


def _words(count: int) -> str:
    return f"{count} word" if count == 1 else f"{count} words"


def search_terms(text: str) -> tuple[str, ...]:
    # Salient words when there are any; otherwise a short or stop-word-only value ("Go",
    # "the UK", "He") is still looked for by the words it has.
    words = tokens(text)
    terms = salient_terms(text) or [w for w in words if w not in STOP_WORDS] or words
    return tuple(dict.fromkeys(terms))


def _read_doc(text: str) -> _Doc:
    words: list[str] = []
    clauses: list[int] = []
    # NFKC first so full-width punctuation also ends a clause.
    for index, clause in enumerate(_CLAUSE_BREAK.split(unicodedata.normalize("NFKC", text))):
        for word in tokens(clause):
            words.append(word)
            clauses.append(index)
    return _Doc(tuple(words), tuple(clauses))


def _find_mentions(doc: _Doc, terms: _ClaimTerms) -> list[tuple[int, int]]:
    """(first, last) word positions of each place where all object terms occur close together."""
    wanted = frozenset(terms.object_terms)
    span = len(wanted) + _PHRASE_SLACK
    words = doc.words
    mentions: list[tuple[int, int]] = []
    position = 0
    while position < len(words):
        window = words[position : position + span]
        if words[position] in wanted and wanted.issubset(window):
            start = position
            end = position + max(window.index(term) for term in wanted)
            # Grow over the object's own stop words, so the "no" of "No Doubt" is not a negation.
            while start > 0 and words[start - 1] in terms.object_words and end - start < span:
                start -= 1
            while end + 1 < len(words) and words[end + 1] in terms.object_words and end - start < span:
                end += 1
            mentions.append((start, end))
            position = end + 1
        else:
            position += 1
    return mentions


def _has_cue(doc: _Doc, mention: tuple[int, int], terms: _ClaimTerms) -> bool:
    if not terms.cue_set:
        return True
    start, end = mention
    nearby = doc.words[max(0, start - _CUE_CONTEXT) : end + _CUE_CONTEXT + 1]
    return not terms.cue_set.isdisjoint(nearby)


def _nearest_cue_before(doc: _Doc, start: int, cues: frozenset[str]) -> int | None:
    for position in range(start - 1, max(start - _CUE_REACH, 0) - 1, -1):
        if doc.clauses[position] != doc.clauses[start]:
            return None
        if doc.words[position] in cues:
            return position
    return None


def _leading_negator(words: Sequence[str], position: int, departure: bool) -> str | None:
    word = words[position]
    following = words[position + 1] if position + 1 < len(words) else ""
    if (word, following) in _LEADING_PAIRS:
        return f"{word} {following}"
    if is_negator(word) or (departure and word == "left"):
        return word
    return None


def _trailing_negator(words: Sequence[str], position: int) -> str | None:
    word = words[position]
    following = words[position + 1] if position + 1 < len(words) else ""
    if (word, following) in _TRAILING_PAIRS:
        return f"{word} {following}"
    return word if word == "anymore" else None


def _negation(doc: _Doc, mention: tuple[int, int], terms: _ClaimTerms) -> str | None:
    """Describe the negation that governs a mention, or None when it stands unnegated."""
    start, end = mention
    clause = doc.clauses[start]
    reach = start - _NEGATION_WINDOW
    cue = _nearest_cue_before(doc, start, terms.cue_set)
    if cue is not None:
        reach = min(reach, cue - _CUE_NEGATION_WINDOW)
    # Nearest first, so the reason quotes the negator closest to the object.
    for position in range(start - 1, max(reach, 0) - 1, -1):
        if doc.clauses[position] != clause:
            break
        phrase = _leading_negator(doc.words, position, terms.departure)
        if phrase is not None:
            return f"negation '{phrase}' {_words(start - position)} before it"
    for position in range(end + 1, min(end + 1 + _TRAILING_WINDOW, len(doc.words))):
        if doc.clauses[position] != clause:
            break
        phrase = _trailing_negator(doc.words, position)
        if phrase is not None:
            return f"negation '{phrase}' {_words(position - end)} after it"
    return None


def _subject_missing(doc: _Doc, terms: _ClaimTerms, where: str) -> str | None:
    present = frozenset(doc.words)
    if terms.subject_terms is None:
        if present.isdisjoint(_FIRST_PERSON):
            return f"no first-person word (i, me, my...) in {where} for subject {terms.subject_label}"
        return None
    missing = [term for term in terms.subject_terms if term not in present]
    return f"subject {terms.subject_label} not found in {where}" if missing else None


def _object_missing(doc: _Doc, terms: _ClaimTerms, where: str) -> str:
    present = frozenset(doc.words)
    missing = [term for term in terms.object_terms if term not in present]
    if missing:
        return f"object {terms.object_label} not found in {where} (missing: {', '.join(missing[:5])})"
    return f"the words of object {terms.object_label} occur in {where} but not together"


def _read_fragment(terms: _ClaimTerms, text: str, number: int) -> FragmentReading:
    doc = _read_doc(text)
    where = f"fragment {number}"
    subject_problem = _subject_missing(doc, terms, where)
    if subject_problem is not None:
        return FragmentReading(Reading.UNSETTLED, subject_problem)
    mentions = _find_mentions(doc, terms)
    if not mentions:
        return FragmentReading(Reading.UNSETTLED, _object_missing(doc, terms, where))
    cued = [mention for mention in mentions if _has_cue(doc, mention, terms)]
    found = f"object {terms.object_label} found in {where}"
    if not cued:
        examples = ", ".join(terms.cues[:4])
        return FragmentReading(
            Reading.UNSETTLED,
            f"{found} but no {terms.predicate} cue word ({examples}...) within {_CUE_CONTEXT} words of it",
        )
    negations = [_negation(doc, mention, terms) for mention in cued]
    negated = [negation for negation in negations if negation is not None]
    if not negated:
        return FragmentReading(Reading.AFFIRMS, f"{found}, not negated")
    if len(negated) == len(negations):
        return FragmentReading(Reading.DENIES, f"{found} with {negated[0]}")
    return FragmentReading(Reading.CONFLICTS, f"{found} both unnegated and with {negated[0]}")


def _verdict_for(reading: Reading, polarity: Polarity) -> Verdict:
    if reading is Reading.UNSETTLED:
        return Verdict.INSUFFICIENT
    if reading is Reading.CONFLICTS:
        return Verdict.CONTRADICTED
    affirms = reading is Reading.AFFIRMS
    return Verdict.ENTAILED if affirms == (polarity is Polarity.POSITIVE) else Verdict.CONTRADICTED


def combine(readings: Sequence[FragmentReading], polarity: Polarity, verifier: str) -> Verification:
    """The verdict over all fragments: any contradiction wins, then any entailment."""
    judged = [(_verdict_for(reading.reading, polarity), reading) for reading in readings]
    contradicting = [reading.detail for verdict, reading in judged if verdict is Verdict.CONTRADICTED]
    entailing = [reading.detail for verdict, reading in judged if verdict is Verdict.ENTAILED]
    suffix = " (the claim is negative)" if polarity is Polarity.NEGATIVE else ""
    if contradicting and entailing:
        reason = f"fragments disagree: {contradicting[0]}; {entailing[0]}"
        return Verification(Verdict.CONTRADICTED, verifier, reason + suffix)
    if contradicting:
        return Verification(Verdict.CONTRADICTED, verifier, contradicting[0] + suffix)
    if entailing:
        return Verification(Verdict.ENTAILED, verifier, entailing[0] + suffix)
    listed = "; ".join(reading.detail for reading in readings[:_MAX_LISTED_FRAGMENTS])
    unlisted = len(readings) - _MAX_LISTED_FRAGMENTS
    more = f"; {unlisted} more fragments settle nothing either" if unlisted > 0 else ""
    return Verification(Verdict.INSUFFICIENT, verifier, listed + more)


def _normalized_words(words: Iterable[str]) -> tuple[str, ...]:
    normalized = (normalize(word) for word in words)
    return tuple(dict.fromkeys(word for word in normalized if word))


def polarity_of(value: str) -> Polarity | None:
    wanted = normalize(value)
    return next((polarity for polarity in Polarity if polarity.value == wanted), None)


class LexicalVerifier:
    """Deterministic word-level verification; see the module docstring for exactly how it reads.

    `cue_words` maps predicates to the words that usually express them. An empty mapping asks
    for no cue at all, which makes the verifier say "entailed" on a bare mention.
    """

    name = "lexical-v1"

    def __init__(self, cue_words: Mapping[str, Iterable[str]] = CUE_WORDS) -> None:
        self._cue_words = {predicate: _normalized_words(words) for predicate, words in cue_words.items()}

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification:
        polarity = polarity_of(claim.polarity)
        if polarity is None:
            return self._result(
                Verdict.INSUFFICIENT, f"unknown polarity {label(claim.polarity)} (use positive or negative)"
            )
        terms = self._terms(claim)
        if not terms.object_terms or terms.subject_terms == ():
            return self._result(Verdict.INSUFFICIENT, "the claim's subject or object has no words to find")
        if not fragments:
            return self._result(Verdict.INSUFFICIENT, "no supporting fragments")
        readings = [_read_fragment(terms, text, number) for number, text in enumerate(fragments, start=1)]
        return combine(readings, polarity, self.name)

    def _terms(self, claim: ClaimStatement) -> _ClaimTerms:
        is_self = normalize(claim.subject) in SELF_SUBJECTS
        cues = self._cue_words.get(claim.predicate, ())
        return _ClaimTerms(
            predicate=claim.predicate,
            object_label=label(claim.object),
            object_terms=search_terms(claim.object),
            object_words=frozenset(tokens(claim.object)),
            subject_label=label(claim.subject),
            subject_terms=None if is_self else search_terms(claim.subject),
            cues=cues,
            cue_set=frozenset(cues),
            departure=claim.predicate in _DEPARTURE_PREDICATES,
        )

    def _result(self, verdict: Verdict, reason: str) -> Verification:
        return Verification(verdict=verdict, verifier=self.name, reason=reason)
