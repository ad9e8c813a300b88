"""A fragment as the sentence verifier reads it: words with their lemmas, sentences, clauses.

Words are found by the rule of `graph.text.tokens`, but kept as written (so a capital can mark
a name) and with their place in the text, so an evidence span can be found among them. Each
word carries the lemmas of every reading lemminflect's English lexicon gives it ("joined" ->
join, "been" -> be, "kids" -> kid): rules name a lemma once instead of listing inflections.

A sentence ends at . ! ? or a line break; a clause also ends at , ; : brackets, dashes and
quotation marks, and before a word that opens a contrast ("but", "though"...), because a
negation or a hedge rarely reaches past one. Words inside double quotation marks are marked:
they are someone's words, maybe not the speaker's.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lemminflect import getAllLemmas, getAllLemmasOOV

from graph.text import normalize

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# A full stop after a lone letter or a title ("d. 2018", "Dr. Osei") ends no sentence.
_SENTENCE_END = re.compile(r"(?<!\b[A-HJ-Za-hj-z])(?<!\b(?:Mr|Ms|Dr|St))(?<!\bMrs)[.!?\n\u3002]+")
_CLAUSE_END = re.compile(r"[,;:()\[\]{}\u2013\u2014\u3001]|(?<=\s)-(?=\s)|--")
_QUOTE = re.compile(r"[\"\u201c\u201d]")
# Words that open a new clause even without punctuation before them.
CONTRAST_WORDS = frozenset({"but", "though", "although", "however", "whereas", "except", "yet"})
# Contractions whose first part is a pronoun and whose second a verb: "she's" reads as "she is".
_CLITICS = ("'s", "'m", "'re", "'ve", "'d", "'ll")
_BE_CLITICS = ("'m", "'re")
_VERB_CLITICS = ("'m", "'re", "'ve", "'ll", "'d")
_INFLECTED_ENDINGS = ("ing", "ed", "s")
# Chat drops the apostrophe: "im" is "I'm", "ive" is "I've".
_CHAT_CONTRACTIONS = {"im": frozenset({"i", "be"}), "ive": frozenset({"i", "have"})}
_PRONOUNS_WITH_IS = frozenset(["it", "he", "she", "that", "what", "there", "who", "here", "where", "how"])


@dataclass(frozen=True)
class Word:
    """One word: as written, its casefolded form without a clitic, its lemmas, where it stands."""

    written: str
    # Casefolded, a trailing clitic cut ("she's" -> "she", "acme's" -> "acme", "i'm" -> "i").
    base: str
    # The whole casefolded word ("i'm", "don't"): negations and contractions are read on it.
    full: str
    lemmas: frozenset[str]
    # Whether the English lexicon knows the word at all (a name usually is not known), and
    # whether it may be a noun.
    known: bool
    noun: bool
    verb: bool
    start: int
    end: int
    sentence: int
    clause: int
    quoted: bool

    @property
    def capitalised(self) -> bool:
        return self.written[:1].isupper()

    def is_(self, *lemmas: str) -> bool:
        return not self.lemmas.isdisjoint(lemmas)


@dataclass(frozen=True)
class Fragment:
    """A fragment's text (NFKC, apostrophes unified, case kept), its words in order, and where
    each sentence and clause begins and ends (by their numbers in `Word`)."""

    text: str
    words: tuple[Word, ...]
    sentences: Mapping[int, range]
    clauses: Mapping[int, range]

    def clause_range(self, index: int) -> range:
        """Word positions of the clause holding word `index`."""
        return self.clauses[self.words[index].clause]

    def sentence_range(self, index: int) -> range:
        """Word positions of the sentence holding word `index`."""
        return self.sentences[self.words[index].sentence]


def _runs(numbers: Sequence[int]) -> dict[int, range]:
    """The positions of each number in a non-decreasing sequence, as ranges."""
    runs: dict[int, range] = {}
    for position, number in enumerate(numbers):
        start = runs[number].start if number in runs else position
        runs[number] = range(start, position + 1)
    return runs


def _base(full: str) -> str:
    for clitic in _CLITICS:
        if full.endswith(clitic) and len(full) > len(clitic):
            return full[: -len(clitic)]
    return full


@lru_cache(maxsize=50_000)
def lemmas_of(word: str) -> frozenset[str]:
    """The word itself and every lemma the English lexicon gives it, casefolded; a word it
    does not know but that ends like an inflection also gets lemminflect's guess of its stem
    ("lifeguarding" -> lifeguard)."""
    found = {word}
    readings = getAllLemmas(word)
    if not readings and word.endswith(_INFLECTED_ENDINGS):
        readings = getAllLemmasOOV(word, "VERB")
    for lemmas in readings.values():
        found.update(lemma.casefold() for lemma in lemmas)
    return frozenset(found)


@lru_cache(maxsize=50_000)
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech the English lexicon knows the word as (empty: it does not know it)."""
    return frozenset(getAllLemmas(word))


