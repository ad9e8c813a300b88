"""One night's dreams of every kind, within the cycle's `max_outputs`.

Themes, duplicates and contradictions are found and worded deterministically; links go through
the cycle's generator (the deterministic writer or a model). The other kinds take at most half
the night, contradictions first, then duplicates and themes taking turns so one cannot fill
it; links take the rest, and what links leave unused goes back to the other kinds. A memory is
cited by at most one of the night's dreams, and a topic (a theme's thread, a link's rarest
shared word) by at most one question: one the night asks, or one still open from an earlier
night, which a theme may grow (`builds_on`) but no new pair asks again until the person answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, zip_longest

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.candidates import candidates_in, corpus_size_of
from graph.dreams.contradictions import contradiction_drafts
from graph.dreams.duplicates import duplicate_drafts
from graph.dreams.evidence import CandidatePair, term_root
from graph.dreams.generator import DreamGenerator, Proposal
from graph.dreams.kind_words import theme_draft
from graph.dreams.models import DreamDraft
from graph.dreams.neighbours import open_space
from graph.dreams.postings import ProfileWords, read_words
from graph.dreams.themes import Theme, find_themes

# The open dreams whose topics a night reads: enough for any person's unanswered questions.
OPEN_TOPICS_CAP = 500


@dataclass(frozen=True)
class Findings:
    pairs: list[CandidatePair]
    themes: list[Theme]
    contradictions: list[DreamDraft]
    # What the open dreams of earlier nights are about.
    open_topics: frozenset[str] = frozenset()
    # The words the night read, which tell a routine said again from a restatement.
    words: ProfileWords | None = None


async def find_all(tx: ProfileTx, max_outputs: int, now: datetime, model: str | None) -> Findings:
    """Everything the night may dream of, read in one transaction; `model` is the running
    embedding model (None: the semantic lane is off)."""
    space = await open_space(tx, model) if model else None
    corpus_size = await corpus_size_of(tx)
    words = await read_words(tx, corpus_size)
    pairs = await candidates_in(tx, space, corpus_size, max_outputs, now, words)
    themes = await find_themes(tx, space, corpus_size, words)
    return Findings(pairs, themes, await contradiction_drafts(tx), await open_topics(tx), words)


async def open_topics(tx: ProfileTx) -> frozenset[str]:
    rows = await tx.run(q.OPEN_DREAM_TOPICS, cap=OPEN_TOPICS_CAP)
    topics = (
        row["topic"] or (term_root(row["first_term"].casefold()) if row["first_term"] else None)
        for row in rows
    )
    return frozenset(topic for topic in topics if topic)


def take_unused(
    drafts: Sequence[DreamDraft], count: int, used: set[str], topics: set[str] | None = None
) -> list[DreamDraft]:
    """Up to `count` of `drafts`, in order, none citing a memory already `used` nor asking
    again about one of `topics` (a theme growing an earlier dream may); both sets grow."""
    topics = set() if topics is None else topics
    taken: list[DreamDraft] = []
    for draft in drafts:
        if len(taken) == count:
            break
        asked = draft.topic in topics and not draft.builds_on
        if used.isdisjoint(draft.source_ids) and not asked:
            taken.append(draft)
            used.update(draft.source_ids)
            topics.update([draft.topic] if draft.topic else [])
    return taken


def by_turns(*kinds: Sequence[DreamDraft]) -> list[DreamDraft]:
    """One of each kind in turn, each kind's best first."""
    return [draft for draft in chain.from_iterable(zip_longest(*kinds)) if draft is not None]


async def propose_night(findings: Findings, generator: DreamGenerator, max_outputs: int) -> Proposal:
    # A contradiction is a question about what holds now: it comes first.
    others = findings.contradictions + by_turns(
        duplicate_drafts(findings.pairs, findings.words), [theme_draft(theme) for theme in findings.themes]
    )
    used: set[str] = set()
    topics = set(findings.open_topics)
    chosen = take_unused(others, (max_outputs + 1) // 2, used, topics)
    pairs = [
        pair
        for pair in findings.pairs
        if pair.first.id not in used and pair.second.id not in used and pair.topic not in topics
    ]
    room = max_outputs - len(chosen)
    links = await generator.propose(pairs, room) if room > 0 else Proposal([])
    used.update(chain.from_iterable(draft.source_ids for draft in links.drafts))
    topics.update(draft.topic for draft in links.drafts if draft.topic)
    rest = take_unused([d for d in others if d not in chosen], room - len(links.drafts), used, topics)
    drafts = chosen + links.drafts + rest
    kinds = Counter(f"kind_{draft.kind.value}" for draft in drafts)
    return Proposal(drafts, links.counts | kinds)
