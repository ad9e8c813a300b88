"""Dedupe, promotion gates and verification, calling graph.memory directly on a fresh profile."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.errors import IdempotencyConflictError
from graph.memory.models import (
    ClaimInput,
    ClaimStatus,
    FactStatus,
    PromotionOutcome,
)
from graph.memory.predicates import PREDICATE_RULES, UnsupportedPredicateError
from graph.memory.retraction import retract
from tests.graph.memory_support import (
    NOTHING,
    active_objects,
    claim_state,
    counts,
    find,
    health,
    ids,
    say,
    works_at,
)

pytestmark = pytest.mark.anyio


# --- dedupe ----------------------------------------------------------------------------------


async def test_same_idempotency_key_returns_the_original_fragment(graph: ProfileGraph) -> None:
    first = await say(graph, "I like jazz a lot.", idempotency_key="chat-1#3")
    again = await say(graph, "  i like JAZZ a lot. ", idempotency_key="chat-1#3")

    assert first.fragment.created is True
    assert again.fragment.created is False
    assert again.fragment.id == first.fragment.id
    assert again.fragment.duplicate_of == first.fragment.id
    assert again.fragment.duplicate_by == "idempotency_key"
    assert again.claims == []
    assert (await counts(graph))["fragments"] == 1


async def test_same_idempotency_key_with_other_content_is_a_conflict_that_stores_nothing(
    graph: ProfileGraph,
) -> None:
    first = await say(graph, "I like jazz a lot.", idempotency_key="chat-1#3")
    with pytest.raises(IdempotencyConflictError, match="already used for different content") as raised:
        await say(graph, "Different words, same key.", works_at("Acme Corp"), idempotency_key="chat-1#3")

    assert first.fragment.id in str(raised.value)
    assert (await counts(graph))["fragments"] == 1
    assert ids(await find(graph, "Different words"), "fragment") == set()
    assert (await health(graph)).counts.candidate_claims == 0


async def test_same_content_modulo_case_and_whitespace_is_a_content_hash_duplicate(
    graph: ProfileGraph,
) -> None:
    first = await say(graph, "I like jazz a lot.")
    again = await say(graph, "  i LIKE   jazz\n a lot.  ")

    assert again.fragment.created is False
    assert again.fragment.id == first.fragment.id
    assert again.fragment.duplicate_by == "content_hash"
    assert (await counts(graph))["fragments"] == 1


async def test_remembering_retracted_content_again_creates_a_new_fragment(graph: ProfileGraph) -> None:
    first = await say(graph, "I like jazz a lot.")
    await retract(graph, first.fragment.id, "said by mistake")

    again = await say(graph, "I like jazz a lot.")

    assert again.fragment.created is True
    assert again.fragment.id != first.fragment.id
    assert again.fragment.duplicate_by is None
    assert ids(await find(graph, "jazz"), "fragment") == {again.fragment.id}


# --- gates -----------------------------------------------------------------------------------


async def test_works_at_from_one_primary_source_is_promoted(graph: ProfileGraph) -> None:
    result = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"))

    [claim] = result.claims
    assert claim.verdict == "entailed"
    assert claim.outcome is PromotionOutcome.PROMOTED
    assert claim.status is ClaimStatus.PROMOTED
    assert claim.failed_gates == []
    assert claim.fact is not None
    assert claim.fact.status is FactStatus.ACTIVE
    # 0.35 * 0.9 + 0.35 * 0.8 + support gate (1 < 2: no) + quality gate (0.95: yes)
    assert claim.fact.truth_score == pytest.approx(0.745)
    assert await active_objects(graph) == ["Acme Corp"]


async def test_a_restatement_keeps_the_best_confidence_seen_and_links_its_evidence(
    graph: ProfileGraph,
) -> None:
    unsure = await say(graph, "I work at Acme Corp now.", works_at("Acme Corp", extract=0.5))
    [first] = unsure.claims
    assert first.failed_gates == ["extract_confidence"]

    sure = await say(graph, "I work at Acme Corp.", works_at("Acme Corp", extract=0.9, resolution=0.7))
    vague = await say(graph, "Acme Corp, that's my job.", works_at("Acme Corp", extract=0.6))

    assert [claim.claim_id for claim in sure.claims + vague.claims] == [first.claim_id] * 2
    assert sure.claims[0].outcome is PromotionOutcome.PROMOTED
    stored = await claim_state(graph, first.claim_id)
    # Each confidence is the best of its own: 0.9 from the second statement, 0.8 from the first.
    assert (stored["extract_conf"], stored["resolution_conf"]) == (0.9, 0.8)
    assert stored["support_count"] == 3
    assert vague.claims[0].status is ClaimStatus.PROMOTED
    assert await active_objects(graph) == ["Acme Corp"]


async def test_one_secondary_source_fails_the_evidence_gate_until_a_second_restates_it(
    graph: ProfileGraph,
) -> None:
    first = await say(graph, "HR letter: I work at Acme Corp.", works_at("Acme Corp"), authority="secondary")

    [claim] = first.claims
    assert claim.verdict == "entailed"
    assert claim.outcome is PromotionOutcome.GATE_REJECTED
    assert claim.failed_gates == ["evidence"]
    assert claim.status is ClaimStatus.VALIDATED
    assert claim.fact is None
    assert await active_objects(graph) == []

    second = await say(
        graph,
        "Payslip from Acme Corp: my employer pays me monthly.",
        works_at("Acme Corp"),
        authority="secondary",
    )

    [restated] = second.claims
    assert restated.claim_id == claim.claim_id  # the same claim, now with two supporting fragments
    assert restated.outcome is PromotionOutcome.PROMOTED
    assert restated.fact is not None
    assert (await claim_state(graph, claim.claim_id))["support_count"] == 2
    assert await active_objects(graph) == ["Acme Corp"]


async def test_low_extract_confidence_names_the_extract_confidence_gate(graph: ProfileGraph) -> None:
    result = await say(graph, "I work at Acme Corp.", works_at("Acme Corp", extract=0.5))

    [claim] = result.claims
    assert claim.outcome is PromotionOutcome.GATE_REJECTED
    assert claim.failed_gates == ["extract_confidence"]
    assert await active_objects(graph) == []


async def test_plan_modality_names_the_modality_gate(graph: ProfileGraph) -> None:
    result = await say(
        graph, "I plan to work at Acme Corp next year.", works_at("Acme Corp", modality="plan")
    )

    [claim] = result.claims
    assert claim.outcome is PromotionOutcome.GATE_REJECTED
    assert claim.failed_gates == ["modality"]
    assert await active_objects(graph) == []


async def test_unsupported_predicate_is_refused_and_writes_nothing(graph: ProfileGraph) -> None:
    lives_in = ClaimInput(
        subject="user", predicate="lives_in", object="Paris", extract_conf=0.9, resolution_conf=0.9
    )

    with pytest.raises(UnsupportedPredicateError) as refused:
        await say(graph, "I work at Acme Corp and live in Paris.", works_at("Acme Corp"), lives_in)

    message = str(refused.value)
    assert "'lives_in' is not supported" in message
    for predicate in PREDICATE_RULES:
        assert predicate in message
    assert await counts(graph) == NOTHING
    assert (await health(graph)).counts.model_dump() == {
        "stale_facts": 0,
        "candidate_claims": 0,
        "disputed_claims": 0,
        "open_clarifications": 0,
    }
    assert (await find(graph, "Acme Paris")).results == []


# --- verification ----------------------------------------------------------------------------


async def test_claim_whose_object_is_absent_stays_a_candidate(graph: ProfileGraph) -> None:
    result = await say(graph, "I work at a bakery downtown.", works_at("Globex"))

    [claim] = result.claims
    assert claim.verdict == "insufficient"
    assert claim.outcome is PromotionOutcome.NOT_VALIDATED
    assert claim.status is ClaimStatus.CANDIDATE
    assert "'Globex' not found" in claim.verification_reason
    reflection = await health(graph)
    assert reflection.counts.candidate_claims == 1
    assert [summary.id for summary in reflection.candidate_claims] == [claim.claim_id]
    assert await active_objects(graph) == []


async def test_a_negated_statement_contradicts_the_claim(graph: ProfileGraph) -> None:
    result = await say(graph, "I no longer work at Acme Corp.", works_at("Acme Corp"))

    [claim] = result.claims
    assert claim.verdict == "contradicted"
    assert claim.status is ClaimStatus.DISPUTED
    assert claim.outcome is PromotionOutcome.NOT_VALIDATED
    assert "no longer" in claim.verification_reason
    reflection = await health(graph)
    assert [summary.id for summary in reflection.disputed_claims] == [claim.claim_id]
    assert await active_objects(graph) == []
