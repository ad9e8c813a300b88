"""The deterministic writer: a dream's texts from its two memories and the evidence between them.

Every text is built from the pair itself: what both memories name, excerpts around it, when
each was said and how far apart. The hypothesis is a statement the person can answer yes or
no; `why` is the one line a list shows; the rationale lays out every figure behind the scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph.dreams.evidence import (
    SAME_MOMENT,
    CandidatePair,
    SharedTerm,
    can_name_a_thing,
    idf,
    meaning_score,
    mutual_bonus,
    names_one_thing,
    term_root,
    topical_roots,
    word_score,
)
from graph.dreams.records import Memory
from graph.text import as_written, tokens

EXCERPT_CHARS = 110
SHORT_CHARS = 50
# A longer "phrase" is a whole unspaced sentence (Chinese, Japanese), not a name.
TOPIC_CHARS = 40
_PUNCTUATION = ".,!?;:\"'()[]…"


@dataclass(frozen=True)
class DreamTexts:
    hypothesis: str
    why: str
    what_if: str
    possible_outcome: str
    rationale: str
    likelihood: float
    confidence: float


def day_of(moment: datetime) -> str:
    return f"{moment.day} {moment:%B %Y}"


def span_of(apart: timedelta) -> str:
    """How long, in words: "3 months", "12 days", "a day", "less than a day"."""
    days = apart.days
    if days >= 60:
        return f"{round(days / 30.4)} months"
    if days >= 2:
        return f"{days} days"
    return "a day" if days == 1 else "less than a day"


def _gap(apart: timedelta) -> str:
    return "on the same day" if apart.days == 0 else f"{span_of(apart)} apart"


def _position(term: str, words: list[str]) -> int | None:
    """Where `words` first use `term` in any case or form ("Rome" in "...trip to Rome.", "bowls"
    in "...my hand-painted bowl")."""
    wanted = {term_root(token) for token in tokens(term)}
    return next(
        (i for i, word in enumerate(words) if any(term_root(token) in wanted for token in tokens(word))), None
    )


def excerpt(text: str, term: str | None, limit: int) -> str:
    """The words around the first use of `term` (or the start), at most `limit` characters,
    whole words only; an ellipsis marks each cut."""
    words = text.split()
    start = (_position(term, words) or 0) if term is not None else 0
    # Keep a few words before the term so the excerpt reads as a phrase, not a fragment.
    start = max(0, start - 6)
    chosen: list[str] = []
    for word in words[start:]:
        if len(" ".join([*chosen, word])) > limit:
            break
        chosen.append(word)
    if not chosen:
        return _character_window(text, term, limit)
    lead = "…" if start > 0 else ""
    tail = "…" if start + len(chosen) < len(words) else ""
    return f"{lead}{' '.join(chosen)}{tail}"


# How far a cut in an unspaced text may move to land on a boundary rather than inside a word.
BOUNDARY_REACH = 12


def _inside_word(text: str, at: int) -> bool:
    """Whether a cut before `text[at]` would split a word of a spaced script ("Witcher") or a
    number; between two Han or kana characters, or at punctuation or space, it splits none."""
    if at <= 0 or at >= len(text):
        return False
    before, after = text[at - 1], text[at]
    return _spaced_word_char(before) and _spaced_word_char(after)


def _spaced_word_char(char: str) -> bool:
    return char.isalnum() and not _unspaced(char)


def _unspaced(char: str) -> bool:
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


def _boundary(text: str, at: int, step: int) -> int:
    """The nearest cut from `at`, moving by `step`, that is at punctuation or whitespace, else
    one not inside a word, within BOUNDARY_REACH characters; `at` itself if there is none."""
    reach = [at + step * k for k in range(BOUNDARY_REACH) if 0 <= at + step * k <= len(text)]
    for cut in reach:
        if 0 < cut < len(text) and not text[cut - 1].isalnum():
            return cut
    return next((cut for cut in reach if not _inside_word(text, cut)), at)


def _character_window(text: str, term: str | None, limit: int) -> str:
    """For a text with a word longer than the limit (Chinese or Japanese, written without
    spaces): about `limit` characters from a little before the term, cut where no word is split
    (after punctuation where one is near), each cut marked with an ellipsis."""
    found = text.casefold().find(term) if term is not None else -1
    start = _boundary(text, max(0, found - 10), -1) if found > 0 else 0
    end = _boundary(text, start + limit, -1) if start + limit < len(text) else len(text)
    if end <= start:  # one unbroken word longer than the window: cut it rather than show nothing
        end = min(len(text), start + limit)
    body = text[start:end].strip()
    return f"{'…' if start > 0 else ''}{body}{'…' if end < len(text) else ''}"


def _original_case(term: str, *memories: Memory) -> str:
    """How the person wrote the shared word ('Sweden', not 'sweden'; 'Bach' of "Bach's"), from
    the first memory that writes it; the term itself when none does."""
    for memory in memories:
        written = as_written(term, memory.text)
        if written != term or term in tokens(memory.text):
            return written
    return term


def _describe(memory: Memory) -> str:
    kind = "a verified fact" if memory.kind == "fact" else "something said"
    return f"{kind} (quality {memory.quality:.2f})"


def likelihood(pair: CandidatePair, score: float) -> float:
    verified = sum(memory.kind == "fact" for memory in (pair.first, pair.second))
    # A pair below any connection (a host may cite one) scores 0, never below.
    return round(min(0.9, (1 - math.exp(-max(score, 0.0) / 4)) * (0.85 + 0.05 * verified)), 3)


def confidence(pair: CandidatePair) -> float:
    quality = (pair.first.quality + pair.second.quality) / 2
    # Meaning and words agreeing is worth more than either alone.
    kinds = (meaning_score(pair) >= 1.5) + (word_score(pair) >= 0.5)
    return round(quality * (0.5 + 0.25 * kinds), 3)


def _kind_of(term: SharedTerm) -> str:
    if term.entity:
        return "a name, "
    return "one thing, used by no other memory, " if names_one_thing(term) else ""


def _evidence_lines(pair: CandidatePair) -> list[str]:
    lines = []
    if pair.meaning is not None:
        meaning = pair.meaning
        lines.append(
            f"Their meanings are {meaning_score(pair):+.1f} units (tenths of cosine) closer than "
            f"each one's usual neighbours (cosine {meaning.cosine:.3f}; neighbourhoods "
            f"{meaning.first_neighbourhood:.3f} and {meaning.second_neighbourhood:.3f})"
            + (
                f", each the other's nearest memory (+{mutual_bonus(pair):.1f} in a profile this small)."
                if mutual_bonus(pair) > 0
                else "."
            )
        )
    if pair.shared:
        rare = "; ".join(
            f"'{term.term}' ({_kind_of(term)}in {term.frequency} of {pair.corpus_size} "
            f"memories, idf {idf(term, pair.corpus_size):.1f}, {term.english:.0%} uncommon in English)"
            for term in pair.shared[:4]
        )
        lines.append(f"They share rare words: {rare}; worth {word_score(pair):.1f}.")
    return lines


# Lower-case words that may stand inside a name between capitalised ones ("Lord of the Rings").
_CONNECTORS = frozenset({"of", "the", "de", "la", "le", "van", "von", "der", "del", "du", "&"})
_CLAUSE_END = '.,!?;:…)"'


def _plain(word: str) -> str:
    return word.strip(_PUNCTUATION + "\u201c\u201d\u2018\u2019")


def _capitalised(word: str) -> bool:
    plain = _plain(word)
    return bool(plain) and plain != "I" and (plain[0].isupper() or plain.isdigit())


def _name_span(words: list[str], at: int) -> tuple[int, int]:
    """The whole capitalised name around `words[at]`: capitalised words and numbers in a row,
    with connectors between them ("The Witcher 3", "Lord of the Rings"), within one clause."""
    first = last = at
    while last + 1 < len(words) and not words[last].endswith(tuple(_CLAUSE_END)):
        following = _plain(words[last + 1])
        if _capitalised(words[last + 1]):
            last += 1
        elif following.casefold() in _CONNECTORS and last + 2 < len(words) and _capitalised(words[last + 2]):
            if words[last + 1].endswith(tuple(_CLAUSE_END)):
                break
            last += 2
        else:
            break
    while first > 0 and not words[first - 1].endswith(tuple(_CLAUSE_END)):
        before = first - 1
        while (
            before > 0 and _plain(words[before]).casefold() in _CONNECTORS and not _capitalised(words[before])
        ):
            before -= 1
        if not _capitalised(words[before]) or (
            before < first - 1 and words[before].endswith(tuple(_CLAUSE_END))
        ):
            break
        first = before
    return first, last


def _shared_span(words: list[str], at: int, later_roots: frozenset[str]) -> tuple[int, int]:
    """The run of words around `words[at]` that the later memory also uses, side by side in
    this one and within one clause ("roasted marshmallows", "video game tournament")."""

    def shared(index: int) -> bool:
        plain = tokens(_plain(words[index]))
        return len(plain) == 1 and term_root(plain[0]) in later_roots

    first = last = at
    while last + 1 < len(words) and not words[last].endswith(tuple(_CLAUSE_END)) and shared(last + 1):
        last += 1
    while first > 0 and not words[first - 1].endswith(tuple(_CLAUSE_END)) and shared(first - 1):
        first -= 1
    # A topic ends on a thing: "a bookcase filled with books" and "... with dvds" share
    # "bookcase filled", which names the bookcase only.
    while last > at and not can_name_a_thing(_plain(words[last])):
        last -= 1
    return first, last


def _phrase(words: list[str], first: int, last: int) -> str:
    return " ".join(words[first : last + 1]).strip(_PUNCTUATION + "\u201c\u201d")


def _shared_name(words: list[str], at: int, later: str) -> str | None:
    """The longest part of the name around `words[at]` that holds it, has more than one word and
    the later memory writes too ("Under Armour" of "Nike and Under Armour")."""
    first, last = _name_span(words, at)
    spans = [(a, b) for a in range(first, at + 1) for b in range(at, last + 1) if a < b]
    for a, b in sorted(spans, key=lambda span: span[0] - span[1]):
        name = _phrase(words, a, b)
        edges = {_plain(words[a]).casefold(), _plain(words[b]).casefold()}
        if len(name) <= TOPIC_CHARS and not edges & (_CONNECTORS - {"the"}) and name.casefold() in later:
            return name
    return None


def _topic(pair: CandidatePair, earlier: Memory, later: Memory) -> str | None:
    """What the two share, as the person wrote it: the whole name the strongest shared word
    belongs to when the later memory says it too ("The Witcher 3", "Lord of the Rings"), the run
    of shared words it stands in ("roasted marshmallows"), or that word alone. Never two words
    from different places joined by "and": that names no topic."""
    if not pair.shared:
        return None
    term = pair.shared[0].term
    words = earlier.text.split()
    at = _position(term, words)
    if at is None or len(_plain(words[at])) > TOPIC_CHARS:
        return _original_case(term, earlier, later)
    if _capitalised(words[at]):
        name = _shared_name(words, at, later.text.casefold())
        if name is not None:
            return name
    first, last = _shared_span(words, at, topical_roots(later.text))
    phrase = _phrase(words, first, last)
    if first < last and len(phrase) <= TOPIC_CHARS:
        return phrase
    return _original_case(term, earlier, later)


# Past this, a theme that comes back is a recurring part of a life rather than one episode.
RECURRING = timedelta(days=30)


# Spelled out, so a number never runs into a name that ends in one ("The Witcher 3 2 months").
_NUMBERS = dict(
    enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
)


def _later(apart: timedelta) -> str:
    """How long after the first mention the second came, as a person says it."""
    days = apart.days
    if days >= 60:
        months = round(days / 30.4)
        return f"{_NUMBERS.get(months, str(months))} months later"
    if days >= 2:
        return f"{days} days later"
    return "later that day" if days == 0 else "a day later"


@dataclass(frozen=True)
class _Link:
    """What the hypothesis says of the two memories, and the question it invites."""

    claim: str
    what_if: str


def _link(topic: str, apart: timedelta, when_first: str) -> _Link:
    """Only as much as the sources and the timing support: two lines of one conversation are one
    talk, and a topic named again later was named again, nothing more. Mentioning a trip is not
    taking it ("came back to Lisbon" says she went), and neither memory caused the other."""
    if apart < SAME_MOMENT:
        return _Link(
            f"You talked about {topic} more than once in one conversation on {when_first}",
            f"What if {topic} matters to you beyond that one conversation?",
        )
    if apart < RECURRING:
        return _Link(
            f"You mentioned {topic} again {_later(apart)}, perhaps as one thing still going on",
            f"What if both mentions of {topic} belong to one thing that is not settled yet?",
        )
    return _Link(
        f"You mentioned {topic} again {_later(apart)}, so {topic} may be on your mind still",
        f"What if {topic} matters to you more than either mention shows?",
    )


def write(pair: CandidatePair, score: float) -> DreamTexts:
    earlier, later = sorted((pair.first, pair.second), key=lambda memory: memory.when())
    term = pair.shared[0].term if pair.shared else None
    topic = _topic(pair, earlier, later)
    first_quote = excerpt(earlier.text, term, EXCERPT_CHARS)
    second_quote = excerpt(later.text, term, EXCERPT_CHARS)
    when_first, when_second, gap = day_of(earlier.when()), day_of(later.when()), _gap(pair.apart)
    quoted = f'"{first_quote}" ({when_first}), then "{second_quote}" ({when_second})'
    if topic is not None:
        link = _link(topic, pair.apart, when_first)
        hypothesis = f"{link.claim}: {quoted}."
        why = f"Both mention {topic}, which few other memories do; {gap}."
        what_if = link.what_if
    else:
        # Closeness in meaning says the two may be about one thing, not that they are: two trips
        # planned apart read as close as one worry said twice ("the same concern" is for those).
        hypothesis = f"You said {quoted}, {_later(pair.apart)}: the two may be about one thing."
        why = f"Far closer in meaning than either is to the rest of the memory; {gap}."
        what_if = (
            f'What if "{excerpt(earlier.text, None, SHORT_CHARS)}" and '
            f'"{excerpt(later.text, None, SHORT_CHARS)}" are two sides of one concern?'
        )
    outcome = (
        f'If so, "{excerpt(later.text, term, SHORT_CHARS)}" should be recalled together with '
        f'"{excerpt(earlier.text, term, SHORT_CHARS)}", and you can confirm the link as memory.'
    )
    return DreamTexts(
        hypothesis=hypothesis,
        why=why,
        what_if=what_if,
        possible_outcome=outcome,
        rationale=rationale(pair, score),
        likelihood=likelihood(pair, score),
        confidence=confidence(pair),
    )


def rationale(pair: CandidatePair, score: float) -> str:
    """Every figure behind the scores, whoever words the dream."""
    earlier, later = sorted((pair.first, pair.second), key=lambda memory: memory.when())
    gap = _gap(pair.apart)
    return " ".join(
        [
            *_evidence_lines(pair),
            f"Said {gap} ({day_of(earlier.when())}, {day_of(later.when())}).",
            f"Sources: {_describe(earlier)} and {_describe(later)}.",
            f"Likelihood follows the link score {score:.1f} (meaning {meaning_score(pair):.1f} + words "
            f"{word_score(pair):.1f}) and how many sources are verified facts; confidence follows the "
            "sources' quality and whether meaning and words agree.",
        ]
    )
