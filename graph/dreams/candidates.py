"""Finding pairs of memories worth dreaming about, without comparing every pair.

Two ways, by the profile's size:

- **Whole profile** (up to `EXACT_LIMIT` memories with vectors, most people's): every memory
  is a seed. Its nearest neighbours come from the profile's own vectors, compared in the process,
  and the pairs sharing a rare word from an index of the profile's words built for the cycle.
- **Seeded** (larger profiles, or the semantic lane off): the newest memories and a few from
  places spread over the profile's life, different every cycle, are the seeds; their neighbours
  come from the shared vector index and the fulltext indexes. Beside them, the pairs sharing a
  rare word among the profile's words (read whole far past the bound on vectors, or a slice
  that moves every night: `graph/dreams/postings.py`), the rarest first, at most
  `MAX_WORD_PAIRS`. Only a shortlist of all these is weighed in meaning, a vector search per
  memory, so the cost follows the number of seeds and of dreams wanted, not the profile's size.

Each pair gets its evidence (`graph/dreams/evidence.py`); pairs that are no connection, pairs
already linked by evidence and pairs dreamed before in any status are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from statistics import fmean
from typing import Final

import anyio

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.evidence import (
    JUDGED_FLOOR_SHARE,
    NEIGHBOURHOOD,
    CandidatePair,
    Meaning,
    SharedTerm,
    common_ceiling,
    english_rarity,
    evidence_score,
    is_restatement,
    link_score,
    shared_terms,
    shared_words,
    term_root,
    term_weight,
    topical_terms,
)
from graph.dreams.models import sources_key
from graph.dreams.neighbours import ExactSpace, MeaningSpace, Neighbours, open_space, pair_id
from graph.dreams.postings import ProfileWords, indexed, read_words
from graph.dreams.records import (
    Memory,
    StoredProfile,
    TermFrequency,
    WordMatch,
    linked_ids_from_rows,
    memory_from_row,
    pair_key_from_row,
)
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.rows import count_of
from graph.text import fulltext_clause, fulltext_query, salient_terms

# Reading a large profile's candidates is dozens of vector searches in one read (both members of
# each shortlisted pair found by its words): on two busy cores that passes the interactive call's
# deadline, so the dream phase and a host's `list_dream_candidates` give it this many times more.
FINDING_PATIENCE: Final = 4
MIN_SEEDS: Final = 12
# Older seeds come from this many places in the profile's life, a few after each.
WINDOWS: Final = 8
LEXICAL_PER_SEED: Final = 8
# A word more memories share than this cannot link a pair by itself; meaning still can.
MAX_WORD_HOLDERS: Final = 20
# A seeded cycle reads at most this many pairs found by their words, the rarest words' pairs
# first, and asks which were dreamed before (one query of their keys).
MAX_WORD_PAIRS: Final = 2_000
# Of those not dreamed before, this many per dream wanted are ranked with their cosines.
WORD_PAIRS_PER_OUTPUT: Final = 10
# A seeded cycle reads the neighbourhood of at most this many candidates per dream it may write.
SHORTLIST_PER_OUTPUT: Final = 3
TERMS_PER_SEED: Final = 16
_TEXT_INDEXES: Final = ("fragment_text", "fact_text")


@dataclass(frozen=True)
class _Found:
    seed: Memory
    other: Memory
    cosine: float | None

    @property
    def key(self) -> tuple[str, str]:
        return pair_id(self.seed.id, self.other.id)


def _distinct(found: Iterable[_Found]) -> dict[tuple[str, str], _Found]:
    """One entry per pair (with its cosine when one lane knew it), never a memory with itself."""
    pairs: dict[tuple[str, str], _Found] = {}
    for item in found:
        if item.seed.id != item.other.id and (item.key not in pairs or pairs[item.key].cosine is None):
            pairs[item.key] = item
    return pairs


# --- the whole profile ----------------------------------------------------------------------


def _pairable(words: ProfileWords, ceiling: int) -> Iterator[tuple[str, Sequence[Memory]]]:
    """Each word two to `ceiling` (at most `MAX_WORD_HOLDERS`) of the memories read use, with them."""
    return (
        (root, holders)
        for root, holders in words.postings.items()
        if 1 < len(holders) <= min(ceiling, MAX_WORD_HOLDERS)
    )


def _shared_word_pairs(words: ProfileWords, ceiling: int) -> list[_Found]:
    """Pairs of memories that share a word at most `ceiling` memories use."""
    return [
        _Found(first, second, None)
        for _, holders in _pairable(words, ceiling)
        for first, second in combinations(holders, 2)
    ]


def _rarest_word_pairs(words: ProfileWords, ceiling: int, budget: int) -> list[_Found]:
    """Up to `budget` pairs of memories sharing a word at most `ceiling` of them use, the pairs
    of the rarest words first (by their weight as evidence, counted among the words read)."""
    ranked = sorted(
        (-_word_weight(root, holders, len(words.memories)), root)
        for root, holders in _pairable(words, ceiling)
    )
    found: list[_Found] = []
    for _, root in ranked:
        found.extend(_Found(first, second, None) for first, second in combinations(words.postings[root], 2))
        if len(found) >= budget:
            break
    return found[:budget]


def _counts_in(words: ProfileWords) -> Callable[[str], int]:
    """How many of the memories read use a word, counted by its root."""

    def frequency(term: str) -> int:
        return words.holders(term_root(term))

    return frequency


async def _whole_profile(space: ExactSpace, corpus_size: int) -> list[CandidatePair]:
    """Every pair the profile's vectors and rare words suggest, with its evidence. The word work
    (seconds of pure Python at a few hundred memories) runs in a worker thread, so the server's
    event loop keeps answering recalls while a cycle weighs its pairs."""
    memories = space.memories
    neighbours = await space.neighbours(memories, NEIGHBOURHOOD)
    words = await anyio.to_thread.run_sync(indexed, memories, True)
    pairs = await anyio.to_thread.run_sync(_every_pair, neighbours, words, common_ceiling(corpus_size))
    meanings = await _meanings(space, pairs, neighbours)
    return await anyio.to_thread.run_sync(_weighed, words, pairs, meanings, corpus_size)


def _every_pair(neighbours: Neighbours, words: ProfileWords, ceiling: int) -> dict[tuple[str, str], _Found]:
    """Each memory with its nearest in meaning, and every two sharing a word at most `ceiling` use."""
    semantic = [
        _Found(by, other, cosine) for by in words.memories for other, cosine in neighbours.get(by.id, [])
    ]
    return _distinct(semantic + _shared_word_pairs(words, ceiling))


def _weighed(
    words: ProfileWords,
    pairs: dict[tuple[str, str], _Found],
    meanings: dict[tuple[str, str], Meaning],
    corpus_size: int,
) -> list[CandidatePair]:
    """The pairs with their evidence, each word counted among the whole profile's memories."""
    frequency = _counts_in(words)
    return [_candidate(item, meanings.get(key), frequency, corpus_size) for key, item in pairs.items()]


