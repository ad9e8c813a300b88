"""recall_memory: fulltext (BM25) search over facts, validated claims and fragments of a profile.

Each kind is searched in its own fulltext index and the ranked lists are fused with reciprocal
rank fusion, so a kind with long texts cannot drown the others; source quality and recency
break ties. A vector search would be one more ranked list in `_ranked_lists`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from graph.access import ProfileGraph, ProfileTx
from graph.errors import InvalidInputError
from graph.memory import queries as q
from graph.memory.models import ClarificationView, Evidence, RecallItem, RecallResult, RelatedDream, as_utc
from graph.text import STOP_WORDS, fulltext_clause, tokens

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 512
MAX_RECALL_LIMIT = 50
RRF_K = 60
Kind = Literal["fact", "claim", "fragment"]

# index, live statuses, and statuses that were live at an earlier `known_at`.
_KINDS: dict[Kind, tuple[str, str, str]] = {
    "fact": ("fact_text", "active", "active OR superseded"),
    "claim": ("claim_text", "validated", "validated OR promoted OR superseded"),
    "fragment": ("fragment_text", "active", "active"),
}

RelatedDreamsLane = Callable[[ProfileGraph, str, Sequence[str]], Awaitable[list[RelatedDream]]]


@dataclass(frozen=True)
class RecallRequest:
    query: str
    limit: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    include_evidence: bool = False


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


def _fuse(ranked: dict[Kind, list[dict[str, Any]]], limit: int) -> list[RecallItem]:
    items: list[RecallItem] = []
    for kind, rows in ranked.items():
        for rank, row in enumerate(rows, start=1):
            items.append(
                RecallItem(
                    kind=kind,
                    id=row["id"],
                    text=row["text"],
                    score=round(1.0 / (RRF_K + rank), 6),
                    status=row["status"],
                    created_at=row["created_at"],
                    quality=float(row["quality"]),
                )
            )
    items.sort(key=lambda item: (-item.score, -item.quality, -item.created_at.timestamp()))
    return items[:limit]


async def _ranked_lists(
    tx: ProfileTx, request: RecallRequest, terms: str
) -> dict[Kind, list[dict[str, Any]]]:
    searches = [
        {
            "kind": kind,
            "index": index,
            "statuses": historical if request.known_at else live,
            # Fragments are evidence, not statements with a validity window.
            "valid_at": request.valid_at if kind != "fragment" else None,
        }
        for kind, (index, live, historical) in _KINDS.items()
    ]
    rows = await tx.run(
        q.FULLTEXT_SEARCH,
        searches=searches,
        terms=terms,
        limit=min(request.limit * 3, 150),
        known_at=request.known_at,
    )
    ranked: dict[Kind, list[dict[str, Any]]] = {kind: [] for kind in _KINDS}
    for row in sorted(rows, key=lambda row: -row["score"]):
        ranked[row.pop("kind")].append(row)
    return ranked


async def _evidence(tx: ProfileTx, items: list[RecallItem]) -> dict[str, list[Evidence]]:
    claim_ids = [item.id for item in items if item.kind == "claim"]
    fact_ids = [item.id for item in items if item.kind == "fact"]
    rows = await tx.run(q.CLAIM_EVIDENCE, claim_ids=claim_ids) + await tx.run(
        q.FACT_EVIDENCE, fact_ids=fact_ids
    )
    evidence: dict[str, list[Evidence]] = {}
    for row in rows:
        owner = row.pop("owner_id")
        evidence.setdefault(owner, []).append(Evidence(**row))
    return evidence


async def _search(
    tx: ProfileTx, request: RecallRequest, terms: str
) -> tuple[list[RecallItem], list[ClarificationView]]:
    items = _fuse(await _ranked_lists(tx, request, terms), request.limit)
    if request.include_evidence:
        evidence = await _evidence(tx, items)
        items = [
            item.model_copy(update={"evidence": evidence.get(item.id, [])})
            if item.kind != "fragment"
            else item
            for item in items
        ]
    rows = await tx.run(q.CLARIFICATIONS_TOUCHING, ids=[item.id for item in items], limit=request.limit)
    return items, [ClarificationView(**row["clarification"]) for row in rows]


async def recall(
    graph: ProfileGraph, request: RecallRequest, related_dreams: RelatedDreamsLane | None = None
) -> RecallResult:
    terms = _terms(request)
    # Stored times all carry an offset; a naive bound would compare as null and match nothing.
    request = replace(request, valid_at=as_utc(request.valid_at), known_at=as_utc(request.known_at))

    async def work(tx: ProfileTx) -> tuple[list[RecallItem], list[ClarificationView]]:
        return await _search(tx, request, terms)

    items, clarifications = await graph.read(work)
    dreams: list[RelatedDream] = []
    if related_dreams is not None:
        try:
            dreams = await related_dreams(graph, request.query, [item.id for item in items])
        except Exception:
            # Trigger: the optional dreams lane failed. Why: recall must never fail because of
            # it. Outcome: logged with its traceback, and recall returns no related dreams.
            log.exception("related_dreams lane failed; returning recall without it")
    return RecallResult(
        query=request.query, results=items, clarifications=clarifications, related_dreams=dreams
    )
