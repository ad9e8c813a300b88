"""The deterministic writer: a dream's texts from its two memories and the evidence between them.

Every text is built from the pair itself: what both memories name, excerpts around it, when
each was said and how far apart. The hypothesis is a statement the person can answer yes or
no; `why` is the one line a list shows; the rationale lays out every figure behind the scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph.dreams.evidence import SAME_MOMENT, CandidatePair, idf, meaning_score, word_score
from graph.dreams.records import Memory
from graph.text import tokens

EXCERPT_CHARS = 110
SHORT_CHARS = 50
# Two shared words at most this many words apart are quoted as one phrase ("Lord of the Rings").
PHRASE_GAP = 3
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


def _date(moment: datetime) -> str:
    return f"{moment.day} {moment:%B %Y}"


def _gap(apart: timedelta) -> str:
    days = apart.days
    if days >= 60:
        return f"{round(days / 30.4)} months apart"
    if days >= 2:
        return f"{days} days apart"
    return "on the same day" if days == 0 else "a day apart"


def _position(term: str, words: list[str]) -> int | None:
    return next((i for i, word in enumerate(words) if term in tokens(word)), None)


def excerpt(text: str, term: str | None, limit: int) -> str:
    """The words around the first use of `term` (or the start), at most `limit` characters."""
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


def _character_window(text: str, term: str | None, limit: int) -> str:
    """For a text with a word longer than the limit (Chinese or Japanese, written without
    spaces): `limit` characters from a little before the term."""
    found = text.casefold().find(term) if term is not None else -1
    start = max(0, found - 10) if found > 0 else 0
    body = text[start : start + limit]
    return f"{'…' if start > 0 else ''}{body}{'…' if start + limit < len(text) else ''}"


def _original_case(term: str, memory: Memory) -> str:
    """How the person wrote the shared word ('Sweden', not 'sweden')."""
    for word in memory.text.split():
        stripped = word.strip(_PUNCTUATION)
        if stripped.casefold() == term:
            return stripped
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


def _evidence_lines(pair: CandidatePair) -> list[str]:
    lines = []
    if pair.meaning is not None:
        meaning = pair.meaning
        lines.append(
            f"Their meanings are {meaning_score(pair):+.1f} units (tenths of cosine) closer than "
            f"each one's usual neighbours (cosine {meaning.cosine:.3f}; neighbourhoods "
            f"{meaning.first_neighbourhood:.3f} and {meaning.second_neighbourhood:.3f})."
        )
    if pair.shared:
        rare = "; ".join(
            f"'{term.term}' ({'a name, ' if term.entity else ''}in {term.frequency} of {pair.corpus_size} "
            f"memories, idf {idf(term, pair.corpus_size):.1f}, {term.english:.0%} uncommon in English)"
            for term in pair.shared[:4]
        )
        lines.append(f"They share rare words: {rare}; worth {word_score(pair):.1f}.")
    return lines


def _topic(pair: CandidatePair, memory: Memory) -> str | None:
    """The two strongest shared words as the person wrote them: "Door Dash" or "Lord of the
    Rings" when they stand close together in `memory`, else both in the order they were said."""
    terms = [term.term for term in pair.shared[:2]]
    if not terms:
        return None
    words = memory.text.split()
    positions = [_position(term, words) for term in terms]
    if len(terms) == 2 and positions[0] is not None and positions[1] is not None:
        first, last = sorted((positions[0], positions[1]))
        phrase = " ".join(words[first : last + 1]).strip(_PUNCTUATION)
        # Within one clause only: "relief, excitement" is a phrase, "Coco. She" is not.
        if last - first <= PHRASE_GAP and len(phrase) <= TOPIC_CHARS and not any(m in phrase for m in ".!?;"):
            return phrase
        if positions[1] < positions[0]:
            terms.reverse()
    return " and ".join(_original_case(term, memory) for term in terms)


# Past this, a theme that comes back is a recurring part of a life rather than one episode.
RECURRING = timedelta(days=30)


@dataclass(frozen=True)
class _Link:
    """What the hypothesis says of the two memories, and the question it invites."""

    claim: str
    what_if: str


def _link(topic: str, apart: timedelta, when_first: str, when_second: str, gap: str) -> _Link:
    """Only as much as the timing supports: two lines of one conversation continue each other,
    a story told over some days moves on, and a theme back after weeks or months recurs. None of
    these says one memory caused the other."""
    if apart < SAME_MOMENT:
        return _Link(
            f"are one conversation about {topic}",
            f"What if {topic} matters to the person beyond that one conversation of {when_first}?",
        )
    if apart < RECURRING:
        return _Link(
            f"are one story about {topic}, told {gap}: the later continues the earlier",
            f"What if what was said on {when_second} is where {topic}, from {when_first}, went next?",
        )
    return _Link(
        f"show {topic} coming back, {gap}: a theme that stays with the person, not a passing mention",
        f"What if {topic} matters more than either mention, on {when_first} or on {when_second}, shows?",
    )


def write(pair: CandidatePair, score: float) -> DreamTexts:
    earlier, later = sorted((pair.first, pair.second), key=lambda memory: memory.when())
    term = pair.shared[0].term if pair.shared else None
    topic = _topic(pair, earlier)
    first_quote = excerpt(earlier.text, term, EXCERPT_CHARS)
    second_quote = excerpt(later.text, term, EXCERPT_CHARS)
    when_first, when_second, gap = _date(earlier.when()), _date(later.when()), _gap(pair.apart)
    quoted = f'"{first_quote}" ({when_first}) and "{second_quote}" ({when_second})'
    if topic is not None:
        link = _link(topic, pair.apart, when_first, when_second, gap)
        hypothesis = f"{quoted} {link.claim}."
        why = f"Both mention {topic}, which few other memories do; {gap}."
        what_if = link.what_if
    else:
        hypothesis = f"{quoted} are about the same thing, said in other words."
        why = f"Far closer in meaning than either is to the rest of the memory; {gap}."
        what_if = (
            f'What if "{excerpt(earlier.text, None, SHORT_CHARS)}" and '
            f'"{excerpt(later.text, None, SHORT_CHARS)}" are two sides of one concern?'
        )
    outcome = (
        f'If so, "{excerpt(later.text, term, SHORT_CHARS)}" should be recalled together with '
        f'"{excerpt(earlier.text, term, SHORT_CHARS)}", and the person can confirm the link as memory.'
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
            f"Said {gap} ({_date(earlier.when())}, {_date(later.when())}).",
            f"Sources: {_describe(earlier)} and {_describe(later)}.",
            f"Likelihood follows the link score {score:.1f} (meaning {meaning_score(pair):.1f} + words "
            f"{word_score(pair):.1f}) and how many sources are verified facts; confidence follows the "
            "sources' quality and whether meaning and words agree.",
        ]
    )
