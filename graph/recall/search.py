"""recall_memory: facts, validated claims and fragments of a profile, found by words and by meaning.

Two lanes search each kind: the lexical lane asks the kind's fulltext index once per query word
and weighs the words by the profile's own statistics, the semantic lane compares meaning vectors
(`graph/recall/semantic.py`). A question that names days also reads the fragments said in them
(`graph/recall/dated.py`). Each candidate gets both lanes' scores on fixed scales, fused by a
weighted sum (`graph/recall/fusion.py`, docs/recall.md); source quality and recency break ties.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.clock import as_utc
from graph.embedding.encoder import Vector
from graph.embedding.keeper import VectorKeeper
from graph.embedding.kinds import EmbeddedKind
from graph.recall import queries as q
from graph.recall.dated import readable, said_within
from graph.recall.fusion import (
    K1,
    MOST_DAMPING,
    B,
    Candidate,
    LaneResults,
    clarifications_of,
    fuse,
    lexical_ids,
    lift_neighbours,
)
from graph.recall.models import Evidence, RecallItem, RecallKind, RecallResult
from graph.recall.neighbours import asks, next_turns
from graph.recall.periods import Period, named_periods
from graph.recall.records import FoundMemory, OwnedEvidence, RecalledDream
from graph.recall.related import RELATED_DREAMS_LIMIT, related_dreams
from graph.recall.request import KINDS, RecallRequest, search_terms, search_words
from graph.recall.semantic import SemanticLane, SemanticSearch, semantic_lane


@dataclass(frozen=True)
class _QueryVector:
    vector: list[float]
    model_id: str
    min_score: float


def _vector_of(query: _QueryVector | None) -> tuple[Vector | None, str | None]:
    """The query's vector and its model, for a read that scores by cosine (None: no vector)."""
    return (query.vector, query.model_id) if query is not None else (None, None)


def fulltext_params(request: RecallRequest, words: list[str], terms: str) -> dict[str, Any]:
    """The parameters of `FULLTEXT_SEARCH` for `request` (the profile's own are added by the
    transaction)."""
    return {
        "searches": [
            {"kind": kind, "index": search.index, "statuses": " OR ".join(request.statuses(kind))}
            for kind, search in KINDS.items()
        ],
        "statuses": {kind: list(request.statuses(kind)) for kind in KINDS},
        "words": words,
        "terms": terms,
        "cap": q.STATISTICS_CAP,
        "per_word": q.PER_WORD,
        "k1": K1,
        "b": B,
        "most": MOST_DAMPING,
        "limit": request.candidates,
        "shares": q.SHARES_PER_KIND,
        "dream_limit": RELATED_DREAMS_LIMIT,
        "known_at": request.known_at,
        "valid_at": request.valid_at,
    }


async def lexical_search(
    tx: ProfileTx, request: RecallRequest, words: list[str], terms: str
) -> tuple[dict[RecallKind, list[FoundMemory]], dict[str, float], list[RecalledDream]]:
    """Each kind's memories matching `words`, best first, with their lexical shares (more of
    them in the second map), and the open dreams whose text matches `terms`."""
    row = await tx.one(q.FULLTEXT_SEARCH, **fulltext_params(request, words, terms))
    ranked: dict[RecallKind, list[FoundMemory]] = {kind: [] for kind in KINDS}
    for memory in sorted(map(FoundMemory.from_row, row["memories"]), key=lambda memory: -memory.score):
        ranked[memory.kind].append(memory)
    shares = {str(memory_id): float(share) for memory_id, share in row["shares"]}
    return ranked, shares, [RecalledDream.from_map(dream) for dream in row["dreams"]]


async def semantic_search(
    tx: ProfileTx, request: RecallRequest, query: _QueryVector, lexical: dict[RecallKind, list[str]]
) -> SemanticLane:
    """Each kind's memories nearest the query, and the cosine score of the `lexical` candidates."""
    search = SemanticSearch(
        vector=query.vector,
        model_id=query.model_id,
        statuses={EmbeddedKind(kind): request.statuses(kind) for kind in KINDS},
        limit=request.candidates,
        enough=request.limit,
        min_score=query.min_score,
        known_at=request.known_at,
        valid_at=request.valid_at,
        named={EmbeddedKind(kind): ids for kind, ids in lexical.items()},
    )
    return await semantic_lane(tx, search)


async def _evidence(tx: ProfileTx, items: list[RecallItem]) -> dict[str, list[Evidence]]:
    claim_ids = [item.id for item in items if item.kind == "claim"]
    fact_ids = [item.id for item in items if item.kind == "fact"]
    rows = await tx.run(q.CLAIM_EVIDENCE, claim_ids=claim_ids) + await tx.run(
        q.FACT_EVIDENCE, fact_ids=fact_ids
    )
    evidence: dict[str, list[Evidence]] = {}
    for owned in map(OwnedEvidence.from_row, rows):
        evidence.setdefault(owned.owner_id, []).append(owned.evidence)
    return evidence


