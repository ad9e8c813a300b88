"""One night's dreams of every kind, within the cycle's `max_outputs`.

Themes, duplicates and contradictions are found and worded deterministically; links go through
the cycle's generator (the deterministic writer or a model). The other kinds take at most half
the night, contradictions first, then duplicates and themes taking turns so one cannot fill
it; links take the rest, and what links leave unused goes back to the other kinds. A memory is
cited by at most one of the night's dreams, so the night's questions are varied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, zip_longest

from graph.access import ProfileTx
from graph.dreams.candidates import candidates_in, corpus_size_of
from graph.dreams.contradictions import contradiction_drafts
from graph.dreams.duplicates import duplicate_drafts
from graph.dreams.evidence import CandidatePair
from graph.dreams.generator import DreamGenerator, Proposal
from graph.dreams.kind_words import theme_draft
from graph.dreams.models import DreamDraft
from graph.dreams.neighbours import open_space
from graph.dreams.themes import Theme, find_themes


@dataclass(frozen=True)
class Findings:
    pairs: list[CandidatePair]
    themes: list[Theme]
    contradictions: list[DreamDraft]


async def find_all(tx: ProfileTx, max_outputs: int, now: datetime, model: str | None) -> Findings:
    """Everything the night may dream of, read in one transaction; `model` is the running
    embedding model (None: the semantic lane is off)."""
    space = await open_space(tx, model) if model else None
    corpus_size = await corpus_size_of(tx)
    pairs = await candidates_in(tx, space, corpus_size, max_outputs, now)
    return Findings(pairs, await find_themes(tx, space, corpus_size), await contradiction_drafts(tx))


def take_unused(drafts: Sequence[DreamDraft], count: int, used: set[str]) -> list[DreamDraft]:
    """Up to `count` of `drafts`, in order, none citing a memory already `used` (which grows)."""
    taken: list[DreamDraft] = []
    for draft in drafts:
        if len(taken) == count:
            break
        if used.isdisjoint(draft.source_ids):
            taken.append(draft)
            used.update(draft.source_ids)
    return taken


def by_turns(*kinds: Sequence[DreamDraft]) -> list[DreamDraft]:
    """One of each kind in turn, each kind's best first."""
    return [draft for draft in chain.from_iterable(zip_longest(*kinds)) if draft is not None]


async def propose_night(findings: Findings, generator: DreamGenerator, max_outputs: int) -> Proposal:
    # A contradiction is a question about what holds now: it comes first.
    others = findings.contradictions + by_turns(
        duplicate_drafts(findings.pairs), [theme_draft(theme) for theme in findings.themes]
    )
    used: set[str] = set()
    chosen = take_unused(others, (max_outputs + 1) // 2, used)
    pairs = [pair for pair in findings.pairs if pair.first.id not in used and pair.second.id not in used]
    room = max_outputs - len(chosen)
    links = await generator.propose(pairs, room) if room > 0 else Proposal([])
    used.update(chain.from_iterable(draft.source_ids for draft in links.drafts))
    rest = take_unused([d for d in others if d not in chosen], room - len(links.drafts), used)
    drafts = chosen + links.drafts + rest
    kinds = Counter(f"kind_{draft.kind.value}" for draft in drafts)
    return Proposal(drafts, links.counts | kinds)
