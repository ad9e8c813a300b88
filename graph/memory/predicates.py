"""Which predicates a claim may have, and each one's rule: one row per predicate.

Everything a reader needs to know about promotion lives in `PREDICATE_RULES`; `policy.py`
applies a row to a claim's evidence. This module imports nothing of the memory package, so the
wire models can advertise the predicates and the policy can read the verifier's verdicts
without an import cycle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from graph.errors import InvalidInputError

ASSERTION_MODALITY = "assertion"


class PredicatePolicy(StrEnum):
    # One active value at a time: a new value supersedes, loses to, or disputes the old one.
    SINGLE_CURRENT = "single_current"
    # Values accumulate; a new one never displaces another.
    MULTI_VALUED = "multi_valued"
    # A history: every accepted entry is kept.
    APPEND_ONLY = "append_only"


@dataclass(frozen=True)
class PredicateRule:
    predicate: str
    # How a person reads it between a subject and an object ("Ana works at Acme"); the name
    # stays for hosts and the graph.
    words: str
    policy: PredicatePolicy
    min_extract_conf: float
    min_resolution_conf: float
    # The claim's modality must be "assertion" (not belief, plan, hypothetical, question).
    requires_assertion: bool
    requires_entailment: bool
    # Evidence gate: this many independent active supporting fragments...
    min_support: int
    # ...or, alternatively, one source at least this good.
    min_source_quality: float
    # Words that usually express the predicate; the verifier wants one near the object.
    # Empty when the predicate is too open-ended for a word list to help.
    cue_words: tuple[str, ...]
    # The object names a day (a birth, a death): a value with no date in it can never hold.
    object_is_date: bool = False


_SC = PredicatePolicy.SINGLE_CURRENT
_MV = PredicatePolicy.MULTI_VALUED
_AO = PredicatePolicy.APPEND_ONLY

# Identity, birth, death and employment are stricter: a wrong value there is both costly and
# displaces the right one. has_goal accepts plans, which is how goals are usually stated.
# fmt: off
_RULES = (
    PredicateRule(
        "works_at", "works at", _SC, min_extract_conf=0.85, min_resolution_conf=0.80,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.95,
        # "left" and "quit" are cues as well as negations: "I left Acme" is about employment.
        cue_words=("work", "works", "worked", "working", "job", "employed", "employer", "employee",
                   "joined", "hired", "company", "career", "colleague", "colleagues", "boss", "left",
                   "quit"),
    ),
    PredicateRule(
        "identity_is", "is", _SC, min_extract_conf=0.90, min_resolution_conf=0.80,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.95,
        cue_words=("name", "named", "called", "call", "i'm", "am", "identify", "pronouns"),
    ),
    PredicateRule(
        "profile_fact", "is described as", _SC, min_extract_conf=0.80, min_resolution_conf=0.70,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.75,
        cue_words=(),
    ),
    PredicateRule(
        "born_on", "was born on", _SC, min_extract_conf=0.90, min_resolution_conf=0.80,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.95,
        cue_words=("born", "birthday", "birth", "birthdate"), object_is_date=True,
    ),
    PredicateRule(
        "died_on", "died on", _SC, min_extract_conf=0.90, min_resolution_conf=0.80,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.95,
        cue_words=("died", "dead", "death", "passed", "funeral", "lost"), object_is_date=True,
    ),
    PredicateRule(
        "likes", "likes", _MV, min_extract_conf=0.70, min_resolution_conf=0.60,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("like", "likes", "liked", "love", "loves", "loved", "enjoy", "enjoys",
                   "enjoyed", "favorite", "favourite", "fan", "into", "adore"),
    ),
    PredicateRule(
        "prefers", "prefers", _MV, min_extract_conf=0.70, min_resolution_conf=0.60,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("prefer", "prefers", "preferred", "preference", "rather", "instead",
                   "favorite", "favourite", "over"),
    ),
    PredicateRule(
        "uses", "uses", _MV, min_extract_conf=0.75, min_resolution_conf=0.65,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("use", "uses", "used", "using", "run", "runs", "running", "switched",
                   "installed", "rely"),
    ),
    PredicateRule(
        "knows", "knows", _MV, min_extract_conf=0.75, min_resolution_conf=0.70,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("know", "knows", "knew", "met", "friend", "friends", "colleague", "neighbor",
                   "neighbour", "mentor"),
    ),
    PredicateRule(
        "has_skill", "has a skill:", _MV, min_extract_conf=0.80, min_resolution_conf=0.65,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.75,
        cue_words=("can", "skill", "skilled", "expert", "fluent", "speak", "speaks", "proficient",
                   "experience", "experienced", "good", "certified", "know", "play", "plays", "code"),
    ),
    PredicateRule(
        "works_on", "works on", _MV, min_extract_conf=0.75, min_resolution_conf=0.65,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("work", "works", "working", "project", "building", "build", "developing",
                   "maintain", "maintaining", "writing", "contributing"),
    ),
    PredicateRule(
        "has_goal", "has a goal:", _MV, min_extract_conf=0.70, min_resolution_conf=0.60,
        requires_assertion=False, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("goal", "goals", "want", "wants", "plan", "planning", "hope", "aim", "aiming",
                   "wish", "intend", "trying", "dream"),
    ),
    PredicateRule(
        "relationship_to", "is related to", _MV, min_extract_conf=0.80, min_resolution_conf=0.75,
        requires_assertion=True, requires_entailment=True, min_support=2, min_source_quality=0.75,
        cue_words=("wife", "husband", "partner", "spouse", "married", "sister", "brother",
                   "mother", "mom", "mum", "father", "dad", "son", "daughter", "child", "friend",
                   "girlfriend", "boyfriend", "cousin", "aunt", "uncle", "colleague"),
    ),
    # Not in the anchor's table: the proposition a promoted dream puts forward ("A is connected
    # to B"). Strict on purpose: only independent memories that name both sides can carry it.
    PredicateRule(
        "connected_to", "is connected to", _MV, min_extract_conf=0.70, min_resolution_conf=0.60,
        requires_assertion=False, requires_entailment=True, min_support=2, min_source_quality=1.01,
        cue_words=(),
    ),
    PredicateRule(
        "corrected", "corrected:", _AO, min_extract_conf=0.80, min_resolution_conf=0.70,
        requires_assertion=True, requires_entailment=True, min_support=1, min_source_quality=0.50,
        cue_words=("actually", "correction", "correct", "wrong", "mistake", "meant", "instead"),
    ),
)
# fmt: on

PREDICATE_RULES: Mapping[str, PredicateRule] = MappingProxyType({rule.predicate: rule for rule in _RULES})

# What `LexicalVerifier` looks for near a claim's object, by predicate.
CUE_WORDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {rule.predicate: rule.cue_words for rule in _RULES}
)


# The first word of a predicate's words, said to the person ("you have a goal", not "user has").
_SAID_TO_YOU = {"is": "are", "was": "were", "has": "have"}


def in_words(predicate: str) -> str:
    """How a person reads a predicate; a name no rule knows (an older graph's) loses its underscores."""
    rule = PREDICATE_RULES.get(predicate)
    return rule.words if rule else predicate.replace("_", " ")


def statement_in_words(subject: str, predicate: str, object_: str) -> str:
    """A statement as a sentence a person reads; the person themself ("user") is "you"."""
    words = in_words(predicate)
    if subject.casefold() != "user":
        return f"{subject} {words} {object_}"
    verb, _, rest = words.partition(" ")
    verb = _SAID_TO_YOU.get(verb) or (verb[:-1] if verb.endswith("s") else verb)
    return " ".join(part for part in ("you", verb, rest, object_) if part)


class UnsupportedPredicateError(InvalidInputError, ValueError):
    def __init__(self, predicate: str, supported: Iterable[str]) -> None:
        self.predicate = predicate
        self.supported = tuple(sorted(supported))
        super().__init__(
            f"Predicate {predicate!r} is not supported. Use one of: {', '.join(self.supported)}."
        )


_MONTHS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.IGNORECASE,
)


def names_a_date(value: str) -> bool:
    """A number (a year, a day, 1990-03-14) or a month's name: the least a date says. Wider
    than any one format on purpose; the verifier still checks the fragment says it."""
    return any(character.isdigit() for character in value) or _MONTHS.search(value) is not None


def rule_for(predicate: str) -> PredicateRule:
    """The rule for a predicate; raises `UnsupportedPredicateError` naming the valid ones."""
    rule = PREDICATE_RULES.get(predicate)
    if rule is None:
        raise UnsupportedPredicateError(predicate, PREDICATE_RULES)
    return rule