def _word_lemmas(full: str, base: str) -> frozenset[str]:
    """The base's lemmas, with "be" for the verb a contraction hides ("i'm", "it's")."""
    lemmas = lemmas_of(base)
    if full in _CHAT_CONTRACTIONS:
        return lemmas | _CHAT_CONTRACTIONS[full]
    if full.endswith("'ve"):
        return lemmas | {"have"}
    if full.endswith(_BE_CLITICS) or (full.endswith("'s") and base in _PRONOUNS_WITH_IS):
        return lemmas | {"be"}
    return lemmas


def _boundaries(text: str, pattern: re.Pattern[str]) -> list[int]:
    return [match.start() for match in pattern.finditer(text)]


def read_fragment(text: str) -> Fragment:
    """Words, sentences and clauses of `text`; total for any string."""
    plain = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    sentence_ends = _boundaries(plain, _SENTENCE_END)
    quotes = _boundaries(plain, _QUOTE)
    clause_ends = sorted(sentence_ends + _boundaries(plain, _CLAUSE_END) + quotes)
    words: list[Word] = []
    clause = 0
    for match in _WORD.finditer(plain):
        full = normalize(match.group())
        if words and (full in CONTRAST_WORDS or _count_between(clause_ends, words[-1].end, match.start())):
            clause += 1
        base = _base(full)
        readings = parts_of_speech(base)
        words.append(
            Word(
                written=match.group(),
                base=base,
                full=full,
                lemmas=_word_lemmas(full, base),
                known=bool(readings),
                noun="NOUN" in readings,
                verb="VERB" in readings or "AUX" in readings or full.endswith(_VERB_CLITICS),
                start=match.start(),
                end=match.end(),
                sentence=bisect_left(sentence_ends, match.start()),
                clause=clause,
                quoted=bisect_left(quotes, match.start()) % 2 == 1,
            )
        )
    return Fragment(
        plain,
        tuple(words),
        _runs([word.sentence for word in words]),
        _runs([word.clause for word in words]),
    )


def _count_between(sorted_positions: Sequence[int], start: int, end: int) -> int:
    return bisect_left(sorted_positions, end) - bisect_left(sorted_positions, start)


def find_span(fragment: Fragment, span: str) -> range | None:
    """Word positions of `span` in the fragment (compared word by word, casefolded), or None."""
    plain = unicodedata.normalize("NFKC", span).translate(_APOSTROPHES)
    wanted = [normalize(word) for word in _WORD.findall(plain)]
    if not wanted:
        return None
    fulls = [word.full for word in fragment.words]
    for start in range(len(fulls) - len(wanted) + 1):
        if fulls[start : start + len(wanted)] == wanted:
            return range(start, start + len(wanted))
    return None


@dataclass(frozen=True)
class Focus:
    """Where the claim is said: the object's words and the cue nearest them (None: no cue)."""

    first: int
    last: int
    cue: int | None

    @property
    def anchor(self) -> int:
        return self.first if self.cue is None else min(self.cue, self.first)

    @property
    def end(self) -> int:
        return self.last if self.cue is None else max(self.cue, self.last)

    def holds(self, position: int) -> bool:
        return self.first <= position <= self.last
