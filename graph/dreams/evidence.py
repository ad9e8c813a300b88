"""What links two memories, and how strongly: the evidence a dream stands on.

Two kinds of evidence, each discounted for what is common in this profile:

- **Meaning.** The cosine of the two memories' vectors, compared with how close each one
  usually is to its nearest neighbours (the mean of its top `NEIGHBOURHOOD` cosines). Small
  embedding models put every chat line near every other (on LoCoMo half of all pairs have a
  cosine above 0.84), so raw cosine mostly measures tone and sentence shape. How far a pair is
  above both neighbourhoods (cross-domain similarity local scaling, CSLS) measures what the two
  share that their look-alikes do not.
- **Rare shared words.** Words both memories use that few memories of the profile use
  (names, places, things), weighted by squared inverse document frequency, by how rare the word
  is in English at large (wordfreq's Zipf scale: "door" and "heard" count for little, "pottery"
  for much, a name for all), and `ENTITY_WEIGHT` times more when the word names one thing: both
  write it as a name, or no other memory uses it and English rarely does ("axolotl",
  "falconry": a word that specific says what the two share whatever its case). Greetings,
  fillers and words found in more than `COMMON_SHARE` of the profile are not evidence at all.

A pair is a connection when the sum clears the floor and it is not a restatement (a
near-identical vector, or nearly the same words). The floor is `MIN_LINK_SCORE` in a profile of
`REFERENCE_SIZE` memories and lower in a smaller one, which compares fewer pairs, so chance
closeness reaches less far (`link_floor`). The weights were chosen on the LoCoMo development
split, measuring how often a pair is evidence of one question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from itertools import pairwise
from typing import Final

from lemminflect import getAllLemmas
from wordfreq import zipf_frequency

from graph.dreams.records import Memory
from graph.text import salient_terms, tokens

NEIGHBOURHOOD: Final = 10
# CSLS in units of a tenth of cosine: on the development split one unit is about two
# standard deviations of all pairs' CSLS.
CSLS_UNIT: Final = 0.1
RARE_WEIGHT: Final = 0.05
IDF_FLOOR_CORPUS: Final = 100
# On wordfreq's Zipf scale (log10 of uses per billion words): at or above EVERYDAY_ZIPF a word
# is everyday English and no evidence; at or below UNCOMMON_ZIPF it counts in full.
EVERYDAY_ZIPF: Final = 5.5
UNCOMMON_ZIPF: Final = 3.0
ENTITY_WEIGHT: Final = 3.0
# Below this English rarity (`english_rarity`) a word is everyday English ("work", "dinner").
EVERYDAY_RARITY: Final = 0.5
ENGLISH: Final = "en"
COMMON_SHARE: Final = 0.05
# Counting how many memories use a word stops here: past it the word is common at any size.
MAX_COUNTED: Final = 500
MIN_LINK_SCORE: Final = 3.0
# The profile size MIN_LINK_SCORE was chosen at (the development split's conversations hold 370
# to 680 memories), and the smallest for which the floor still shrinks: below it a memory has
# no neighbourhood to be measured against.
REFERENCE_SIZE: Final = 500
SMALLEST_SIZE: Final = NEIGHBOURHOOD + 2
# Each the other's nearest memory is worth this many units when the neighbourhood is the whole
# profile, and proportionally less as it becomes a smaller part of it (`meaning_score`).
MUTUAL_NEAREST: Final = 1.0
# Without vectors (semantic lane off) only words can link: one word shared by at most this
# many memories, or several rarer ones.
MIN_LEXICAL_SCORE: Final = 1.0
# With a model to judge each pair (the host's, or an endpoint), pairs from this share of the floor
# are offered to it: a wider set a model filters finds links the evidence alone cannot vouch for.
JUDGED_FLOOR_SHARE: Final = 0.75
NEAR_DUPLICATE_COSINE: Final = 0.96
NEAR_DUPLICATE_OVERLAP: Final = 0.7
# Two memories of one sitting are usually one exchange, which the person already connects.
SAME_MOMENT: Final = timedelta(hours=6)

# Words that carry the tone of a conversation, not its topic. A pair whose only common
# ground is these ("hey", "thanks", "since we talked") is not a connection.
_FILLER_TEXT = """
    hey hi hello hiya howdy bye goodbye thanks thank thx cheers welcome sorry please congrats yum yummy
    wow whoa ooh aww yay woohoo haha hahaha lol omg hmm umm well oh ah
    cool awesome amazing great nice good fine fantastic wonderful lovely super glad happy
    sure totally definitely absolutely exactly indeed literally actually basically honestly
    pretty quite kind sort lot lots much many thing things stuff something anything
    everything nothing someone anyone everyone way ways
    talk talked talking chat chatted chatting catch caught tell told say said saying
    know knew think thought feel felt mean meant guess hope hoped sounds sound seems seem
    since lately recently soon later today yesterday tomorrow tonight week weeks weekend
    day days time times month months year years ago long new old last next
    going gonna wanna gotta come came make made take took see saw look looking looks
    want wanted need needed like liked love loved really keep kept let's
    fav favs fave faves favorite favorites favourite favourites
    towards toward around through across along among within without upon onto via per
    even though yet already almost always sometimes often usually maybe perhaps probably
    able else another every whole together enough least less little big small
    oof ugh yikes phew whew meh ooh ohh yup nope gosh geez dang darn woah
    mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday january february march april june
    july august september october november december morning afternoon evening night