def _word_weight(root: str, holders: Sequence[Memory], size: int) -> float:
    """The word's weight as evidence between two of its holders, as a pair's words are weighed
    (`term_weight`), were neither to write it as a name."""
    term = next((t for t in topical_terms(holders[0].text) if term_root(t) == root), root)
    return term_weight(SharedTerm(term, len(holders), english_rarity(term), entity=False), size)


# --- seeds ----------------------------------------------------------------------------------


def _window_starts(born: datetime | None, now: datetime, runs: int) -> list[datetime]:
    """Points spread over the profile's life, different every cycle (golden-ratio steps)."""
    if born is None or born >= now:
        return [now]
    fractions = (((runs * WINDOWS + k) * 0.6180339887) % 1.0 for k in range(WINDOWS))
    return sorted(born + (now - born) * fraction for fraction in fractions)


async def _seeds(tx: ProfileTx, now: datetime, count: int) -> list[Memory]:
    born = StoredProfile.from_row(await tx.single(q.PROFILE_SETTINGS)).created_at
    runs = count_of(await tx.single(q.RUN_COUNT))
    rows = await tx.run(
        q.SEED_MEMORIES,
        recent=count,
        window_starts=_window_starts(born, now, runs),
        per_window=-(-count // WINDOWS),
        feedback_label=DREAM_FEEDBACK_LABEL,
    )
    unique = {memory.id: memory for memory in map(memory_from_row, rows)}
    return list(unique.values())


async def _lexical(tx: ProfileTx, seeds: Sequence[Memory]) -> list[_Found]:
    by_id = {seed.id: seed for seed in seeds}
    queries = []
    for seed in seeds:
        terms = fulltext_clause("text", " ".join(salient_terms(seed.text)[:TERMS_PER_SEED]))
        if terms is not None:
            queries.append({"id": seed.id, "terms": terms})
    found: list[_Found] = []
    for index in _TEXT_INDEXES:
        rows = await tx.run(
            q.RELATED_MEMORIES,
            seeds=queries,
            index=index,
            per_seed=LEXICAL_PER_SEED,
            feedback_label=DREAM_FEEDBACK_LABEL,
        )
        found.extend(
            _Found(by_id[match.seed_id], match.memory, None) for match in map(WordMatch.from_row, rows)
        )
    return found


async def _frequencies(tx: ProfileTx, terms: set[str], ceiling: int) -> dict[str, int]:
    safe = {term: fulltext_query(term) for term in sorted(terms)}
    rows = await tx.run(q.TERM_FREQUENCY, terms=[query for query in safe.values() if query], cap=ceiling + 1)
    frequency = {counted.term: counted.frequency for counted in map(TermFrequency.from_row, rows)}
    return {term: frequency.get(query or "", 1) for term, query in safe.items()}


async def _seeded(
    tx: ProfileTx,
    space: MeaningSpace | None,
    seeds: Sequence[Memory],
    words: ProfileWords,
    corpus_size: int,
    max_outputs: int,
) -> list[CandidatePair]:
    neighbours = await space.neighbours(seeds, NEIGHBOURHOOD) if space else {}
    by_id = {seed.id: seed for seed in seeds}
    semantic = [
        _Found(by_id[seed_id], other, cosine)
        for seed_id, rows in neighbours.items()
        for other, cosine in rows
    ]
    ceiling = common_ceiling(corpus_size)
    from_seeds = _distinct(semantic + await _lexical(tx, seeds))
    by_words = _distinct(await anyio.to_thread.run_sync(_rarest_word_pairs, words, ceiling, MAX_WORD_PAIRS))
    # Pairs the seeds found keep the cosine their lane knew; of the others, the rarest words'.
    fresh = await _undreamed(tx, by_words | from_seeds)
    rarest = [key for key in by_words if key in fresh and key not in from_seeds]
    kept = [key for key in from_seeds if key in fresh] + rarest[: WORD_PAIRS_PER_OUTPUT * max_outputs]
    pairs = {key: fresh[key] for key in kept}

    # Counted among the words read: exact for the whole profile, a lower bound for a slice
    # (so an upper bound on a pair's words, which is what a shortlist may rank by).
    counted = _counts_in(words)
    shortlist = pairs
    if space is not None:
        shortlist = await _shortlist(space, pairs, neighbours, counted, corpus_size, max_outputs)
    frequency = counted if words.whole else await _profile_counts(tx, shortlist.values(), ceiling)
    meanings = await _meanings(space, shortlist, neighbours) if space is not None else {}
    return [_candidate(item, meanings.get(key), frequency, corpus_size) for key, item in shortlist.items()]


async def _profile_counts(tx: ProfileTx, pairs: Iterable[_Found], ceiling: int) -> Callable[[str], int]:
    """How many of the whole profile's memories use each word the pairs share (fulltext)."""
    words = {term for item in pairs for term in shared_terms(item.seed.text, item.other.text)}
    counted = await _frequencies(tx, words, ceiling)

    def frequency(term: str) -> int:
        return counted.get(term, 1)

    return frequency


async def _undreamed(tx: ProfileTx, pairs: dict[tuple[str, str], _Found]) -> dict[tuple[str, str], _Found]:
    """Without the pairs dreamed before in any status or judged empty: a host paging the
    candidates answers the strongest first, and the next page must reach past them."""
    keys = {key: sources_key(key) for key in pairs}
    dreamed = set(map(pair_key_from_row, await tx.run(q.DREAMED_PAIRS, keys=sorted(keys.values()))))
    return {key: item for key, item in pairs.items() if keys[key] not in dreamed}


async def _shortlist(
    space: MeaningSpace,
    pairs: dict[tuple[str, str], _Found],
    seed_neighbours: Neighbours,
    frequency: Callable[[str], int],
    corpus_size: int,
    max_outputs: int,
) -> dict[tuple[str, str], _Found]:
    """The pairs worth the cost of the other memory's neighbourhood (a vector search each in a
    large profile): ranked as if both memories had the seed's neighbourhood."""
    cosines = await space.cosines([key for key, item in pairs.items() if item.cosine is None])
    seed_mean = {member: fmean(c for _, c in rows) for member, rows in seed_neighbours.items() if rows}
    estimates = []
    for key, item in pairs.items():
        cosine = item.cosine if item.cosine is not None else cosines.get(key)
        local = seed_mean.get(item.seed.id)
        meaning = Meaning(cosine, local, local) if cosine is not None and local is not None else None
        found = _Found(item.seed, item.other, cosine)
        estimates.append((-evidence_score(_candidate(found, meaning, frequency, corpus_size)), key, found))
    estimates.sort(key=lambda entry: (entry[0], entry[1]))
    return {key: found for _, key, found in estimates[: SHORTLIST_PER_OUTPUT * max_outputs]}


# --- evidence -------------------------------------------------------------------------------


async def _meanings(
    space: MeaningSpace, pairs: dict[tuple[str, str], _Found], known: Neighbours
) -> dict[tuple[str, str], Meaning]:
    """Each pair's cosine beside both members' neighbourhoods, where both have vectors."""
    # A pair found by its words has no seed: neither member's neighbourhood is known yet.
    others = {m.id: m for item in pairs.values() for m in (item.seed, item.other) if m.id not in known}
    everyone = known | await space.neighbours(list(others.values()), NEIGHBOURHOOD)
    cosines = await space.cosines([key for key, item in pairs.items() if item.cosine is None])
    # Thousands of pairs over a whole profile: in a worker thread, as the weighing is.
    return await anyio.to_thread.run_sync(_paired_meanings, pairs, everyone, cosines)


def _paired_meanings(
    pairs: dict[tuple[str, str], _Found], everyone: Neighbours, cosines: dict[tuple[str, str], float]
) -> dict[tuple[str, str], Meaning]:
    """Each pair's `Meaning` from its cosine (`cosines` or its lane's) and the neighbourhoods."""
    neighbourhood = {member: fmean(cosine for _, cosine in rows) for member, rows in everyone.items() if rows}
    nearest = {member: rows[0][0].id for member, rows in everyone.items() if rows}
    meanings = {}
    for key, item in pairs.items():
        cosine = item.cosine if item.cosine is not None else cosines.get(key)
        first, second = neighbourhood.get(item.seed.id), neighbourhood.get(item.other.id)
        if cosine is not None and first is not None and second is not None:
            mutual = nearest.get(item.seed.id) == item.other.id and nearest.get(item.other.id) == item.seed.id
            meanings[key] = Meaning(cosine, first, second, mutual)
    return meanings


def _candidate(
    item: _Found, meaning: Meaning | None, frequency: Callable[[str], int], size: int
) -> CandidatePair:
    """The pair with its evidence; `frequency` says how many of the profile's memories use a word."""
    terms = shared_terms(item.seed.text, item.other.text)
    counts = {term: frequency(term) for term in terms}
    shared, framed = shared_words((item.seed.text, item.other.text), terms, counts, size)
    return CandidatePair(item.seed, item.other, meaning, shared, size, framed)


async def _evidence_sets(tx: ProfileTx, memories: Iterable[Memory]) -> dict[str, set[str]]:
    """The fragments and claims behind each memory: a fragment is its own evidence with the claims
    it supports, a fact has its claim and that claim's fragments."""
    chosen = list(memories)
    fragment_ids = sorted({memory.id for memory in chosen if memory.kind == "fragment"})
    evidence = {fragment_id: {fragment_id} for fragment_id in fragment_ids}
    for fragment_id, claims in linked_ids_from_rows(
        await tx.run(q.FRAGMENT_CLAIM_IDS, ids=fragment_ids)
    ).items():
        evidence[fragment_id] |= claims
    fact_ids = sorted({memory.id for memory in chosen if memory.kind == "fact"})
    evidence.update(linked_ids_from_rows(await tx.run(q.FACT_EVIDENCE_IDS, ids=fact_ids)))
    return evidence


async def dream_partners(tx: ProfileTx, memories: Iterable[Memory]) -> dict[str, set[str]]:
    """The memories each one was already dreamed together with, in any status."""
    chosen = {memory.id: memory for memory in memories}.values()
    rows = await tx.run(
        q.DREAM_PARTNERS,
        fragments=[m.id for m in chosen if m.kind == "fragment"],
        facts=[m.id for m in chosen if m.kind == "fact"],
    )
    return linked_ids_from_rows(rows)


async def _unlinked(tx: ProfileTx, pairs: Sequence[CandidatePair]) -> list[CandidatePair]:
    """Without pairs of shared evidence (already linked), dreamed before in any status, or already
    joined through a third memory each was dreamed with (A-B and B-C make A-C a repetition)."""
    members = [m for pair in pairs for m in (pair.first, pair.second)]
    evidence = await _evidence_sets(tx, members)
    apart = [p for p in pairs if not evidence.get(p.first.id, set()) & evidence.get(p.second.id, set())]
    keys = {sources_key((p.first.id, p.second.id)): p for p in apart}
    dreamed = set(map(pair_key_from_row, await tx.run(q.DREAMED_PAIRS, keys=sorted(keys))))
    partners = await dream_partners(tx, members)
    return [
        pair
        for key, pair in keys.items()
        if key not in dreamed and not partners.get(pair.first.id, set()) & partners.get(pair.second.id, set())
    ]


async def find_candidates(
    tx: ProfileTx, max_outputs: int, now: datetime, model: str | None
) -> list[CandidatePair]:
    """The connections worth a dream, with their evidence; `model` is the running embedding
    model (None: the semantic lane is off)."""
    space = await open_space(tx, model) if model else None
    return await candidates_in(tx, space, await corpus_size_of(tx), max_outputs, now)


async def corpus_size_of(tx: ProfileTx) -> int:
    """How many live memories the profile holds (at least 1: it divides)."""
    return max(count_of(await tx.single(q.CORPUS_SIZE)), 1)


async def candidates_in(
    tx: ProfileTx,
    space: MeaningSpace | None,
    corpus_size: int,
    max_outputs: int,
    now: datetime,
    words: ProfileWords | None = None,
) -> list[CandidatePair]:
    """As `find_candidates`, in a meaning space already open (None: the semantic lane is off);
    `words` are the night's words when read already (`read_words`)."""
    if isinstance(space, ExactSpace) and len(space.memories) > 1:
        pairs = await _whole_profile(space, corpus_size)
    else:
        seeds = await _seeds(tx, now, max(MIN_SEEDS, max_outputs // 2 + 4))
        words = words if words is not None else await read_words(tx, corpus_size)
        pairs = await _seeded(tx, space, seeds, words, corpus_size, max_outputs)
    return await _unlinked(tx, await anyio.to_thread.run_sync(_worth_weighing, pairs))


def _worth_weighing(pairs: Sequence[CandidatePair]) -> list[CandidatePair]:
    """Pairs a model may judge, and restatements: no link, but the duplicates a night may propose.
    Either needs the person's own words on one side at least: two things they shared (two photos'
    captions) say what the pictures hold, not what the person said; beside their own words a
    caption is the context that ties them."""
    return [
        pair
        for pair in pairs
        if _holds_own_words(pair)
        and (link_score(pair, JUDGED_FLOOR_SHARE) is not None or is_restatement(pair))
    ]


def _holds_own_words(pair: CandidatePair) -> bool:
    return pair.first.own_words or pair.second.own_words


async def pair_evidence(
    tx: ProfileTx, pairs: Sequence[tuple[Memory, Memory]], model: str | None
) -> list[CandidatePair]:
    """The evidence between given memories, weighed as `find_candidates` weighs a pair it finds
    (a host may cite memories the finder never paired)."""
    corpus_size = await corpus_size_of(tx)
    space = await open_space(tx, model) if model else None
    found = _distinct(_Found(first, second, None) for first, second in pairs)
    if isinstance(space, ExactSpace) and len(space.memories) > 1:
        frequency = _counts_in(indexed(space.memories, True))
    else:
        frequency = await _profile_counts(tx, found.values(), common_ceiling(corpus_size))

    meanings = {}
    if space is not None:
        # `_meanings` reads the other memories' neighbourhoods; the seeds' it is given.
        seeds = list({item.seed.id: item.seed for item in found.values()}.values())
        meanings = await _meanings(space, found, await space.neighbours(seeds, NEIGHBOURHOOD))
    return [_candidate(item, meanings.get(key), frequency, corpus_size) for key, item in found.items()]
