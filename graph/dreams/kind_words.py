"""The deterministic words of themes and duplicates: built from the memories themselves, their
dates and the figures behind them, never claiming more than the evidence says."""

from __future__ import annotations

import math
from statistics import fmean
from typing import Final

from graph.dreams.models import DreamDraft, DreamKind, sources_key
from graph.dreams.records import Memory
from graph.dreams.themes import Theme
from graph.dreams.writer import day_of, excerpt, span_of

QUOTE_CHARS: Final = 90
SHORT_CHARS: Final = 50
THEME_GENERATOR: Final = "themes-v1"
DUPLICATE_GENERATOR: Final = "duplicates-v1"


def _quoted(memory: Memory, term: str | None) -> str:
    return f'"{excerpt(memory.text, term, QUOTE_CHARS)}" ({day_of(memory.when())})'


def theme_draft(theme: Theme) -> DreamDraft:
    """A thread through the theme's sources (oldest first)."""
    sources, term = theme.sources, theme.term
    first, last = sources[0].when(), sources[-1].when()
    span = span_of(last - first)
    quotes = "; ".join(_quoted(memory, term) for memory in sources)
    grew = " It has come up again since the last dream about it." if theme.builds_on else ""
    meaning = (
        f" Its memories' closeness to each other, beside their usual neighbours, averages "
        f"{theme.coherence:+.1f} units (tenths of cosine), at or above the {theme.bar:+.1f} this "
        "profile's memories set for one subject that night."
        if theme.coherence is not None and theme.bar is not None
        else ""
    )
    rationale = (
        f"'{term}' is in {theme.holders} memories, which come from {theme.sittings} separate sittings over "
        f"{span} ({day_of(first)} to {day_of(last)}); one memory per sitting is cited, spread over that "
        f"time. Weight {theme.weight:.1f}: the word's rarity in this profile and in English, times the log "
        f"of the sittings.{meaning}{grew}"
    )
    return DreamDraft(
        kind=DreamKind.THEME,
        hypothesis=f"You keep mentioning {term}, in {theme.sittings} separate conversations over {span}: "
        f"{quotes}.",
        why=f"{term} comes up on {theme.sittings} different days from {day_of(first)} to {day_of(last)}, "
        "and in few other memories.",
        what_if=f"What if {term} matters more to you than any single mention shows?",
        possible_outcome=f"If so, the assistant can bring up {term} when it fits and recall these "
        f"memories together, and you can confirm what {term} means to you as memory.",
        rationale=rationale,
        likelihood=round(min(0.9, 1 - math.exp(-theme.weight / 4)), 3),
        confidence=round(fmean(memory.quality for memory in sources) * 0.75, 3),
        link_score=round(theme.weight, 3),
        generator=THEME_GENERATOR,
        source_ids=tuple(memory.id for memory in sources),
        pair_key=sources_key([memory.id for memory in sources]),
        shared_terms=[term],
        topic=theme.topic,
        builds_on=(theme.builds_on,) if theme.builds_on else (),
    )


def duplicate_draft(first: Memory, second: Memory, overlap: float, cosine: float | None) -> DreamDraft:
    """Two memories saying the same thing; accepting keeps one and retracts the other."""
    earlier, later = sorted((first, second), key=lambda memory: memory.when())
    meaning = f"cosine {cosine:.3f}" if cosine is not None else "no vectors to compare"
    apart = span_of(later.when() - earlier.when())
    return DreamDraft(
        kind=DreamKind.DUPLICATE,
        hypothesis=f"You said the same thing twice, {apart} apart: {_quoted(earlier, None)} and "
        f"{_quoted(later, None)}.",
        why=f"Mostly the same words, said {apart} apart.",
        what_if="What if one is enough? Accepting keeps the later (unless only the earlier supports "
        "claims) and retracts the other, whose words stay on record until you forget them; until "
        "you keep the merge, undoing it puts the other back unchanged.",
        possible_outcome="If so, recall shows the memory once instead of twice.",
        rationale=f"Topical words shared: {overlap:.0%} of the two's together; meaning: {meaning}; "
        f"said {apart} apart.",
        likelihood=round(min(0.9, overlap), 3),
        confidence=round(fmean((first.quality, second.quality)) * 0.9, 3),
        link_score=round(overlap, 3),
        generator=DUPLICATE_GENERATOR,
        source_ids=(earlier.id, later.id),
        pair_key=sources_key([first.id, second.id]),
        shared_terms=[],
    )
