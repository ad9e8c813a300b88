"""recall_memory: facts, validated claims and fragments of a profile, found by words and by meaning.

Two lanes search each kind: the lexical lane asks the kind's fulltext index (BM25), the semantic
lane compares meaning vectors (`graph/memory/semantic.py`). Their candidates are fused by
relative scores: each lane's scores are rescaled to 0..1 over its own candidates (BM25 scores per
kind, since each index has its own statistics; cosine across kinds, since it means the same
everywhere) and averaged. A memory found by both lanes is lifted, a paraphrase with no shared
word still gets its semantic half, and an exact rare name keeps the lexical top score. This
fusion was chosen over reciprocal-rank fusion by measurement on the LoCoMo development split
(README, "Semantic memory"). Source quality and recency break ties.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any, Final

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.clock import as_utc
from graph.dreams.records import RecalledDream
from graph.dreams.related import RELATED_DREAMS_LIMIT, related_dreams
from graph.embedding.keeper import VectorKeeper
from graph.embedding.kinds import EmbeddedKind
from graph.errors import InvalidInputError
from graph.memory import queries as q
from graph.memory.models import (
    ClaimStatus,
    ClarificationView,
    Evidence,
    FactStatus,
    FragmentStatus,
    RecallItem,
    RecallKind,
    RecallLane,
    RecallResult,
)
from graph.memory.records import FoundMemory, OwnedEvidence
from graph.memory.semantic import SemanticSearch, semantic_lists
from graph.text import STOP_WORDS, fulltext_clause, tokens

MAX_QUERY_CHARS = 512
MAX_RECALL_LIMIT = 50
# Each lane brings three candidates per requested result (at most 150) to the fusion.
CANDIDATES_PER_RESULT: Final = 3
MAX_CANDIDATES: Final = 150
SEMANTIC_WEIGHT: Final = 0.5
Kind = RecallKind


@dataclass(frozen=True)
class _KindSearch:
    index: str
    live: tuple[str, ...]
    # Statuses a memory may have now and still have been live at an earlier `known_at`.
    historical: tuple[str, ...]


_KINDS: Final[dict[Kind, _KindSearch]] = {
    "fact": _KindSearch("fact_text", (FactStatus.ACTIVE,), (FactStatus.ACTIVE, FactStatus.SUPERSEDED)),
    "claim": _KindSearch(
        "claim_text",
        (ClaimStatus.VALIDATED,),
        (ClaimStatus.VALIDATED, ClaimStatus.PROMOTED, ClaimStatus.SUPERSEDED),
    ),
    "fragment": _KindSearch("fragment_text", (FragmentStatus.ACTIVE,), (FragmentStatus.ACTIVE,)),
}


@dataclass(frozen=True)
class RecallRequest:
    query: str
    limit: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    include_evidence: bool = False

    @property
    def candidates(self) -> int:
        return min(self.limit * CANDIDATES_PER_RESULT, MAX_CANDIDATES)

    def statuses(self, kind: Kind) -> tuple[str, ...]:
        return _KINDS[kind].historical if self.known_at else _KINDS[kind].live


def _terms(request: RecallRequest) -> str:
    if len(request.query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query has {len(request.query)} characters; the limit is {MAX_QUERY_CHARS}.")
    if not 1 <= request.limit <= MAX_RECALL_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_RECALL_LIMIT}.")
    terms = fulltext_clause("text", request.query)
    if terms is None:
        raise InvalidInputError("query has no searchable words; use a few words about the topic.")
    if STOP_WORDS.issuperset(tokens(request.query)):
        # The index's analyzer drops such words, the text clause vanishes from the Lucene query,
        # and what is left ("this profile, live") would match every memory in no useful order.
        raise InvalidInputError(
            "query has no searchable words, only common ones such as 'the' or 'and'; "
            "use a few words about the topic."
        )
    return terms


def _rescaled(scores: Sequence[float]) -> list[float]:
    """Scores mapped onto 0..1 over their own list; a lone or all-equal list counts as a full match."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    return [1.0 if high == low else (score - low) / (high - low) for score in scores]


@dataclass
class _Candidate:
    memory: FoundMemory
    lexical: float = 0.0
    semantic: float = 0.0
    lanes: list[RecallLane] = field(default_factory=list)
    score: float = 0.0

    def item(self) -> RecallItem:
        return RecallItem(
            kind=self.memory.kind,
            id=self.memory.id,
            text=self.memory.text,
            score=self.score,
            lanes=self.lanes,
            status=self.memory.status,
            created_at=self.memory.created_at,
            occurred_at=self.memory.occurred_at,
            quality=self.memory.quality,
        )


def _fuse(
    lexical: dict[Kind, list[FoundMemory]], semantic: dict[Kind, list[FoundMemory]] | None, limit: int
) -> list[_Candidate]:
    """The `limit` best memories of both lanes, best first, each carrying its fused score."""
    candidates: dict[str, _Candidate] = {}
    for memories in lexical.values():
        for memory, scaled in zip(memories, _rescaled([m.score for m in memories]), strict=True):
            found = candidates.setdefault(memory.id, _Candidate(memory))
            found.lexical, found.lanes = scaled, [*found.lanes, "lexical"]
    near = [memory for memories in (semantic or {}).values() for memory in memories]
    for memory, scaled in zip(near, _rescaled([m.score for m in near]), strict=True):
        found = candidates.setdefault(memory.id, _Candidate(memory))
        found.semantic, found.lanes = scaled, [*found.lanes, "semantic"]
    weight = SEMANTIC_WEIGHT if semantic is not None else 0.0
    for found in candidates.values():
        found.score = round((1 - weight) * found.lexical + weight * found.semantic, 6)
    ranked = sorted(
        candidates.values(),
        key=lambda found: (-found.score, -found.memory.quality, -found.memory.created_at.timestamp()),
    )
    return ranked[:limit]


