"""The memory writes a surface offers the person, each followed by its effect on confirmed dreams.

A fact made by `remember`, `confirm` or a retraction's reconsidered claims may be the one a
confirmed dream waits for (`graph/dreams/confirmations.py`). Memory sits below dreams and cannot
know that, so every surface (the tools, the review page, an import) writes through these, and
no caller has to remember the second step. It runs after the memory's own transaction, so a
failed settle leaves the memory stored and the cycle's re_evaluate phase settles it later.
"""

from __future__ import annotations

from graph.access import ProfileGraph
from graph.dreams.confirmations import settle_confirmed
from graph.embedding.keeper import VectorKeeper
from graph.memory import pipeline, retraction
from graph.memory.models import ConfirmResult, RememberResult, RetractResult
from graph.memory.verifier import ClaimVerifier


async def remember(
    graph: ProfileGraph,
    request: pipeline.RememberRequest,
    verifier: ClaimVerifier,
    vectors: VectorKeeper | None,
) -> RememberResult:
    result = await pipeline.remember(graph, request, verifier=verifier, vectors=vectors)
    await settle_confirmed(graph, result.claims)
    return result


async def confirm(
    graph: ProfileGraph, claim_id: str, decision: pipeline.ConfirmDecision, vectors: VectorKeeper | None
) -> ConfirmResult:
    result = await pipeline.confirm(graph, claim_id, decision, vectors=vectors)
    await settle_confirmed(graph, [result.claim])
    return result


async def retract(
    graph: ProfileGraph, item_id: str, reason: str, vectors: VectorKeeper | None
) -> RetractResult:
    result = await retraction.retract(graph, item_id, reason, vectors=vectors)
    await settle_confirmed(graph, result.reconsidered_claims)
    return result