"""
FILLER_WORDS: Final = frozenset(_FILLER_TEXT.split())


@dataclass(frozen=True)
class SharedTerm:
    term: str
    frequency: int  # memories of the profile that use it (capped)
    english: float  # how rare the word is in English at large: 0 everyday .. 1 uncommon
    entity: bool  # both memories write it as a name
    # Both write it only as a hyphenated word's last part ("wracking" of "nerve-wracking"): part of
    # a modifier, never a thing's name (`compound_tails`).
    compound: bool = False
    # Both say it right beside another word they share, in one sentence ("aptitude test"): a
    # phrase of the two (`shared_phrases`).
    phrase: bool = False


@lru_cache(maxsize=65536)  # a night weighs the same words in many pairs; wordfreq tokenises each call
def english_rarity(term: str) -> float:
    zipf = zipf_frequency(term, ENGLISH)
    return min(1.0, max(0.0, (EVERYDAY_ZIPF - zipf) / (EVERYDAY_ZIPF - UNCOMMON_ZIPF)))


@dataclass(frozen=True)
class Meaning:
    cosine: float
    # The mean cosine of each memory to its nearest neighbours in the profile.
    first_neighbourhood: float
    second_neighbourhood: float
    # Each is the other's nearest memory.
    mutual_nearest: bool = False

    @property
    def distinctiveness(self) -> float:
        """How far the pair is above both neighbourhoods, in CSLS units."""
        local = 2 * self.cosine - self.first_neighbourhood - self.second_neighbourhood
        return local / CSLS_UNIT


@dataclass(frozen=True)
class CandidatePair:
    first: Memory
    second: Memory
    meaning: Meaning | None  # None when either memory has no vector of the running model
    shared: tuple[SharedTerm, ...]  # rare shared words, rarest first
    corpus_size: int
    # Rare words both say in one routine frame: no evidence of a link (`shared_words`).
    framed: tuple[SharedTerm, ...] = ()

    @property
    def apart(self) -> timedelta:
        return abs(self.second.when() - self.first.when())

    @property
    def topic(self) -> str | None:
        """What a link between the two is about: the root of their rarest shared word, the word
        the writer names (None for a pair close in meaning alone)."""
        return term_root(self.shared[0].term) if self.shared else None


@lru_cache(maxsize=65536)
def term_root(word: str) -> str:
    """A crude stem, enough to see that 'hiking' and 'hikes' share a word."""
    for suffix, keep in (("ing", 5), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep - 1:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=8192)  # a cycle looks at each memory's words once per pair it is in
def topical_terms(text: str) -> tuple[str, ...]:
    """Salient words that can be evidence: no fillers, no contractions, no bare numbers."""
    return tuple(
        term
        for term in salient_terms(text)
        if term not in FILLER_WORDS
        and term_root(term) not in FILLER_WORDS
        and "'" not in term
        and not term.isdigit()
        and _STRETCHED.search(term) is None
    )


@lru_cache(maxsize=8192)
def topical_roots(text: str) -> frozenset[str]:
    return frozenset(term_root(term) for term in topical_terms(text))


def shared_terms(first: str, second: str) -> tuple[str, ...]:
    """Topical words of `first` whose root `second` also uses, in `first`'s order."""
    roots = topical_roots(second)
    if roots.isdisjoint(topical_roots(first)):
        return ()
    return tuple(term for term in topical_terms(first) if term_root(term) in roots)