async def _lexical_search(
    tx: ProfileTx, request: RecallRequest, terms: str
) -> tuple[dict[Kind, list[FoundMemory]], list[RecalledDream]]:
    """Each kind's memories matching `terms`, best first, and the open dreams whose text does."""
    searches = [
        {"kind": kind, "index": search.index, "statuses": " OR ".join(request.statuses(kind))}
        for kind, search in _KINDS.items()
    ]
    row = await tx.one(
        q.FULLTEXT_SEARCH,
        searches=searches,
        terms=terms,
        limit=request.candidates,
        dream_limit=RELATED_DREAMS_LIMIT,
        known_at=request.known_at,
        valid_at=request.valid_at,
    )
    ranked: dict[Kind, list[FoundMemory]] = {kind: [] for kind in _KINDS}
    for memory in sorted(map(FoundMemory.from_row, row["memories"]), key=lambda memory: -memory.score):
        ranked[memory.kind].append(memory)
    return ranked, [RecalledDream.from_map(dream) for dream in row["dreams"]]


async def _semantic_lists(
    tx: ProfileTx, request: RecallRequest, query: _QueryVector
) -> dict[Kind, list[FoundMemory]]:
    search = SemanticSearch(
        vector=query.vector,
        model_id=query.model_id,
        statuses={EmbeddedKind(kind): request.statuses(kind) for kind in _KINDS},
        limit=request.candidates,
        enough=request.limit,
        min_score=query.min_score,
        known_at=request.known_at,
        valid_at=request.valid_at,
    )
    lists = await semantic_lists(tx, search)
    return {kind: lists.get(EmbeddedKind(kind), []) for kind in _KINDS}


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


@dataclass(frozen=True)
class _QueryVector:
    vector: list[float]
    model_id: str
    min_score: float


def _clarifications(memories: Sequence[FoundMemory], limit: int) -> list[ClarificationView]:
    """The open clarifications touching the results, newest first."""
    found = {question.id: question for memory in memories for question in memory.clarifications}
    return sorted(found.values(), key=lambda question: question.created_at, reverse=True)[:limit]


async def _together(*jobs: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run `jobs` concurrently, each in its own transaction; the first failure is raised as
    itself (Neo4j unreachable, bad input), so it maps to its clear message."""
    try:
        async with anyio.create_task_group() as group:
            for job in jobs:
                group.start_soon(job)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


@dataclass
class _Lanes:
    lexical: dict[Kind, list[FoundMemory]] = field(default_factory=dict)
    semantic: dict[Kind, list[FoundMemory]] | None = None
    dreams: list[RecalledDream] = field(default_factory=list)


async def _run_lanes(
    graph: ProfileGraph, request: RecallRequest, terms: str, vectors: VectorKeeper | None
) -> _Lanes:
    """Both lanes at once: the database answers the lexical search while the model encodes the
    query (outside any transaction: a retried transaction must not re-run it), and the two
    searches then run side by side. The vector search waits for this process's recent writes
    of the profile to have their vectors, so what was just remembered is found by meaning too.
    The lexical search also finds the open dreams whose text matches the query."""
    lanes = _Lanes()

    async def lexical() -> None:
        lanes.lexical, lanes.dreams = await graph.read_alone(_lexical_search, request, terms)

    async def semantic(keeper: VectorKeeper) -> None:
        model = keeper.embedder
        query = _QueryVector(await model.query(request.query), model.model_id, model.spec.min_score)
        await keeper.settled(graph)
        lanes.semantic = await graph.read_alone(_semantic_lists, request, query)

    await _together(lexical, *([partial(semantic, vectors)] if vectors is not None else []))
    return lanes


async def recall(
    graph: ProfileGraph, request: RecallRequest, vectors: VectorKeeper | None = None
) -> RecallResult:
    """Search the profile; with `vectors` (the running model) the semantic lane runs beside
    the lexical one. Each candidate comes with its open clarifications and citing dreams, so
    only evidence, when asked for, takes another round."""
    terms = _terms(request)
    # Stored times all carry an offset; a naive bound would compare as null and match nothing.
    request = replace(request, valid_at=as_utc(request.valid_at), known_at=as_utc(request.known_at))
    lanes = await _run_lanes(graph, request, terms, vectors)
    chosen = _fuse(lanes.lexical, lanes.semantic, request.limit)
    items = [found.item() for found in chosen]
    if request.include_evidence:
        items = await graph.read(_with_evidence, items)
    return RecallResult(
        query=request.query,
        results=items,
        clarifications=_clarifications([found.memory for found in chosen], request.limit),
        related_dreams=related_dreams(
            [(found.memory.id, found.memory.dreams) for found in chosen], lanes.dreams
        ),
    )
