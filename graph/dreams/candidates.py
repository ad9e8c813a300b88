"""Finding pairs of memories worth dreaming about, without comparing every pair.

Seeds (the newest memories and a moving window of older ones) are searched against the
profile's fulltext indexes with their own salient words; BM25 returns the few memories that
share the rarest of them. Pairs already linked by evidence, or already dreamed in any status,
are dropped. The cost grows with the number of seeds and max_outputs, not with profile size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.generator import CandidatePair, Memory, MemoryKind, pair_key, shared_terms
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.text import fulltext_clause, fulltext_query, salient_terms

RECENT_SEEDS = 12
ROTATING_SEEDS = 12
MATCHES_PER_SEED = 8
TERMS_PER_SEED = 16
FREQUENCY_CAP = 500
_INDEX_KIND: dict[str, MemoryKind] = {"fragment_text": "fragment", "fact_text": "fact"}


@dataclass(frozen=True)
class Candidates:
    pairs: list[CandidatePair]
    document_frequency: dict[str, int]
    corpus_size: int


def _memory(kind: MemoryKind, row: dict[str, Any]) -> Memory:
    return Memory(
        kind=kind, id=row["id"], text=row["text"], quality=float(row["quality"]), created_at=row["created_at"]
    )


async def _seeds(tx: ProfileTx, run_number: int, now: datetime) -> list[Memory]:
    profile = await tx.single(q.PROFILE_SETTINGS)
    born = profile["profile"].get("created_at") if profile else None
    # Golden-ratio steps spread successive nights' windows evenly over the profile's life.
    fraction = (run_number * 0.6180339887) % 1.0
    window_start = born + (now - born) * fraction if born and born < now else now
    rows = await tx.run(
        q.SEED_MEMORIES,
        recent=RECENT_SEEDS,
        rotating=ROTATING_SEEDS,
        window_start=window_start,
        feedback_label=DREAM_FEEDBACK_LABEL,
    )
    unique = {row["id"]: _memory(row["kind"], row) for row in rows}
    return list(unique.values())


async def _matches(tx: ProfileTx, seeds: Sequence[Memory]) -> list[tuple[Memory, Memory, float]]:
    by_id = {seed.id: seed for seed in seeds}
    queries = []
    for seed in seeds:
        terms = fulltext_clause("text", " ".join(salient_terms(seed.text)[:TERMS_PER_SEED]))
        if terms is not None:
            queries.append({"id": seed.id, "terms": terms})
    found: list[tuple[Memory, Memory, float]] = []
    for index, kind in _INDEX_KIND.items():
        rows = await tx.run(
            q.RELATED_MEMORIES,
            seeds=queries,
            index=index,
            per_seed=MATCHES_PER_SEED,
            feedback_label=DREAM_FEEDBACK_LABEL,
        )
        found.extend((by_id[row["seed_id"]], _memory(kind, row), float(row["score"])) for row in rows)
    return found


async def _evidence_sets(tx: ProfileTx, memories: Sequence[Memory]) -> dict[str, set[str]]:
    """The fragments behind each memory: a fragment is its own evidence, a fact has its claim's."""
    evidence = {memory.id: {memory.id} for memory in memories if memory.kind == "fragment"}
    fact_ids = sorted({memory.id for memory in memories if memory.kind == "fact"})
    for row in await tx.run(q.FACT_EVIDENCE_IDS, ids=fact_ids):
        evidence[row["id"]] = set(row["fragment_ids"])
    return evidence


async def _document_frequency(tx: ProfileTx, pairs: Sequence[CandidatePair]) -> dict[str, int]:
    terms = sorted({term for pair in pairs for term in pair.shared_terms})
    safe = {term: fulltext_query(term) for term in terms}
    rows = await tx.run(
        q.TERM_FREQUENCY, terms=[query for query in safe.values() if query], cap=FREQUENCY_CAP
    )
    frequency = {row["term"]: int(row["frequency"]) for row in rows}
    return {term: frequency.get(query or "", 1) for term, query in safe.items()}


async def find_candidates(tx: ProfileTx, run_number: int, max_outputs: int, now: datetime) -> Candidates:
    size_row = await tx.single(q.CORPUS_SIZE)
    corpus_size = int(size_row["size"]) if size_row else 0
    seeds = await _seeds(tx, run_number, now)
    matches = await _matches(tx, seeds)
    evidence = await _evidence_sets(tx, seeds + [match for _, match, _ in matches])
    best: dict[str, tuple[float, CandidatePair]] = {}
    for seed, match, score in matches:
        if seed.id == match.id or evidence.get(seed.id, set()) & evidence.get(match.id, set()):
            continue  # the same memory, or two views of the same evidence: already linked
        shared = shared_terms(seed.text, match.text)
        key = pair_key(seed.id, match.id)
        if shared and score > best.get(key, (0.0, None))[0]:
            best[key] = (score, CandidatePair(seed, match, shared))
    dreamed = {row["key"] for row in await tx.run(q.DREAMED_PAIRS, keys=sorted(best))}
    ranked = sorted((item for key, item in best.items() if key not in dreamed), key=lambda item: -item[0])
    pairs = [pair for _, pair in ranked[: max(3 * max_outputs, 10)]]
    return Candidates(pairs, await _document_frequency(tx, pairs), max(corpus_size, 1))