def common_ceiling(corpus_size: int) -> int:
    """The most memories a word may appear in and still be rare in this profile (counted, like
    idf, against at least IDF_FLOOR_CORPUS memories: a name three of twelve memories share is a
    thread, not a common word)."""
    return min(int(COMMON_SHARE * max(corpus_size, IDF_FLOOR_CORPUS)), MAX_COUNTED)


# "awww", "sooo", "yesss": a letter held for emphasis marks an exclamation, not a topic.
_STRETCHED = re.compile(r"(.)\1\1")
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_SENTENCE_END = '.!?:;"\u201c('


@lru_cache(maxsize=8192)
def _roots_by_case(text: str, case: Callable[[str], bool]) -> frozenset[str]:
    """Roots of the words of `text` whose first letter is in `case` (str.isupper, str.islower)."""
    return frozenset(
        term_root(plain[0])
        for m in _WORD.finditer(text)
        if case(m.group(0)[0]) and (plain := tokens(m.group(0)))
    )


def capitalised(text: str) -> frozenset[str]:
    """Roots of every word `text` writes with a capital, names or sentence openers alike."""
    return _roots_by_case(text, str.isupper)


def uncapitalised(text: str) -> frozenset[str]:
    """Roots of every word `text` writes in lower case: a word never written so is a name."""
    return _roots_by_case(text, str.islower)


def shared_names(first: str, second: str) -> frozenset[str]:
    """Words both memories capitalise and at least one writes as a name."""
    return capitalised(first) & capitalised(second) & (written_as_names(first) | written_as_names(second))


@lru_cache(maxsize=8192)
def written_as_names(text: str) -> frozenset[str]:
    """Roots of the words `text` writes as names: capitalised inside a sentence, or at its start
    when the next word, right after it, is capitalised too ("Casimir Vantongeren lent me...")."""
    words = list(_WORD.finditer(text))
    names = set()
    for index, match in enumerate(words):
        word = match.group(0)
        if not word[0].isupper():
            continue
        before = text[: match.start()].rstrip()
        starts_sentence = not before or before[-1] in _SENTENCE_END
        plain = tokens(word)
        if plain and (
            not starts_sentence or (_name_follows(text, words, index) and _may_be_a_name(plain[0]))
        ):
            names.add(term_root(plain[0]))
    return frozenset(names)


@lru_cache(maxsize=8192)
def _may_be_a_name(word: str) -> bool:
    """Whether a word opening a sentence before a name may be a first name: English's lexicon does
    not know it or reads it as a noun ("Casimir", "Rose"), never only as a verb or an adjective
    ("Brushed Vobounais after the run", "Tired Ana went home")."""
    readings = getAllLemmas(word)
    return not readings or "NOUN" in readings or "PROPN" in readings


def _name_follows(text: str, words: list[re.Match[str]], index: int) -> bool:
    if index + 1 >= len(words):
        return False
    following = words[index + 1]
    between = text[words[index].end() : following.start()]
    return between.isspace() and following.group(0)[0].isupper() and following.group(0) != "I"


