"""Themes: one thread through three or more memories, told on different days.

A theme is a word few of the profile's memories use (a name, or a word uncommon in English such
as "pottery" or "adoption"), used in at least `MIN_SITTINGS` separate sittings spread over at
least `MIN_SPAN`. Where it comes from:

- a profile of up to `WORD_LIMIT` memories (`graph/dreams/postings.py`) is read whole and every
  word's holders are counted in the process;
- a larger one asks the fulltext index for the holders of its newest memories' words, so a
  thread is found where the person has just come back to it, and of the rarest words the night's
  slice of the profile repeats, so an older thread is reached too; the cost follows the seeds
  and `SLICE_TERMS`.

Each sitting gives one source (its most substantive memory), spread from the first sitting to
the last. A thread already dreamed is proposed again only when it has grown: a sitting newer
than every source of the latest dream on it, which the new dream then builds on. A thread the
person rejected stays rejected.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import lru_cache
from itertools import combinations, islice
from statistics import fmean
from typing import Final

import anyio

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.candidates import dream_partners
from graph.dreams.evidence import (
    NEIGHBOURHOOD,
    SAME_MOMENT,
    Meaning,
    SharedTerm,
    addressed_only,
    can_name_a_thing,
    common_ceiling,
    english_rarity,
    everyday,
    frames_around,
    jaccard,
    sentences,
    term_root,
    term_weight,
    topical_roots,
    topical_terms,
    uncapitalised,
    written_as_names,
)
from graph.dreams.models import DreamStatus
from graph.dreams.neighbours import ExactSpace, MeaningSpace, pair_id
from graph.dreams.postings import ProfileWords, read_words
from graph.dreams.records import EarlierTheme, HeldTerm, Memory, memory_from_row
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.text import as_written, fulltext_query, tokens

MIN_SITTINGS: Final = 3
MAX_SOURCES: Final = 5
MIN_SPAN: Final = timedelta(days=14)
# A source has something to say besides the thread: at least this many topical words.
MIN_SOURCE_WORDS: Final = 3
# Sources sharing this much of their other words on average repeat one sentence.
MAX_SHARED: Final = 0.5
# Sources sharing this much of the topical words within PHRASE_WINDOW words of the thread's word,
# on average, say one fixed phrase again.
PHRASE_WINDOW: Final = 3
MAX_SHARED_PHRASE: Final = 0.75
# The share of pairs of sources that must say the thread's word in one frame for it to be a
# routine's slot.
MIN_SAME_FRAME: Final = 0.5
# Words of a reply rather than of news: "you" and "your" speak of the other person's things
# ("That bowl of yours is gorgeous", "Your encouragement means a lot"), and thanks answer them.
SECOND_PERSON: Final = frozenset({"you", "your", "yours", "yourself", "yourselves"})
THANKS: Final = frozenset({"thanks", "thank", "thx", "appreciate"})
# A word in more memories than this is part of the person's everyday life, not a thread; the
# bound also keeps a large profile's holder lookups small.
MAX_HOLDERS: Final = 40
SEEDS: Final = 40
TERMS_PER_SEED: Final = 8
# Words of a large profile's nightly slice whose holders are looked up: a bound on the lookups.
SLICE_TERMS: Final = 200
# The strongest threads weighed in meaning each night in a profile searched through the vector
# index: a bound on the searches.
MAX_WEIGHED: Final = 30
# The bar a theme's sources clear together: on average closer (CSLS units) than this share of the
# pairs of memories from different candidate threads, which are memories of the same substance
# sharing no thread. So the bar follows how tightly this profile's memories sit with this model.
# Of the LoCoMo development split's 163 candidate threads, a quarter of those within 2% of the
# top are tied by one question's evidence, a seventh of all: 4% lets through the threads a person
# reads as one subject told in several settings (pottery, an adoption, a homeless shelter), whose
# sources are less alike than one story's (docs/benchmarks.md).
COHERENCE_QUANTILE: Final = 0.96
# Fewer pairs between threads than this say little about the profile: the bar is then 0 units.
MIN_BETWEEN_PAIRS: Final = 100
FALLBACK_COHERENCE: Final = 0.0
# Pairs between threads read for the bar at most: a bound on a large profile's cosine lookups.
MAX_BETWEEN_PAIRS: Final = 2_000
# Statuses of an earlier theme that a grown thread builds on; a rejected one is left alone.
GROWS_FROM: Final = (
    DreamStatus.PROPOSED,
    DreamStatus.REINFORCED,
    DreamStatus.CONFIRMED,
    DreamStatus.PROMOTED,
)


@dataclass(frozen=True)
class Theme:
    topic: str  # the thread's word root
    term: str  # the word as the person wrote it most recently
    sources: tuple[Memory, ...]  # one per sitting, oldest first
    holders: int  # memories of the profile using the word
    sittings: int  # separate sittings it came up in
    weight: float
    builds_on: str | None = None
    # Written as a name English rarely uses: one thing (a person, a cafe), whatever else each
    # source says.
    rare_name: bool = False
    coherence: float | None = None  # CSLS units, when the sources have vectors
    bar: float | None = None  # the CSLS units the coherence had to reach that night


def sittings_of(memories: Iterable[Memory]) -> list[list[Memory]]:
    """Memories grouped into sittings: a gap of `SAME_MOMENT` or more starts a new one."""
    groups: list[list[Memory]] = []
    for memory in sorted(memories, key=lambda m: (m.when(), m.id)):
        if groups and memory.when() - groups[-1][-1].when() < SAME_MOMENT:
            groups[-1].append(memory)
        else:
            groups.append([memory])
    return groups


def _spread(items: Sequence[Memory], count: int) -> tuple[Memory, ...]:
    """`count` of `items` (in time order) from the first to the last, evenly spaced."""
    if len(items) <= count:
        return tuple(items)
    step = (len(items) - 1) / (count - 1)
    return tuple(items[round(i * step)] for i in range(count))


def _substantive(memory: Memory) -> int:
    return len(topical_terms(memory.text))


def _written(root: str, memory: Memory) -> str:
    term = next((t for t in topical_terms(memory.text) if term_root(t) == root), root)
    return as_written(term, memory.text)


def _theme(root: str, holders: Sequence[Memory], corpus_size: int) -> Theme | None:
    """The thread through `holders` of the word `root`, or None when it is no theme."""
    if any(root in addressed_only(m.text) for m in holders):
        return None
    named = sum(root in written_as_names(m.text) for m in holders) >= 2
    # A fact's time is when it was recorded, not when it was said: the fragments behind it tell.
    # What the person shared (a photo's caption) is not their thread: only their own words count,
    # and, unless the word is a name, only where they tell of it rather than reply with it.
    groups = sittings_of(
        m
        for m in holders
        if m.kind == "fragment"
        and m.own_words
        and _substantive(m) >= MIN_SOURCE_WORDS
        and (named or told(root, m.text))
    )
    if len(groups) < MIN_SITTINGS or groups[-1][0].when() - groups[0][0].when() < MIN_SPAN:
        return None
    latest = groups[-1][-1]
    term = _written(root, latest)
    # Capitalised only to open a sentence, a word is not a name ("Pottery is ..." is pottery);
    # one no memory writes in lower case keeps its capital ("Inês", "Tom"), even at a start.
    shown = term
    if not named and term.istitle():
        term = term.lower()
        if any(root in uncapitalised(m.text) for m in holders):
            shown = term
    english = english_rarity(term)
    # A word English uses all the time is no thread even where it is capitalised: then it is a
    # title's word ("The Name of the Wind"), and its weight would be nothing.
    if english == 0.0 or (not named and (everyday(term) or not can_name_a_thing(term))):
        return None
    best = [max(group, key=lambda m: (_substantive(m), m.when())) for group in groups]
    if _repeated(root, best) or (not named and (_stock_phrase(root, best) or _one_frame(root, best))):
        return None
    weight = term_weight(SharedTerm(term, len(holders), english, named), corpus_size)
    return Theme(
        topic=root,
        term=shown,
        sources=_spread(best, MAX_SOURCES),
        holders=len(holders),
        sittings=len(groups),
        weight=weight * math.log(len(groups)),
        rare_name=named and english >= 1.0,
    )


@lru_cache(maxsize=65536)  # every night that reads a word asks again of each memory holding it
def told(root: str, text: str) -> bool:
    """Whether `text` tells of the word: some sentence using it neither asks ("Got any paintings to
    show?"), nor thanks ("Thanks for the encouragement"), nor speaks of the other person's things
    ("I love your icecream"). Those reply to someone else's news; a thread is what the person
    brings up themselves, again and again. A name is exempt (asking after Tom is about Tom)."""
    for sentence in sentences(text):
        words = {word.casefold() for word in tokens(sentence)}
        if root not in {term_root(word) for word in words}:
            continue
        if not sentence.rstrip().endswith("?") and words.isdisjoint(SECOND_PERSON | THANKS):
            return True
    return False


def _repeated(root: str, sources: Sequence[Memory]) -> bool:
    """Whether the sources are mostly one sentence said again (a routine: "cleaned the kitchen on
    Monday", "... on Friday"): a thread is one word through otherwise different memories."""
    return _mean_overlap([topical_roots(memory.text) - {root} for memory in sources]) >= MAX_SHARED


def _stock_phrase(root: str, sources: Sequence[Memory]) -> bool:
    """Whether the word comes in one fixed phrase every time ("walking on the beach with a
    surfboard", three photos apart): the same words said again, however different the rest of
    each memory is, not a subject coming back."""
    return _mean_overlap([_around(root, memory.text) for memory in sources]) >= MAX_SHARED_PHRASE


def _one_frame(root: str, sources: Sequence[Memory]) -> bool:
    """Whether the word fills one slot of a sentence the person says again and again ("Night
    shift on radiology, calm", "Ugh, my inbox is a mess today", "We should get tacos soon"): in
    at least `MIN_SAME_FRAME` of the pairs of sources it comes in one frame (`frames_around`).
    That is a routine with one of its everyday values, not a subject coming back; a subject comes
    back in new sentences ("my pottery class", "glazing a bowl at pottery", "the pottery show")."""
    frames = [frames_around(root, memory.text) for memory in sources]
    pairs = list(combinations(frames, 2))
    same = sum(bool(a & b) for a, b in pairs)
    return bool(pairs) and same >= MIN_SAME_FRAME * len(pairs)


@lru_cache(maxsize=65536)
def _around(root: str, text: str) -> frozenset[str]:
    """The topical words within `PHRASE_WINDOW` words of each use of `root` in `text`."""
    words, topical = tokens(text), topical_roots(text)
    near = set()
    for at in (index for index, word in enumerate(words) if term_root(word) == root):
        window = words[max(0, at - PHRASE_WINDOW) : at] + words[at + 1 : at + 1 + PHRASE_WINDOW]
        near |= {term_root(word) for word in window}
    return frozenset((near & topical) - {root})


def _mean_overlap(word_sets: Sequence[set[str] | frozenset[str]]) -> float:
    """The mean Jaccard overlap of every two of the sets that are not both empty (0 with none)."""
    overlaps = [jaccard(a, b) for a, b in combinations(word_sets, 2) if a | b]
    return fmean(overlaps) if overlaps else 0.0


def holder_ceiling(corpus_size: int) -> int:
    return min(common_ceiling(corpus_size), MAX_HOLDERS)


def themes_in(postings: Mapping[str, Sequence[Memory]], corpus_size: int) -> list[Theme]:
    """Every thread among the words' holders, strongest first."""
    ceiling = holder_ceiling(corpus_size)
    found = [
        theme
        for root, holders in postings.items()
        if MIN_SITTINGS <= len(holders) <= ceiling and (theme := _theme(root, holders, corpus_size))
    ]
    return sorted(found, key=lambda theme: (-theme.weight, theme.topic))


def grown(themes: Sequence[Theme], earlier: Sequence[EarlierTheme]) -> list[Theme]:
    """The new threads, and the old ones with a sitting newer than the latest dream on them
    (which they then build on); the rest were dreamed already."""
    latest: dict[str, EarlierTheme] = {}
    for dream in earlier:  # newest first
        latest.setdefault(dream.topic, dream)
    kept = []
    for theme in themes:
        before = latest.get(theme.topic)
        if before is None:
            kept.append(theme)
        elif _has_grown(theme, before):
            kept.append(replace(theme, builds_on=before.id))
    return kept


def _has_grown(theme: Theme, before: EarlierTheme) -> bool:
    newest = theme.sources[-1].when()
    return before.status in GROWS_FROM and before.latest is not None and newest - before.latest >= SAME_MOMENT


# --- reading the threads ---------------------------------------------------------------------


async def _seeded_postings(tx: ProfileTx, sliced: ProfileWords, corpus_size: int) -> dict[str, list[Memory]]:
    """The holders, in the whole profile, of the newest memories' words and of the rarest words
    the night's slice repeats."""
    rows = await tx.run(
        q.SEED_MEMORIES, recent=SEEDS, window_starts=[], per_window=0, feedback_label=DREAM_FEEDBACK_LABEL
    )
    words = {term for row in rows for term in topical_terms(memory_from_row(row).text)[:TERMS_PER_SEED]}
    words |= _repeated_in_slice(sliced, holder_ceiling(corpus_size))
    safe = sorted({query for term in words if (query := fulltext_query(term)) is not None})
    held = await tx.run(
        q.TERM_HOLDERS,
        terms=safe,
        min_holders=MIN_SITTINGS,
        cap=holder_ceiling(corpus_size) + 1,
        feedback_label=DREAM_FEEDBACK_LABEL,
    )
    postings: dict[str, dict[str, Memory]] = defaultdict(dict)
    for item in map(HeldTerm.from_row, held):
        postings[term_root(item.term)][item.memory.id] = item.memory
    return {root: list(holders.values()) for root, holders in postings.items()}


def _repeated_in_slice(sliced: ProfileWords, ceiling: int) -> set[str]:
    """Up to `SLICE_TERMS` words used by two to `ceiling` memories of the slice, the fewest
    holders first: a thread's other sittings may lie outside the slice."""
    repeated = sorted(
        (len(holders), root) for root, holders in sliced.postings.items() if 2 <= len(holders) <= ceiling
    )
    return {_written(root, sliced.postings[root][-1]) for _, root in repeated[:SLICE_TERMS]}


async def coherent_themes(space: MeaningSpace, themes: Sequence[Theme]) -> list[Theme]:
    """The themes whose sources are one subject, not one word used about several ("brighten" a
    room, a day, a life): on average closer to each other, beside their usual neighbours, than
    nearly every pair of memories from different threads (`COHERENCE_QUANTILE`)."""
    members = list({m.id: m for theme in themes for m in theme.sources}.values())
    usual = {
        member: fmean(cosine for _, cosine in rows)
        for member, rows in (await space.neighbours(members, NEIGHBOURHOOD)).items()
        if rows
    }
    within = {pair_id(a.id, b.id) for theme in themes for a, b in combinations(theme.sources, 2)}
    # Pairs by the thousand over a whole profile: listed and weighed in worker threads, so that
    # a server's event loop keeps answering recalls meanwhile.
    between = await anyio.to_thread.run_sync(between_threads, members, within)
    cosines = await space.cosines(sorted(within | set(between)))
    return await anyio.to_thread.run_sync(_held_together, themes, usual, between, cosines)


def _held_together(
    themes: Sequence[Theme],
    usual: Mapping[str, float],
    between: Sequence[tuple[str, str]],
    cosines: Mapping[tuple[str, str], float],
) -> list[Theme]:
    """The themes closer within than the bar the pairs `between` threads set (`coherent_themes`)."""

    def closeness(pair: tuple[str, str]) -> float | None:
        cosine, (a, b) = cosines.get(pair), pair
        if cosine is None or a not in usual or b not in usual:
            return None
        return Meaning(cosine, usual[a], usual[b]).distinctiveness

    bar = coherence_bar([c for pair in between if (c := closeness(pair)) is not None])
    kept = []
    for theme in themes:
        pairs = (pair_id(x.id, y.id) for x, y in combinations(theme.sources, 2))
        scores = [score for pair in pairs if (score := closeness(pair)) is not None]
        coherence = fmean(scores) if scores else None
        # A rare name ties its sources whatever else each says: beside different news they read
        # as far apart in meaning while being about one person or place all the same. A capitalised
        # everyday word ("Yep", "Wind", "Door Dash") may open a sentence or a title: it must hold.
        if theme.rare_name or coherence is None or coherence >= bar:
            kept.append(replace(theme, coherence=coherence, bar=bar))
    return kept


def between_threads(members: Sequence[Memory], within: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Pairs of the members that no theme cites together, at most `MAX_BETWEEN_PAIRS` of them
    spread evenly over all (the same ones for the same themes)."""
    ids = sorted(member.id for member in members)
    # Strided without listing every pair first: a whole profile weighs every candidate thread,
    # and thousands of sources make millions of pairs. `within` holds pairs of members only.
    count = len(ids) * (len(ids) - 1) // 2 - len(within)
    step = max(1, math.ceil(count / MAX_BETWEEN_PAIRS))
    return list(islice((pair for pair in combinations(ids, 2) if pair not in within), 0, None, step))


def coherence_bar(between: Sequence[float]) -> float:
    """The closeness (CSLS units) only `1 - COHERENCE_QUANTILE` of the pairs between threads reach."""
    if len(between) < MIN_BETWEEN_PAIRS:
        return FALLBACK_COHERENCE
    ranked = sorted(between)
    return ranked[min(len(ranked) - 1, math.floor(COHERENCE_QUANTILE * len(ranked)))]


async def find_themes(
    tx: ProfileTx, space: MeaningSpace | None, corpus_size: int, words: ProfileWords | None = None
) -> list[Theme]:
    """The profile's threads worth a dream, strongest first; with a meaning space, only those
    whose memories are about one subject. `words` are the night's words when read already."""
    words = words if words is not None else await read_words(tx, corpus_size)
    postings = words.postings if words.whole else await _seeded_postings(tx, words, corpus_size)
    # Seconds of pure Python over a large profile's words: in a worker thread, so the server's
    # event loop keeps answering while a cycle weighs its threads.
    themes = await anyio.to_thread.run_sync(themes_in, postings, corpus_size)
    # Weighing reads each source's neighbourhood: free when the whole profile's vectors are in
    # memory, a vector search each otherwise.
    themes = themes if isinstance(space, ExactSpace) else themes[:MAX_WEIGHED]
    if space is not None and themes:
        themes = await coherent_themes(space, themes)
    if not themes:
        return []
    rows = await tx.run(q.EARLIER_THEMES, topics=[theme.topic for theme in themes])
    themes = grown(themes, [EarlierTheme.from_row(row) for row in rows])
    partners = await dream_partners(tx, [m for theme in themes for m in theme.sources])
    return distinct_threads(themes, partners)


def distinct_threads(themes: Sequence[Theme], partners: Mapping[str, set[str]]) -> list[Theme]:
    """One theme per thread: several words often carry one ("campfire", "marshmallows"), so a
    theme with two sources already cited together, by a stronger theme here or by an earlier
    dream it does not build on, repeats that one."""
    kept: list[Theme] = []
    cited_together: set[tuple[str, str]] = set()  # by the themes kept so far
    for theme in themes:
        together = {pair_id(a.id, b.id) for a, b in combinations(theme.sources, 2)}
        earlier = any(b in partners.get(a, set()) for a, b in together)
        if together & cited_together or (earlier and theme.builds_on is None):
            continue
        kept.append(theme)
        cited_together |= together
    return kept