async def _with_evidence(tx: ProfileTx, items: list[RecallItem]) -> list[RecallItem]:
    evidence = await _evidence(tx, items)
    return [
        item.model_copy(update={"evidence": evidence.get(item.id, [])}) if item.kind != "fragment" else item
        for item in items
    ]


async def _together(*jobs: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run `jobs` concurrently, each in its own transaction; the first failure is raised as
    itself (Neo4j unreachable, bad input), so it maps to its clear message."""
    try:
        async with anyio.create_task_group() as group:
            for job in jobs:
                group.start_soon(job)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


async def _run_lanes(
    graph: ProfileGraph, request: RecallRequest, terms: str, vectors: VectorKeeper | None
) -> tuple[LaneResults, list[RecalledDream], _QueryVector | None]:
    """Both lanes at once, and the query's vector when the semantic lane runs. The database
    answers the lexical search while the model encodes the query (outside any transaction: a
    retried transaction must not re-run it). Once both are known, one query runs the vector
    search and reads the cosines of the lexical candidates it did not bring, a round trip fewer
    than searching first. The vector search waits for this process's earlier writes of the
    profile to have their vectors (a wait that starts as the query is encoded), so what was just
    remembered is found by meaning too. The lexical search also finds the open dreams whose
    text matches the query. When the query names days, the fragments said in them are read
    once the query's vector is known, beside the vector search."""
    lanes, dreams, encoded = LaneResults(periods=named_periods(request.query)), list[RecalledDream](), None
    lexical_done, encoding_done = anyio.Event(), anyio.Event()

    async def lexical() -> None:
        nonlocal dreams
        lanes.lexical, lanes.shares, dreams = await graph.read_alone(
            lexical_search, request, search_words(request), terms
        )
        lexical_done.set()

    async def semantic(keeper: VectorKeeper) -> None:
        nonlocal encoded
        model = keeper.embedder
        async with anyio.create_task_group() as group:
            group.start_soon(keeper.settled, graph)
            query = _QueryVector(await model.query(request.query), model.model_id, model.spec.min_score)
        encoded = query
        encoding_done.set()
        await lexical_done.wait()
        found = await graph.read_alone(semantic_search, request, query, lexical_ids(lanes.lexical))
        lanes.semantic = {kind: found.nearest[EmbeddedKind(kind)] for kind in KINDS}
        lanes.similarities = found.cosines

    async def dated(periods: list[Period]) -> None:
        if vectors is not None:
            await encoding_done.wait()
        lanes.dated = await graph.read_alone(said_within, request, periods, *_vector_of(encoded))

    # The encoding is started first: the vector search waits for it, and in a small profile it
    # is the slower of the two (a larger profile's lexical search can take longer).
    jobs: list[Callable[[], Coroutine[Any, Any, None]]] = [lexical]
    if vectors is not None:
        jobs.insert(0, partial(semantic, vectors))
    if periods := readable(lanes.periods):
        jobs.append(partial(dated, periods))
    await _together(*jobs)
    return lanes, dreams, encoded


async def _with_context(
    graph: ProfileGraph,
    request: RecallRequest,
    lanes: LaneResults,
    query: _QueryVector | None,
    min_cosine: float,
) -> list[Candidate]:
    """The fusion's choice, then the turn said right after each question it chose, lifted
    toward that question."""
    chosen = fuse(lanes, min_cosine, request.limit)
    anchors = [found.memory.id for found in chosen if asks(found.memory)]
    if not anchors:
        return chosen
    neighbours = await graph.read_alone(next_turns, request, *_vector_of(query), anchors)
    return lift_neighbours(chosen, neighbours, lanes, min_cosine, request.limit)


async def recall(
    graph: ProfileGraph, request: RecallRequest, vectors: VectorKeeper | None = None
) -> RecallResult:
    """Search the profile; with `vectors` (the running model) the semantic lane runs beside
    the lexical one. Each candidate comes with its open clarifications and citing dreams, so
    only evidence, when asked for, takes another round."""
    terms = search_terms(request)
    # Stored times all carry an offset; a naive bound would compare as null and match nothing.
    request = replace(request, valid_at=as_utc(request.valid_at), known_at=as_utc(request.known_at))
    lanes, dreams, query = await _run_lanes(graph, request, terms, vectors)
    min_cosine = vectors.embedder.spec.min_cosine if vectors is not None else 0.0
    chosen = await _with_context(graph, request, lanes, query, min_cosine)
    items = [found.item() for found in chosen]
    if request.include_evidence:
        items = await graph.read(_with_evidence, items)
    return RecallResult(
        query=request.query,
        results=items,
        clarifications=clarifications_of([found.memory for found in chosen], request.limit),
        related_dreams=related_dreams([(found.memory.id, found.memory.dreams) for found in chosen], dreams),
    )