# A name said to someone, not about them: after a greeting ("Hey Mel,"), or after a comma and
# closing an exclamation or question ("That's awesome, Caro!"). A comma before and after alone
# is not enough: that is also how lists of places and people are written.
_NAME = r"([^\W\d_][\w'\u2019-]*)"
_ADDRESS = re.compile(
    rf"\b(?:hey|hi|hello|thanks|thank you|bye|dear)\s+{_NAME}(?=\s*(?:[,!?.]|$))"
    rf"|,\s*{_NAME}(?=\s*(?:[!?]|$))",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def addressed_only(text: str) -> frozenset[str]:
    """Roots of the capitalised words `text` uses only to address someone: a term of address
    says who is spoken to, not what about, so two memories that both call someone by name
    share no topic by it."""
    names = [m.group(m.lastindex or 0) for m in _ADDRESS.finditer(text)]
    spans = {m.start(m.lastindex or 0) for m in _ADDRESS.finditer(text)}
    addressed = {term_root(plain[0]) for name in names if name[0].isupper() and (plain := tokens(name))}
    elsewhere = {
        term_root(plain[0])
        for m in _WORD.finditer(text)
        if m.start() not in spans and (plain := tokens(m.group(0)))
    }
    return frozenset(addressed - elsewhere)


# The words on one side of a word that make a sentence frame (`frames_around`), where a
# sentence's start and end count as words.
FRAME_WORDS: Final = 2
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_START, _END = "<start>", "<end>"


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each with the punctuation that ends it."""
    return _SENTENCE.findall(text)


def everyday(word: str) -> bool:
    """A word of everyday English ("work", "dinner") or of small talk ("yum")."""
    return word in FILLER_WORDS or english_rarity(word) < EVERYDAY_RARITY


@lru_cache(maxsize=8192)
def _sentence_words(text: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Each sentence's words between its start and end marks, with their roots."""
    said = ((_START, *tokens(sentence), _END) for sentence in sentences(text))
    return tuple((words, tuple(term_root(word) for word in words)) for words in said)


@lru_cache(maxsize=65536)  # one memory's word is weighed in every pair the memory is in
def frames_around(root: str, text: str) -> frozenset[tuple[str, ...]]:
    """The `FRAME_WORDS` words right before and right after each use of `root` in `text`, marked
    by side: every word, not only topical ones, since a routine's frame is mostly small words
    ("split with my flatmate", "Ugh, my inbox is"). A sentence's start or end counts as a word of
    the frame ("Cooked pasta with ...", "... the beans again."), but a frame needs one real word
    at least. A side with a name or a word English rarely uses is a subject's own phrase ("Harry
    Potter trivia", "the LGBTQ pride parade"), no frame."""
    found: set[tuple[str, ...]] = set()
    names = written_as_names(text)

    def framing(word: str) -> bool:
        # "I" and "TV" are capitalised and everyday: only a name English does not use every
        # day ("Potter", "LGBTQ") or a word it rarely uses breaks a frame.
        rarity = english_rarity(word)
        return rarity < 1.0 and (term_root(word) not in names or rarity < EVERYDAY_RARITY)

    for words, roots in _sentence_words(text):
        for at in (index for index, word_root in enumerate(roots) if word_root == root):
            before, after = words[max(0, at - FRAME_WORDS) : at], words[at + 1 : at + 1 + FRAME_WORDS]
            for side, frame in (("before", before), ("after", after)):
                real = [word for word in frame if word not in (_START, _END)]
                if len(frame) == FRAME_WORDS and real and all(map(framing, real)):
                    found.add((side, *frame))
    return frozenset(found)


def in_one_frame(term: str, texts: tuple[str, str]) -> bool:
    """Whether both texts say `term` in one frame: a routine sentence said twice with another
    value elsewhere ("Paid the phone bill, split with my flatmate", "Paid the car insurance,
    split with ..."), so the word comes with the routine rather than tying the two."""
    root = term_root(term)
    return bool(frames_around(root, texts[0]) & frames_around(root, texts[1]))


def shared_words(
    pair_texts: tuple[str, str], terms: Sequence[str], frequency: Mapping[str, int], corpus_size: int
) -> tuple[tuple[SharedTerm, ...], tuple[SharedTerm, ...]]:
    """The shared words few memories use, in two parts, each strongest first: the evidence, and
    those both say in one routine frame, which tie nothing (unless they name one thing only these
    two name) yet still make a restatement specific. Common words and names used only to address
    someone are in neither."""
    ceiling = common_ceiling(corpus_size)
    names = shared_names(*pair_texts)
    addressed = addressed_only(pair_texts[0]) | addressed_only(pair_texts[1])
    compounds = compound_tails(pair_texts[0]) & compound_tails(pair_texts[1])
    phrases = shared_phrases(*pair_texts)
    counted = sorted(
        (
            SharedTerm(term, count, english_rarity(term), root in names, root in compounds, root in phrases)
            for term in terms
            if (count := max(1, frequency.get(term, 1))) <= ceiling
            and (root := term_root(term)) not in addressed
        ),
        key=lambda t: (-term_weight(t, corpus_size), t.term),
    )
    framed = [term for term in counted if not only_these_name(term) and in_one_frame(term.term, pair_texts)]
    return tuple(term for term in counted if term not in framed), tuple(framed)


# A word joined to the one before it by a hyphen: "nerve-wracking", "dairy-free".
_HYPHENATED = re.compile(r"[^\W\d_][\w'\u2019]*(?:-[^\W\d_][\w'\u2019]*)+")


@lru_cache(maxsize=8192)
def compound_tails(text: str) -> frozenset[str]:
    """Roots of the words `text` writes only as the last part of a hyphenated word. "Wracking" of
    "nerve-wracking" is an adjective's tail, so its -ing form names no pastime as "quilting" does."""
    tails = {
        term_root(plain[0])
        for match in _HYPHENATED.finditer(text)
        if (plain := tokens(match.group(0).rsplit("-", 1)[1]))
    }
    return frozenset(tails - {term_root(word) for word in tokens(_HYPHENATED.sub(" ", text))})


def shared_phrases(first: str, second: str) -> frozenset[str]:
    """Roots of the topical words both texts say right beside another topical word both say, the
    two in the same order within one sentence ("failed the military aptitude test", "retook the
    aptitude test"): a phrase said again, not two words met apart."""
    pairs = _adjacent_roots(first) & _adjacent_roots(second)
    return frozenset(root for pair in pairs for root in pair)


@lru_cache(maxsize=8192)
def _adjacent_roots(text: str) -> frozenset[tuple[str, str]]:
    topical = topical_roots(text)
    found = set()
    for sentence in sentences(text):
        roots = [term_root(word) for word in tokens(sentence)]
        found |= {(a, b) for a, b in pairwise(roots) if a != b and {a, b} <= topical}
    return frozenset(found)


# Endings of nouns made from adjectives: "togetherness", "sisterhood" name a quality or a state.
QUALITY_ENDINGS: Final = ("ness", "hood")


@lru_cache(maxsize=65536)
def names_a_quality(term: str) -> bool:
    """Whether the word says how something is rather than what it is: English's lexicon also reads
    it as an adjective ("cathartic"), or it is a noun made from one ("togetherness"). Two memories
    may say it of two different things (music and painting, both cathartic), so it points at no
    one thing, however rare."""
    word = term.casefold()
    return word.endswith(QUALITY_ENDINGS) or "ADJ" in getAllLemmas(word)


@lru_cache(maxsize=65536)
def only_a_noun(term: str) -> bool:
    """Whether English's lexicon reads the word as a noun and nothing else, or does not know it
    ("aptitude", "trivia"): not "guts" (to gut), "hopeful" or "nerve" (to nerve oneself)."""
    return set(getAllLemmas(term.casefold())) <= {"NOUN", "PROPN"}


def idf(term: SharedTerm, corpus_size: int) -> float:
    # Counted against at least IDF_FLOOR_CORPUS memories: in a young profile every word is rare
    # by count, and a name two of twelve memories share tells as much as in a larger one.
    return math.log(max(corpus_size, IDF_FLOOR_CORPUS) / term.frequency)


@lru_cache(maxsize=65536)
def can_name_a_thing(term: str) -> bool:
    """Whether the word can be a noun: English's lexicon (lemminflect's) gives it a noun reading,
    or does not know it (a name, "axolotl", "EpiPen"), or it is a verb's -ing form, which names
    an activity ("quilting", "whittling"; the lexicon lists those as verbs only). "Elated",
    "swamped", "brightens" and "yep" cannot: they say how something felt or went, not what it
    was about."""
    word = term.casefold()
    readings = getAllLemmas(word)
    gerund = word.endswith("ing") and "VERB" in readings
    return not readings or gerund or "NOUN" in readings or "PROPN" in readings


def names_one_thing(term: SharedTerm) -> bool:
    """A name both write, or a word only this pair uses that is uncommon in English in full and
    can be a noun: either points at one thing (a person, an axolotl, falconry) rather than a
    mood ("hectic", "elated") or a quality ("cathartic", "togetherness"). So does a word only
    this pair uses that is no everyday word and only a noun, which both say in one phrase with
    another word they share ("aptitude test", "Potter trivia"): the phrase names the thing where
    the word alone is commoner English."""
    if term.entity:
        return True
    if term.compound or term.frequency > 2 or names_a_quality(term.term):
        return False
    uncommon = term.english >= 1.0 and can_name_a_thing(term.term)
    return uncommon or (term.phrase and term.english >= EVERYDAY_RARITY and only_a_noun(term.term))


def term_weight(term: SharedTerm, corpus_size: int) -> float:
    named = ENTITY_WEIGHT if names_one_thing(term) else 1.0
    return idf(term, corpus_size) ** 2 * term.english * named


def word_score(pair: CandidatePair) -> float:
    return RARE_WEIGHT * sum(term_weight(term, pair.corpus_size) for term in pair.shared)


def mutual_bonus(pair: CandidatePair) -> float:
    """Being each other's nearest memory, in units. CSLS compares a pair with its look-alikes;
    in a small profile the neighbourhood is nearly every memory, so it compares the pair with
    the average memory instead, and only the ranks still say "closer than any other". In a
    large profile the neighbourhood is a small part of it and CSLS already says as much."""
    if pair.meaning is None or not pair.meaning.mutual_nearest:
        return 0.0
    return MUTUAL_NEAREST * min(1.0, NEIGHBOURHOOD / max(pair.corpus_size - 1, 1))


def meaning_score(pair: CandidatePair) -> float:
    return pair.meaning.distinctiveness + mutual_bonus(pair) if pair.meaning is not None else 0.0


def is_restatement(pair: CandidatePair) -> bool:
    """Near-identical vectors or nearly the same words: saying a thing twice links nothing."""
    if pair.meaning is not None and pair.meaning.cosine >= NEAR_DUPLICATE_COSINE:
        return True
    return (
        jaccard(set(topical_terms(pair.first.text)), set(topical_terms(pair.second.text)))
        >= NEAR_DUPLICATE_OVERLAP
    )


def jaccard(first: AbstractSet[str], second: AbstractSet[str]) -> float:
    """The words both hold over the words either holds (0 when neither holds any)."""
    union = first | second
    return len(first & second) / len(union) if union else 0.0


def only_these_name(term: SharedTerm) -> bool:
    """Whether the word names one thing (a person, a place, an axolotl) and only the pair says it."""
    return term.frequency <= 2 and names_one_thing(term)


def shares_a_unique_name(pair: CandidatePair) -> bool:
    return any(map(only_these_name, pair.shared))


def evidence_score(pair: CandidatePair) -> float:
    """Meaning and rare words as one number, whether or not it makes a connection.

    Where the two are the only memories naming one thing, meaning can add to the name but not
    take it away: a vector stands for a whole memory, and a name said in passing beside other news
    ("...calm shift. Lent Treladou my umbrella.") is drowned by the rest, so two memories that are
    otherwise about different days read as far apart while the name ties them all the same."""
    meaning = meaning_score(pair)
    if shares_a_unique_name(pair):
        meaning = max(meaning, 0.0)
    return meaning + word_score(pair)


def link_floor(corpus_size: int, with_meaning: bool = True) -> float:
    """The score a connection needs in a profile of `corpus_size` memories.

    The floors were chosen so that chance (a pair that is close or shares words by accident)
    stays under them in a profile of REFERENCE_SIZE memories. The most that chance reaches
    grows with the number of pairs compared, as the square root of its logarithm (the expected
    maximum of that many normal draws), so a smaller profile gets a proportionally lower floor;
    a larger one keeps the chosen floor (its seeded cycles compare a bounded number of pairs)."""
    floor = MIN_LINK_SCORE if with_meaning else MIN_LEXICAL_SCORE
    size = min(max(corpus_size, SMALLEST_SIZE), REFERENCE_SIZE)
    return floor * math.sqrt(
        math.log(size * (size - 1) / 2) / math.log(REFERENCE_SIZE * (REFERENCE_SIZE - 1) / 2)
    )


def own_names(text: str) -> frozenset[str]:
    """Roots of the names `text` writes that are not everyday English ("Hvar", "Lofoten", not "Mum")."""
    return frozenset(name for name in written_as_names(text) if not everyday(name))


def names_two_things(pair: CandidatePair) -> bool:
    """Close in meaning alone, while each memory names something the other does not: a ferry
    booked to one island and a cabin offered on another are two of a kind, not one thing, so
    closeness says only that the two are alike (two trips, two pets), which a link cannot defend."""
    if pair.shared:
        return False
    first, second = own_names(pair.first.text), own_names(pair.second.text)
    return bool(first) and bool(second) and not first & second


def link_score(pair: CandidatePair, floor_share: float = 1.0) -> float | None:
    """The pair's evidence as one number, or None when it is no connection worth a dream; a
    model that judges each pair gets those from `floor_share` of the floor (`JUDGED_FLOOR_SHARE`)."""
    if is_restatement(pair) or names_two_things(pair):
        return None
    score = evidence_score(pair)
    return score if score >= floor_share * link_floor(pair.corpus_size, pair.meaning is not None) else None
