"""Finding pairs of memories worth dreaming about, without comparing every pair.

Seeds (the newest memories and a window of older ones that moves every cycle) bring two kinds
of candidates: their nearest neighbours in meaning (`graph/dreams/neighbours.py`) and the
memories that share their rarest words (the fulltext indexes). Pairs already linked by
evidence, or already dreamed in any status, are dropped. Each remaining pair gets its evidence
(`graph/dreams/evidence.py`): its cosine beside both members' neighbourhoods, and the shared
words few memories of the profile use. The cost grows with the number of seeds, not with the
size of the profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from statistics import fmean
from typing import Final

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.evidence import (
    NEIGHBOURHOOD,
    CandidatePair,
    Meaning,
    Memory,
    MemoryKind,
    common_ceiling,
    memory_from_row,
    rare_shared,
    shared_terms,
)
from graph.dreams.neighbours import MeaningSpace, Neighbours, open_space, pair_id
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.text import fulltext_clause, fulltext_query, salient_terms

MIN_SEEDS: Final = 12
# Older seeds come from this many places in the profile's life, a few after each.
WINDOWS: Final = 8
LEXICAL_PER_SEED: Final = 8
TERMS_PER_SEED: Final = 16
_INDEX_KIND: Final[dict[str, MemoryKind]] = {"fragment_text": "fragment", "fact_text": "fact"}


@dataclass(frozen=True)
class _Found:
    seed: Memory
    other: Memory
    cosine: float | None

    @property
    def key(self) -> tuple[str, str]:
        return pair_id(self.seed.id, self.other.id)


def _window_starts(born: datetime | None, now: datetime, runs: int) -> list[datetime]:
    """Points spread over the profile's life, different every cycle (golden-ratio steps)."""
    if born is None or born >= now:
        return [now]
    fractions = (((runs * WINDOWS + k) * 0.6180339887) % 1.0 for k in range(WINDOWS))
    return sorted(born + (now - born) * fraction for fraction in fractions)


