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

from graph.access import PackedVector, ProfileGraph, ProfileTx, packed
from graph.clock import as_utc
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
    lift_neighbours,
)
from graph.recall.models import Evidence, RecallItem, RecallKind, RecallResult
from graph.recall.neighbours import asks, next_turns
from graph.recall.periods import Period, named_periods
from graph.recall.records import FoundMemory, OwnedEvidence, RecalledDream
from graph.recall.related import RELATED_DREAMS_LIMIT, RecalledResult, dream_terms, related_dreams
from graph.recall.request import KINDS, RecallRequest, search_terms, search_words
from graph.recall.semantic import SemanticLane, SemanticSearch, semantic_lane
from graph.rows import Row


@dataclass(frozen=True)
class _QueryVector:
    vector: PackedVector
    model_id: str
    min_score: float


def _vector_of(query: _QueryVector | None) -> tuple[PackedVector | None, str | None]:
    """The query's vector and its model, for a read that scores by cosine (None: no vector)."""
    return (query.vector, query.model_id) if query is not None else (None, None)


def fulltext_params(
    request: RecallRequest, words: list[str], terms: str | None, query: _QueryVector | None = None
) -> dict[str, Any]:
    """The parameters of `FULLTEXT_SEARCH` for `request` (the profile's own are added by the
    transaction); with the query's vector, its candidates' cosines are read too."""
    vector, model_id = _vector_of(query)
    return {
        "vector": vector,
        "model": model_id,
        "searches": [
            {"kind": kind, "index": search.index, "statuses": " OR ".join(request.statuses(kind))}
            for kind, search in KINDS.items()
        ],
        "statuses": {kind: list(request.statuses(kind)) for kind in KINDS},
        "words": words,
        "dream_terms": terms,
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


@dataclass(frozen=True)
class _LexicalLane:
    ranked: dict[RecallKind, list[FoundMemory]]
    # Lexical shares of more memories than ranked, and the ranked ones' cosines.
    shares: dict[str, float]
    cosines: dict[str, float]
    dreams: list[RecalledDream]


def _pairs(row: Row, column: str) -> dict[str, float]:
    return {str(memory_id): float(value) for memory_id, value in row[column]}


async def lexical_search(
    tx: ProfileTx, request: RecallRequest, words: list[str], terms: str | None, query: _QueryVector | None
) -> _LexicalLane:
    """Each kind's memories matching `words`, best first, with their lexical shares and their
    cosines to `query`, and the open dreams whose text matches `terms` (the question's specific
    words, `graph/recall/related.py`; None: no dream is searched by its words)."""
    row = await tx.one(q.FULLTEXT_SEARCH, **fulltext_params(request, words, terms, query))
    ranked: dict[RecallKind, list[FoundMemory]] = {kind: [] for kind in KINDS}
    for memory in sorted(map(FoundMemory.from_row, row["memories"]), key=lambda memory: -memory.score):
        ranked[memory.kind].append(memory)
    dreams = [RecalledDream.from_map(dream) for dream in row["dreams"]]
    return _LexicalLane(ranked, _pairs(row, "shares"), _pairs(row, "cosines"), dreams)


async def semantic_search(tx: ProfileTx, request: RecallRequest, query: _QueryVector) -> SemanticLane:
    """Each kind's memories nearest the query."""
    search = SemanticSearch(
        vector=query.vector,
        model_id=query.model_id,
        statuses={EmbeddedKind(kind): request.statuses(kind) for kind in KINDS},
        limit=request.candidates,
        # A look back in time may leave few memories that were live then, and each widening
        # costs a search: the results asked for are enough there. Otherwise the fusion's share.
        enough=request.limit if request.known_at or request.valid_at else request.candidates,
        min_score=query.min_score,
        known_at=request.known_at,
        valid_at=request.valid_at,
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
    graph: ProfileGraph, request: RecallRequest, terms: str | None, vectors: VectorKeeper | None
) -> tuple[LaneResults, list[RecalledDream], _QueryVector | None]:
    """Both lanes at once, and the query's vector when the semantic lane runs. The model encodes
    the query first (outside any transaction: a retried transaction must not re-run it), and the
    searches start once this process's earlier writes of the profile have their vectors (a wait
    that runs beside the encoding), so what was just remembered is found by meaning too. Then
    the lexical search and the vector search run side by side, each a read of its own. The
    vector search also reads the profile's memories whose vectors another process still owes;
    when there are any, they are embedded and written here and the vector search runs again
    (`graph/embedding/keeper.py`). The lexical search reads the cosines of its candidates to the
    query, and the lexical shares of more memories than it ranks, so the fusion weighs every
    candidate by both lanes with no third query. It also finds the open dreams whose text holds
    the query's specific words. When the query names days, the fragments said in them are read
    beside the two searches."""
    lanes, dreams = LaneResults(periods=named_periods(request.query)), list[RecalledDream]()
    query: _QueryVector | None = None
    if vectors is not None:
        query = await _encoded(graph, request, vectors)

    async def lexical() -> None:
        nonlocal dreams
        found = await graph.read_alone(lexical_search, request, search_words(request), terms, query)
        lanes.lexical, lanes.shares, dreams = found.ranked, found.shares, found.dreams
        lanes.similarities.update(found.cosines)

    async def semantic(known: _QueryVector) -> None:
        found = await graph.read_alone(semantic_search, request, known)
        if found.due and vectors is not None:
            # Memories another process acknowledged and has not embedded yet: embedded and
            # written here, then searched again, so they are found by meaning too.
            vectors.keep(graph, found.due)
            await vectors.settled(graph)
            found = await graph.read_alone(semantic_search, request, known)
        lanes.semantic = {kind: found.nearest[EmbeddedKind(kind)] for kind in KINDS}
        lanes.similarities.update(found.cosines)

    async def dated(periods: list[Period]) -> None:
        lanes.dated = await graph.read_alone(said_within, request, periods, *_vector_of(query))

    jobs: list[Callable[[], Coroutine[Any, Any, None]]] = [lexical]
    if query is not None:
        jobs.append(partial(semantic, query))
    if periods := readable(lanes.periods):
        jobs.append(partial(dated, periods))
    await _together(*jobs)
    return lanes, dreams, query


async def _encoded(graph: ProfileGraph, request: RecallRequest, vectors: VectorKeeper) -> _QueryVector:
    """The query's vector, once this process's earlier writes of the profile have theirs."""
    model = vectors.embedder
    async with anyio.create_task_group() as group:
        group.start_soon(vectors.settled, graph)
        vector = await model.query(request.query, graph.profile_id)
    return _QueryVector(packed(vector), model.model_id, model.spec.min_score)


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


def _recalled(found: Candidate) -> RecalledResult:
    return RecalledResult(found.memory.id, found.memory.text, found.score, found.memory.dreams)


async def recall(
    graph: ProfileGraph, request: RecallRequest, vectors: VectorKeeper | None = None
) -> RecallResult:
    """Search the profile; with `vectors` (the running model) the semantic lane runs beside
    the lexical one. Each candidate comes with its open clarifications and citing dreams, so
    only evidence, when asked for, takes another round."""
    search_terms(request)  # refuses a question that cannot be searched, before anything runs
    terms = dream_terms(request.query)
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
        related_dreams=related_dreams(request.query, [_recalled(found) for found in chosen], dreams),
    )
