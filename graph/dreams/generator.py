"""Dream generators: turn candidate pairs of related memories into reviewable hypotheses.

`LinkGenerator` is deterministic and needs no model: it keeps the pairs whose evidence makes
them a connection (`graph/dreams/evidence.py`), prefers links across time, proposes at most
one dream per memory and one per topic per night so the night's dreams are varied (two pairs
about one game are one question, not two), and has `writer.py` put each in words. A
model-backed generator implements the same `DreamGenerator` protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from graph.dreams.evidence import SAME_MOMENT, CandidatePair, link_score
from graph.dreams.models import DreamDraft, sources_key
from graph.dreams.writer import write


@dataclass(frozen=True)
class Proposal:
    drafts: list[DreamDraft]
    # What the generator did, added to the dream phase's counts (e.g. model requests).
    counts: dict[str, int] = field(default_factory=dict)


class DreamGenerator(Protocol):
    @property
    def name(self) -> str: ...

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal: ...


def connections(
    pairs: Sequence[CandidatePair], max_outputs: int, floor_share: float = 1.0, *, per_topic: bool = True
) -> list[tuple[CandidatePair, float]]:
    """The strongest connections with their link scores, one per memory and (`per_topic`) one
    per topic, best first; from `floor_share` of the floor where a model judges each one.

    Links within one sitting are offered only when every candidate is of one sitting (a profile
    told everything at once): with a history behind it, the person made those connections while
    talking, and the dream's worth is in the ones across days."""
    scored = [(pair, score) for pair in pairs if (score := link_score(pair, floor_share)) is not None]
    across_time = [item for item in scored if item[0].apart >= SAME_MOMENT]
    scored = across_time or (scored if _one_sitting(pairs) else [])
    scored.sort(key=lambda item: (-item[1], sources_key((item[0].first.id, item[0].second.id))))
    chosen: list[tuple[CandidatePair, float]] = []
    used: set[str] = set()
    topics: set[str | None] = set()
    for pair, score in scored:
        if pair.first.id in used or pair.second.id in used or pair.topic in topics:
            continue
        chosen.append((pair, score))
        used.update((pair.first.id, pair.second.id))
        if pair.topic is not None and per_topic:
            topics.add(pair.topic)
        if len(chosen) == max_outputs:
            break
    return chosen


def _one_sitting(pairs: Sequence[CandidatePair]) -> bool:
    times = [memory.when() for pair in pairs for memory in (pair.first, pair.second)]
    return not times or max(times) - min(times) < SAME_MOMENT


def draft(pair: CandidatePair, score: float, generator: str) -> DreamDraft:
    texts = write(pair, score)
    return DreamDraft(
        hypothesis=texts.hypothesis,
        why=texts.why,
        what_if=texts.what_if,
        possible_outcome=texts.possible_outcome,
        rationale=texts.rationale,
        likelihood=texts.likelihood,
        confidence=texts.confidence,
        link_score=round(score, 3),
        generator=generator,
        source_ids=(pair.first.id, pair.second.id),
        pair_key=sources_key((pair.first.id, pair.second.id)),
        shared_terms=[term.term for term in pair.shared[:4]],
        topic=pair.topic,
    )


class LinkGenerator:
    """Connections by meaning and rare shared words, written by the deterministic writer."""

    # v3: the hypothesis claims only what the timing supports (one conversation, a continuing
    # story, a recurring theme), never that the earlier memory led to the later.
    name = "links-v3"

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal:
        return Proposal([draft(pair, score, self.name) for pair, score in connections(pairs, max_outputs)])