async def _seeds(tx: ProfileTx, now: datetime, count: int) -> list[Memory]:
    profile = await tx.single(q.PROFILE_SETTINGS)
    runs = await tx.single(q.RUN_COUNT)
    born = profile["profile"].get("created_at") if profile else None
    rows = await tx.run(
        q.SEED_MEMORIES,
        recent=count,
        window_starts=_window_starts(born, now, runs["runs"] if runs else 0),
        per_window=-(-count // WINDOWS),
        feedback_label=DREAM_FEEDBACK_LABEL,
    )
    unique = {row["id"]: memory_from_row(row["kind"], row) for row in rows}
    return list(unique.values())


async def _lexical(tx: ProfileTx, seeds: Sequence[Memory]) -> list[_Found]:
    by_id = {seed.id: seed for seed in seeds}
    queries = []
    for seed in seeds:
        terms = fulltext_clause("text", " ".join(salient_terms(seed.text)[:TERMS_PER_SEED]))
        if terms is not None:
            queries.append({"id": seed.id, "terms": terms})
    found: list[_Found] = []
    for index, kind in _INDEX_KIND.items():
        rows = await tx.run(
            q.RELATED_MEMORIES,
            seeds=queries,
            index=index,
            per_seed=LEXICAL_PER_SEED,
            feedback_label=DREAM_FEEDBACK_LABEL,
        )
        found.extend(_Found(by_id[row["seed_id"]], memory_from_row(kind, row), None) for row in rows)
    return found


async def _evidence_sets(tx: ProfileTx, memories: Sequence[Memory]) -> dict[str, set[str]]:
    """The fragments behind each memory: a fragment is its own evidence, a fact has its claim's."""
    evidence = {memory.id: {memory.id} for memory in memories if memory.kind == "fragment"}
    fact_ids = sorted({memory.id for memory in memories if memory.kind == "fact"})
    for row in await tx.run(q.FACT_EVIDENCE_IDS, ids=fact_ids):
        evidence[row["id"]] = set(row["fragment_ids"])
    return evidence


async def _fresh_pairs(tx: ProfileTx, found: Sequence[_Found]) -> dict[tuple[str, str], _Found]:
    """One entry per pair, without pairs of one memory, of shared evidence, or dreamed before."""
    evidence = await _evidence_sets(tx, [item.seed for item in found] + [item.other for item in found])
    pairs: dict[tuple[str, str], _Found] = {}
    for item in found:
        behind = evidence.get(item.seed.id, set()) & evidence.get(item.other.id, set())
        if item.seed.id == item.other.id or behind:
            continue  # the same memory, or two views of the same evidence: already linked
        if item.key not in pairs or pairs[item.key].cosine is None:
            pairs[item.key] = item
    keys = ["|".join(key) for key in pairs]
    dreamed = {row["key"] for row in await tx.run(q.DREAMED_PAIRS, keys=keys)}
    return {key: item for key, item in pairs.items() if "|".join(key) not in dreamed}


async def _meanings(
    space: MeaningSpace, pairs: dict[tuple[str, str], _Found], seed_neighbours: Neighbours
) -> dict[tuple[str, str], Meaning]:
    """Each pair's cosine beside both members' neighbourhoods, where both have vectors."""
    others = {item.other.id: item.other for item in pairs.values() if item.other.id not in seed_neighbours}
    neighbourhood = {
        member_id: fmean(cosine for _, cosine in rows)
        for member_id, rows in (
            seed_neighbours | await space.neighbours(list(others.values()), NEIGHBOURHOOD)
        ).items()
        if rows
    }
    cosines = await space.cosines([key for key, item in pairs.items() if item.cosine is None])
    meanings = {}
    for key, item in pairs.items():
        cosine = item.cosine if item.cosine is not None else cosines.get(key)
        first, second = neighbourhood.get(item.seed.id), neighbourhood.get(item.other.id)
        if cosine is not None and first is not None and second is not None:
            meanings[key] = Meaning(cosine, first, second)
    return meanings


async def _frequencies(tx: ProfileTx, terms: set[str], ceiling: int) -> dict[str, int]:
    safe = {term: fulltext_query(term) for term in sorted(terms)}
    rows = await tx.run(q.TERM_FREQUENCY, terms=[query for query in safe.values() if query], cap=ceiling + 1)
    frequency = {row["term"]: int(row["frequency"]) for row in rows}
    return {term: frequency.get(query or "", 1) for term, query in safe.items()}


async def find_candidates(
    tx: ProfileTx, max_outputs: int, now: datetime, model: str | None
) -> list[CandidatePair]:
    """Candidate pairs with their evidence; `model` is the running embedding model (None: off)."""
    size_row = await tx.single(q.CORPUS_SIZE)
    corpus_size = max(int(size_row["size"]) if size_row else 0, 1)
    seeds = await _seeds(tx, now, max(MIN_SEEDS, max_outputs + 4))
    space = await open_space(tx, model) if model else None
    seed_neighbours = await space.neighbours(seeds, NEIGHBOURHOOD) if space else {}
    by_id = {seed.id: seed for seed in seeds}
    semantic = [
        _Found(by_id[seed_id], other, cosine)
        for seed_id, rows in seed_neighbours.items()
        for other, cosine in rows
    ]
    pairs = await _fresh_pairs(tx, semantic + await _lexical(tx, seeds))
    meanings = await _meanings(space, pairs, seed_neighbours) if space else {}
    terms = {key: shared_terms(item.seed.text, item.other.text) for key, item in pairs.items()}
    words = {term for shared in terms.values() for term in shared}
    frequency = await _frequencies(tx, words, common_ceiling(corpus_size))
    return [
        CandidatePair(
            first=item.seed,
            second=item.other,
            meaning=meanings.get(key),
            shared=rare_shared((item.seed.text, item.other.text), terms[key], frequency, corpus_size),
            corpus_size=corpus_size,
        )
        for key, item in pairs.items()
    ]
