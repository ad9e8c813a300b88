"""A duplicate's merge against the real Neo4j and model: a negation is no duplicate, a dream stored
before that rule cannot retract, and a merge the person has not kept is undone exactly."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graph.access import ProfileGraph
from graph.dreams import duplicates
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.models import Dream, DreamKind, DreamStatus, FeedbackDecision, MergeState, PromotionStage
from graph.dreams.review import get_dream, resolve_feedback
from graph.embedding.keeper import VectorKeeper
from graph.errors import InvalidInputError, InvalidTransitionError
from graph.forgetting.cascade import forget
from graph.memory.models import ClaimInput, ClaimStatus, FactStatus, RememberResult
from graph.memory.pipeline import RememberRequest, remember
from graph.scope import ScopedQuery
from tests.graph.memory_support import T0, claim_state, counts, fact_state, read

pytestmark = pytest.mark.anyio

ALLERGY = (
    "Doctor Almeida confirmed my penicillin allergy after the hospital rash in Porto last winter.",
    "Doctor Almeida confirmed I have no penicillin allergy after the hospital rash in Porto last winter.",
)
STARTER = (
    "I love Herbert, the sourdough starter my neighbour Odile gave me when I moved to Lisbon.",
    "I love Herbert, the sourdough starter my neighbour Odile gave me when I moved to Lisbon!",
)
FRAGMENT = ScopedQuery(
    "test_fragment", "MATCH (f:SourceFragment {profile_id: $profile_id, id: $id}) RETURN f {.*} AS fragment"
)


def likes(thing: str) -> ClaimInput:
    return ClaimInput(subject="user", predicate="likes", object=thing, extract_conf=0.9, resolution_conf=0.9)


def knows(person: str) -> ClaimInput:
    return ClaimInput(subject="user", predicate="knows", object=person, extract_conf=0.9, resolution_conf=0.9)


async def fragment_state(graph: ProfileGraph, fragment_id: str) -> dict[str, Any]:
    [row] = await read(graph, FRAGMENT, id=fragment_id)
    return dict(row["fragment"])


async def said_apart(
    graph: ProfileGraph, vectors: VectorKeeper, texts: tuple[str, str], *claims: tuple[ClaimInput, ...]
) -> list[RememberResult]:
    """The two texts remembered 40 days apart (with their claims), vectors written."""
    results = []
    for index, text in enumerate(texts):
        request = RememberRequest(
            content=text,
            claims=claims[index] if claims else (),
            occurred_at=T0 + timedelta(days=40 * index),
        )
        results.append(await remember(graph, request, vectors=vectors))
    await vectors.settled(graph)
    return results


async def dreamed(graph: ProfileGraph, vectors: VectorKeeper) -> list[Dream]:
    run = await run_cycle(graph, DreamingConfig(), CycleRequest(max_outputs=5), vectors=vectors)
    ids = next(phase for phase in run.phases if phase.phase == "dream").dream_ids
    return [await get_dream(graph, dream_id) for dream_id in ids]


async def the_duplicate(graph: ProfileGraph, vectors: VectorKeeper) -> Dream:
    [duplicate] = [dream for dream in await dreamed(graph, vectors) if dream.kind is DreamKind.DUPLICATE]
    return duplicate


async def merged(graph: ProfileGraph, vectors: VectorKeeper) -> Dream:
    duplicate = await the_duplicate(graph, vectors)
    result = await resolve_feedback(
        graph, duplicate.id, FeedbackDecision.PROMOTE_CANDIDATE, "Yes, I said that twice.", vectors=vectors
    )
    assert result.promotion is not None and result.promotion.outcome is PromotionStage.MERGED
    assert result.dream.merge is not None and result.dream.merge.state is MergeState.PENDING
    return result.dream


async def test_a_negation_is_no_duplicate_and_is_proposed_as_nothing(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    await said_apart(graph, vectors, ALLERGY)

    assert await dreamed(graph, vectors) == []


async def test_a_negation_dreamed_as_a_duplicate_before_the_rule_cannot_be_merged(
    graph: ProfileGraph, vectors: VectorKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [said.fragment.id for said in await said_apart(graph, vectors, ALLERGY)]
    # The finder as it was before it read the two for meaning: it stored this pair as a duplicate.
    monkeypatch.setattr(duplicates, "meaning_difference", lambda first, second: None)
    stored = await the_duplicate(graph, vectors)
    monkeypatch.undo()
    assert stored.hypothesis.startswith("You said the same thing twice")
    before = await counts(graph)

    with pytest.raises(
        InvalidInputError, match="no duplicate: the two memories do not say the same thing"
    ) as refused:
        await resolve_feedback(
            graph, stored.id, FeedbackDecision.PROMOTE_CANDIDATE, "Yes, I said that twice.", vectors=vectors
        )

    assert "“no penicillin allergy" in str(refused.value) and "Nothing was changed" in str(refused.value)
    after = await get_dream(graph, stored.id)
    assert after.status is stored.status and after.feedback == [] and after.merge is None
    assert [source.status for source in after.sources] == ["active", "active"]
    assert await counts(graph) == before, "not even the person's words were stored"
    assert {(await fragment_state(graph, fragment_id))["status"] for fragment_id in ids} == {"active"}


async def test_undoing_a_merge_puts_back_the_memory_and_what_it_alone_supported_exactly(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    # Each supports a claim of its own, so the earlier is retracted and takes its claim's only
    # support (and the fact it became) with it.
    earlier, later = await said_apart(graph, vectors, STARTER, (likes("Herbert"),), (knows("Odile"),))
    [claim] = earlier.claims
    assert claim.fact is not None
    before = (
        await fragment_state(graph, earlier.fragment.id),
        await claim_state(graph, claim.claim_id),
        await fact_state(graph, claim.fact.id),
    )
    assert (before[1]["status"], before[2]["status"]) == (ClaimStatus.PROMOTED, FactStatus.ACTIVE)

    dream = await merged(graph, vectors)
    assert dream.merge is not None
    assert (dream.merge.retracted_id, dream.merge.kept_id) == (earlier.fragment.id, later.fragment.id)
    assert (await claim_state(graph, claim.claim_id))["status"] == ClaimStatus.CANDIDATE
    assert (await fact_state(graph, claim.fact.id))["status"] == FactStatus.NEEDS_REVALIDATION

    undone = await resolve_feedback(graph, dream.id, FeedbackDecision.UNDO_MERGE, "They are not the same.")

    assert undone.merge is not None and undone.merge.state is MergeState.UNDONE
    assert undone.merge.restored_claim_ids == [claim.claim_id]
    after = (
        await fragment_state(graph, earlier.fragment.id),
        await claim_state(graph, claim.claim_id),
        await fact_state(graph, claim.fact.id),
    )
    assert after == before, "the fragment, its claim and the fact as they were, every property"
    assert undone.dream.status is DreamStatus.REJECTED
    assert undone.dream.merge is not None and undone.dream.merge.state is MergeState.UNDONE
    last = undone.dream.feedback[-1]
    assert (last.decision, last.from_status, last.to_status, last.feedback) == (
        FeedbackDecision.UNDO_MERGE,
        DreamStatus.PROMOTED,
        DreamStatus.REJECTED,
        "They are not the same.",
    )
    for again in (FeedbackDecision.UNDO_MERGE, FeedbackDecision.KEEP_MERGED):
        with pytest.raises(InvalidTransitionError, match="Nothing was changed"):
            await resolve_feedback(graph, dream.id, again)


async def test_a_kept_merge_is_final(graph: ProfileGraph, vectors: VectorKeeper) -> None:
    earlier, _ = await said_apart(graph, vectors, STARTER)
    dream = await merged(graph, vectors)

    kept = await resolve_feedback(graph, dream.id, FeedbackDecision.KEEP_MERGED)

    assert kept.merge is not None and kept.merge.state is MergeState.KEPT
    assert (
        kept.dream.status is DreamStatus.PROMOTED
        and kept.dream.feedback[-1].decision is FeedbackDecision.KEEP_MERGED
    )
    with pytest.raises(
        InvalidInputError, match="no merge waiting for the person: its merge was kept already"
    ):
        await resolve_feedback(graph, dream.id, FeedbackDecision.UNDO_MERGE)
    assert (await fragment_state(graph, earlier.fragment.id))["status"] == "retracted"
    assert (await get_dream(graph, dream.id)).feedback == kept.dream.feedback


async def test_an_undo_that_would_hold_the_same_words_twice_or_bring_back_a_forgotten_memory_is_refused(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    earlier, _ = await said_apart(graph, vectors, STARTER)
    dream = await merged(graph, vectors)
    said_again = await remember(graph, RememberRequest(content=STARTER[0]), vectors=vectors)
    assert said_again.fragment.created, "the retracted fragment no longer holds its words"

    with pytest.raises(InvalidInputError, match=f"{said_again.fragment.id} has said the same words since"):
        await resolve_feedback(graph, dream.id, FeedbackDecision.UNDO_MERGE)
    pending = await get_dream(graph, dream.id)
    assert pending.merge is not None and pending.merge.state is MergeState.PENDING
    assert pending.status is DreamStatus.PROMOTED

    await forget(graph, [earlier.fragment.id], "asked to")
    with pytest.raises(InvalidInputError, match="no merge waiting for the person: it merged nothing"):
        await resolve_feedback(graph, dream.id, FeedbackDecision.UNDO_MERGE)


async def test_an_undo_leaves_a_claim_that_moved_since_as_it_is_now(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    earlier, _ = await said_apart(graph, vectors, STARTER, (likes("Herbert"),), (knows("Odile"),))
    [claim] = earlier.claims
    dream = await merged(graph, vectors)
    # New evidence since the merge: the claim is memory again on other words.
    await remember(
        graph,
        RememberRequest(content="I really love Herbert, my sourdough starter.", claims=[likes("Herbert")]),
    )
    moved = await claim_state(graph, claim.claim_id)

    undone = await resolve_feedback(graph, dream.id, FeedbackDecision.UNDO_MERGE)

    assert undone.merge is not None and undone.merge.restored_claim_ids == []
    assert f"left as they are now, having changed since: {claim.claim_id}" in undone.merge.message
    assert await claim_state(graph, claim.claim_id) == moved
    assert (await fragment_state(graph, earlier.fragment.id))["status"] == "active"
