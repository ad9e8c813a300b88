"""Dream generators: turn candidate pairs of related memories into reviewable hypotheses.

`LinkGenerator` is deterministic and needs no model. It ranks pairs by how much rare vocabulary
they share and writes texts that name what is shared and why it might matter. A model-backed
generator implements the same `DreamGenerator` protocol over the same candidate pairs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from graph.dreams.models import DreamDraft
from graph.text import salient_terms

MemoryKind = Literal["fact", "fragment"]

# Above this overlap two memories say the same thing: a restatement, not a connection.
NEAR_DUPLICATE_OVERLAP = 0.85
MIN_OVERLAP = 0.05


@dataclass(frozen=True)
class Memory:
    kind: MemoryKind
    id: str
    text: str
    quality: float
    created_at: datetime


@dataclass(frozen=True)
class CandidatePair:
    first: Memory
    second: Memory
    shared_terms: tuple[str, ...]


class DreamGenerator(Protocol):
    @property
    def name(self) -> str: ...

    def propose(
        self,
        pairs: Sequence[CandidatePair],
        document_frequency: Mapping[str, int],
        corpus_size: int,
        max_outputs: int,
    ) -> list[DreamDraft]: ...


def term_root(word: str) -> str:
    """A crude stem, enough to see that 'hiking' and 'hikes' share a word."""
    for suffix, keep in (("ing", 5), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep - 1:
            return word[: -len(suffix)]
    return word


def shared_terms(first: str, second: str) -> tuple[str, ...]:
    roots = {term_root(term) for term in salient_terms(second)}
    return tuple(term for term in salient_terms(first) if term_root(term) in roots)


def pair_key(first_id: str, second_id: str) -> str:
    return "|".join(sorted((first_id, second_id)))


def _snippet(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"


def _describe(memory: Memory) -> str:
    kind = "a verified fact" if memory.kind == "fact" else "a fragment"
    return f"{kind} (quality {memory.quality:.2f})"


@dataclass(frozen=True)
class _Scored:
    pair: CandidatePair
    strength: float
    rarity: dict[str, float]
    rank: float


class LinkGenerator:
    """Pairs memories that share rare words; the rarer and more numerous, the stronger the link."""

    name = "shared-terms-v1"

    def propose(
        self,
        pairs: Sequence[CandidatePair],
        document_frequency: Mapping[str, int],
        corpus_size: int,
        max_outputs: int,
    ) -> list[DreamDraft]:
        scored = [self._score(pair, document_frequency, corpus_size) for pair in pairs]
        viable = [item for item in scored if MIN_OVERLAP <= item.strength < NEAR_DUPLICATE_OVERLAP]
        viable.sort(key=lambda item: (-item.rank, pair_key(item.pair.first.id, item.pair.second.id)))
        drafts: list[DreamDraft] = []
        used: set[str] = set()
        for item in viable:
            # One dream per memory per cycle keeps a night's dreams varied.
            if item.pair.first.id in used or item.pair.second.id in used:
                continue
            drafts.append(self._draft(item, document_frequency, corpus_size))
            used.update((item.pair.first.id, item.pair.second.id))
            if len(drafts) == max_outputs:
                break
        return drafts

    @staticmethod
    def _score(pair: CandidatePair, df: Mapping[str, int], corpus_size: int) -> _Scored:
        def idf(term: str) -> float:
            return math.log(1 + corpus_size / max(1, df.get(term, 1)))

        union = set(salient_terms(pair.first.text)) | set(salient_terms(pair.second.text))
        total = sum(idf(term) for term in union) or 1.0
        rarity = {term: idf(term) for term in pair.shared_terms}
        strength = min(1.0, sum(rarity.values()) / total)
        quality = (pair.first.quality + pair.second.quality) / 2
        return _Scored(pair, strength, rarity, strength * (0.5 + 0.5 * quality))

    def _draft(self, item: _Scored, df: Mapping[str, int], corpus_size: int) -> DreamDraft:
        first, second = item.pair.first, item.pair.second
        terms = sorted(item.rarity, key=lambda term: -item.rarity[term])[:4]
        quoted = ", ".join(f"'{term}'" for term in terms)
        verified = sum(memory.kind == "fact" for memory in (first, second))
        likelihood = min(0.9, 0.2 + 0.6 * item.strength) * (0.8 + 0.1 * verified)
        quality = (first.quality + second.quality) / 2
        confidence = quality * (0.6 + 0.4 * min(1.0, len(item.rarity) / 3))
        a, b = _snippet(first.text, 90), _snippet(second.text, 90)
        evidence = "; ".join(
            f"'{term}' appears in {df.get(term, 1)} of {corpus_size} memories" for term in terms
        )
        kinds = f"{_describe(first)} and {_describe(second)}"
        return DreamDraft(
            hypothesis=f'"{a}" and "{b}" may be connected: both involve {quoted}.',
            what_if=f"What if {terms[0]!r} ties these together, so that one explains or shapes the other?",
            possible_outcome=(
                f'If so, "{_snippet(second.text, 50)}" is worth recalling whenever '
                f'"{_snippet(first.text, 50)}" comes up, and the person could confirm the link '
                "as lasting memory."
            ),
            rationale=(
                f"They share rare words ({evidence}). Link strength {item.strength:.2f} is the "
                f"rarity-weighted share of their salient words. Sources: {kinds}; likelihood follows the "
                f"link strength and how many sources are verified facts, confidence the source quality "
                f"and the number of shared words."
            ),
            likelihood=round(likelihood, 3),
            confidence=round(confidence, 3),
            generator=self.name,
            source_ids=(first.id, second.id),
            pair_key=pair_key(first.id, second.id),
            shared_terms=terms,
            proposition_subject=_snippet(first.text, 60),
            proposition_object=_snippet(second.text, 60),
        )
