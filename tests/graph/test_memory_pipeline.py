"""The memory pipeline against the real Neo4j: dedupe, gates, verification, conflicts, retraction,
concurrency, isolation and time travel, calling graph.memory directly on a fresh profile.

Times are passed explicitly (`now=`) wherever a test reasons about when something was recorded,
so `known_at` checks never depend on the wall clock.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.access import ProfileGraph, ProfileTx
from graph.errors import InvalidInputError, InvalidTransitionError, NotFoundError
from graph.memory.models import (
    ClaimInput,
    ClaimStatus,
    FactStatus,
    PromotionOutcome,
    RecallResult,
    ReflectionResult,
    RememberResult,
)
from graph.memory.pipeline import ConfirmDecision, RememberRequest, confirm, remember, retract
from graph.memory.policy import PREDICATE_RULES, UnsupportedPredicateError
from graph.memory.recall import RecallRequest, recall
from graph.memory.reflect import reflect
from graph.scope import ScopedQuery

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

# Reads the tests need beyond what recall and reflect expose; scoped like any other query.
FACT = ScopedQuery("test_fact", "MATCH (f:Fact {profile_id: $profile_id, id: $id}) RETURN f {.*} AS fact")
CLAIM = ScopedQuery("test_claim", "MATCH (c:Claim {profile_id: $profile_id, id: $id}) RETURN c {.*} AS claim")
ACTIVE_FACTS = ScopedQuery(
    "test_active_facts",
    """
    MATCH (f:Fact {profile_id: $profile_id, predicate: $predicate})
    WHERE f.status = 'active'
    RETURN f.id AS id, f.object AS object
    """,
)
COUNTS = ScopedQuery(
    "test_counts",
    """
    CALL { MATCH (f:SourceFragment {profile_id: $profile_id}) RETURN count(f) AS fragments }
    CALL { MATCH (c:Claim {profile_id: $profile_id}) RETURN count(c) AS claims }
    CALL { MATCH (f:Fact {profile_id: $profile_id}) RETURN count(f) AS facts }
    CALL { MATCH (q:Clarification {profile_id: $profile_id}) RETURN count(q) AS clarifications }
    RETURN fragments, claims, facts, clarifications
    """,
)
NOTHING = {"fragments": 0, "claims": 0, "facts": 0, "clarifications": 0}


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def works_at(company: str, extract: float = 0.9, resolution: float = 0.8, **extra: Any) -> ClaimInput:
    return ClaimInput(
        subject="user",
        predicate="works_at",
        object=company,
        extract_conf=extract,
        resolution_conf=resolution,
        **extra,
    )


async def say(
    graph: ProfileGraph,
    content: str,
    *claims: ClaimInput,
    authority: str = "primary",
    now: datetime | None = None,
    **extra: Any,
) -> RememberResult:
    request = RememberRequest(content=content, authority=authority, claims=claims, **extra)  # type: ignore[arg-type]
    return await remember(graph, request, now=now)


async def read(graph: ProfileGraph, query: ScopedQuery, **params: Any) -> list[dict[str, Any]]:
    async def work(tx: ProfileTx) -> list[dict[str, Any]]:
        return await tx.run(query, **params)

    return await graph.read(work)


async def fact_state(graph: ProfileGraph, fact_id: str) -> dict[str, Any]:
    [row] = await read(graph, FACT, id=fact_id)
    return dict(row["fact"])


async def claim_state(graph: ProfileGraph, claim_id: str) -> dict[str, Any]:
    [row] = await read(graph, CLAIM, id=claim_id)
    return dict(row["claim"])


async def active_objects(graph: ProfileGraph, predicate: str = "works_at") -> list[str]:
    return sorted(row["object"] for row in await read(graph, ACTIVE_FACTS, predicate=predicate))


async def counts(graph: ProfileGraph) -> dict[str, int]:
    [row] = await read(graph, COUNTS)
    return row


async def find(graph: ProfileGraph, query: str, **options: Any) -> RecallResult:
    return await recall(graph, RecallRequest(query=query, limit=50, **options))


def ids(result: RecallResult, kind: str) -> set[str]:
    return {item.id for item in result.results if item.kind == kind}


async def health(graph: ProfileGraph) -> ReflectionResult:
    return await reflect(graph, limit=100)


# --- dedupe ----------------------------------------------------------------------------------


async def test_same_idempotency_key_returns_the_original_fragment(graph: ProfileGraph) -> None:
    first = await say(graph, "I like jazz a lot.", idempotency_key="chat-1#3")
    again = await say(graph, "Different words, same call.", idempotency_key="chat-1#3")

    assert first.fragment.created is True
    assert again.fragment.created is False
    assert again.fragment.id == first.fragment.id
    assert again.fragment.duplicate_of == first.fragment.id
    assert again.fragment.duplicate_by == "idempotency_key"
    assert again.claims == []
    assert (await counts(graph))["fragments"] == 1
    # The retried call stored nothing of its own text.
    assert ids(await find(graph, "Different words"), "fragment") == set()


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


# --- single_current conflicts ----------------------------------------------------------------


async def _equal_conflict(graph: ProfileGraph) -> tuple[RememberResult, RememberResult]:
    old = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    new = await say(graph, "I work at Beta Labs.", works_at("Beta Labs"), now=at(10))
    return old, new


async def test_equal_conflict_asks_and_accepting_supersedes_the_old_fact(graph: ProfileGraph) -> None:
    old, new = await _equal_conflict(graph)
    assert old.claims[0].fact is not None
    old_fact = old.claims[0].fact.id

    [claim] = new.claims
    assert claim.outcome is PromotionOutcome.CLARIFICATION_REQUIRED
    assert claim.status is ClaimStatus.DISPUTED
    assert claim.fact is None
    question = claim.clarification
    assert question is not None
    assert new.clarifications == [question]
    assert (question.claim_id, question.fact_id, question.status) == (claim.claim_id, old_fact, "open")
    assert "Acme Corp" in question.question and "Beta Labs" in question.question
    assert claim.claim_id in question.question

    # The question comes with any recall that touches the current fact.
    found = await find(graph, "where do I work")
    assert old_fact in ids(found, "fact")
    assert [c.id for c in found.clarifications] == [question.id]
    assert (await health(graph)).counts.open_clarifications == 1

    answer = await confirm(graph, claim.claim_id, "accept_claim", now=at(20))

    assert answer.resolved_clarification_id == question.id
    assert answer.claim.outcome is PromotionOutcome.PROMOTED
    assert answer.claim.status is ClaimStatus.PROMOTED
    assert answer.claim.superseded_fact_id == old_fact
    assert answer.claim.fact is not None
    new_fact = answer.claim.fact.id
    assert await active_objects(graph) == ["Beta Labs"]
    superseded = await fact_state(graph, old_fact)
    assert superseded["status"] == FactStatus.SUPERSEDED
    assert superseded["valid_to"] == at(20)
    assert superseded["superseded_by"] == new_fact
    assert (await claim_state(graph, old.claims[0].claim_id))["status"] == ClaimStatus.SUPERSEDED

    now_found = await find(graph, "where do I work")
    assert ids(now_found, "fact") == {new_fact}
    assert now_found.clarifications == []
    assert (await health(graph)).counts.open_clarifications == 0

    # What memory held before Beta Labs was recorded (at minute 20) still says Acme Corp.
    for minute in (5, 15):
        then = await find(graph, "where do I work", known_at=at(minute))
        assert ids(then, "fact") == {old_fact}, minute
    assert ids(await find(graph, "where do I work", known_at=at(25)), "fact") == {new_fact}


async def test_keep_existing_rejects_the_claim_and_keeps_the_fact(graph: ProfileGraph) -> None:
    old, new = await _equal_conflict(graph)
    assert old.claims[0].fact is not None
    [claim] = new.claims
    assert claim.clarification is not None

    answer = await confirm(graph, claim.claim_id, "keep_existing", now=at(20))

    assert answer.resolved_clarification_id == claim.clarification.id
    assert answer.claim.status is ClaimStatus.REJECTED
    assert answer.claim.fact is None
    assert (await claim_state(graph, claim.claim_id))["status"] == ClaimStatus.REJECTED
    assert await active_objects(graph) == ["Acme Corp"]
    assert (await fact_state(graph, old.claims[0].fact.id))["status"] == FactStatus.ACTIVE
    reflection = await health(graph)
    assert reflection.counts.open_clarifications == 0
    assert reflection.counts.disputed_claims == 0


async def test_a_stronger_claim_supersedes_directly(graph: ProfileGraph) -> None:
    old = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    assert old.claims[0].fact is not None

    new = await say(
        graph, "I work at Beta Labs.", works_at("Beta Labs", extract=0.95, resolution=0.9), now=at(10)
    )

    [claim] = new.claims
    assert claim.outcome is PromotionOutcome.PROMOTED
    assert claim.superseded_fact_id == old.claims[0].fact.id
    assert claim.clarification is None
    assert new.clarifications == []
    assert await active_objects(graph) == ["Beta Labs"]
    superseded = await fact_state(graph, old.claims[0].fact.id)
    assert superseded["status"] == FactStatus.SUPERSEDED
    assert superseded["superseded_by"] == claim.fact.id  # type: ignore[union-attr]
    assert superseded["valid_to"] == at(10)


async def test_a_weaker_claim_is_rejected(graph: ProfileGraph) -> None:
    old = await say(graph, "I work at Acme Corp.", works_at("Acme Corp", extract=0.95, resolution=0.9))

    new = await say(graph, "I work at Beta Labs.", works_at("Beta Labs"))

    [claim] = new.claims
    assert claim.outcome is PromotionOutcome.REJECTED_WEAKER
    assert claim.status is ClaimStatus.REJECTED
    assert claim.fact is None
    assert await active_objects(graph) == ["Acme Corp"]
    assert (await fact_state(graph, old.claims[0].fact.id))["status"] == FactStatus.ACTIVE  # type: ignore[union-attr]


async def test_confirming_a_rejected_claim_is_an_invalid_transition_and_changes_nothing(
    graph: ProfileGraph,
) -> None:
    await say(graph, "I work at Acme Corp.", works_at("Acme Corp", extract=0.95, resolution=0.9))
    [claim] = (await say(graph, "I work at Beta Labs.", works_at("Beta Labs"))).claims
    assert claim.status is ClaimStatus.REJECTED
    before = (await claim_state(graph, claim.claim_id), await counts(graph), await active_objects(graph))

    decisions: tuple[ConfirmDecision, ...] = ("accept_claim", "keep_existing", "reject_claim")
    for decision in decisions:
        with pytest.raises(InvalidTransitionError) as refused:
            await confirm(graph, claim.claim_id, decision)
        assert refused.value.current == "rejected"
        assert refused.value.allowed == ()
        assert "none: this status is final" in str(refused.value)
        assert "Nothing was changed" in str(refused.value)

    after = (await claim_state(graph, claim.claim_id), await counts(graph), await active_objects(graph))
    assert after == before


async def test_confirming_an_unknown_claim_is_not_found(graph: ProfileGraph) -> None:
    with pytest.raises(NotFoundError):
        await confirm(graph, "no-such-claim", "accept_claim")


async def test_accepting_an_older_question_after_the_slot_moved_on_asks_again(graph: ProfileGraph) -> None:
    # Acme is current; Beta and Gamma both arrive with equal strength, so two questions are open.
    await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    [beta] = (await say(graph, "I work at Beta Labs.", works_at("Beta Labs"), now=at(1))).claims
    [gamma] = (await say(graph, "I work at Gamma Inc.", works_at("Gamma Inc"), now=at(2))).claims
    assert gamma.clarification is not None
    assert (await health(graph)).counts.open_clarifications == 2

    await confirm(graph, beta.claim_id, "accept_claim", now=at(3))
    assert await active_objects(graph) == ["Beta Labs"]

    # Gamma's question was about Acme, which is gone: the person is asked about Beta instead,
    # and the outdated question is closed rather than left open forever.
    retry = await confirm(graph, gamma.claim_id, "accept_claim", now=at(4))
    assert retry.claim.outcome is PromotionOutcome.CLARIFICATION_REQUIRED
    assert retry.claim.clarification is not None
    assert "Beta Labs" in retry.claim.clarification.question
    reflection = await health(graph)
    assert [q.id for q in reflection.clarifications] == [retry.claim.clarification.id]
    assert await active_objects(graph) == ["Beta Labs"]

    final = await confirm(graph, gamma.claim_id, "accept_claim", now=at(5))
    assert final.claim.outcome is PromotionOutcome.PROMOTED
    assert final.resolved_clarification_id == retry.claim.clarification.id
    assert await active_objects(graph) == ["Gamma Inc"]
    assert (await health(graph)).counts.open_clarifications == 0


async def test_accepting_a_question_whose_fact_lost_to_a_stronger_one_closes_it(graph: ProfileGraph) -> None:
    await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    [beta] = (await say(graph, "I work at Beta Labs.", works_at("Beta Labs"), now=at(1))).claims
    assert beta.clarification is not None
    [gamma] = (
        await say(
            graph, "I work at Gamma Inc.", works_at("Gamma Inc", extract=0.95, resolution=0.9), now=at(2)
        )
    ).claims
    assert gamma.outcome is PromotionOutcome.PROMOTED

    answer = await confirm(graph, beta.claim_id, "accept_claim", now=at(3))

    # Beta was only as strong as Acme, so it loses to Gamma; the question about Acme is closed
    # instead of staying open beside a claim that can no longer be confirmed.
    assert answer.claim.outcome is PromotionOutcome.REJECTED_WEAKER
    assert answer.claim.status is ClaimStatus.REJECTED
    assert answer.resolved_clarification_id == beta.clarification.id
    assert (await health(graph)).counts.open_clarifications == 0
    assert await active_objects(graph) == ["Gamma Inc"]


# --- retraction ------------------------------------------------------------------------------


async def test_retracting_the_only_support_flags_the_fact_for_revalidation(graph: ProfileGraph) -> None:
    stored = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    [claim] = stored.claims
    assert claim.fact is not None

    result = await retract(graph, stored.fragment.id, "wrong person", now=at(5))

    assert result.kind == "fragment"
    assert result.status == "retracted"
    assert result.already_retracted is False
    assert result.unsupported_claim_ids == [claim.claim_id]
    assert result.facts_needing_revalidation == [claim.fact.id]
    assert (await fact_state(graph, claim.fact.id))["status"] == FactStatus.NEEDS_REVALIDATION
    reflection = await health(graph)
    assert reflection.counts.stale_facts == 1
    [stale] = reflection.stale_facts
    assert stale.id == claim.fact.id
    assert stale.status is FactStatus.NEEDS_REVALIDATION
    assert "retracted" in stale.reason
    assert [summary.id for summary in reflection.candidate_claims] == [claim.claim_id]
    found = await find(graph, "Acme Corp")
    assert found.results == []


async def test_new_evidence_contradicting_an_active_fact_flags_it_for_revalidation(
    graph: ProfileGraph,
) -> None:
    stored = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    [claim] = stored.claims
    assert claim.fact is not None

    later = await say(graph, "I no longer work at Acme Corp.", works_at("Acme Corp"), now=at(5))

    [restated] = later.claims
    assert restated.claim_id == claim.claim_id
    assert restated.verdict == "contradicted"
    assert restated.status is ClaimStatus.DISPUTED
    assert restated.flagged_fact_id == claim.fact.id
    assert (await fact_state(graph, claim.fact.id))["status"] == FactStatus.NEEDS_REVALIDATION
    [stale] = (await health(graph)).stale_facts
    assert stale.id == claim.fact.id and "no longer" in stale.reason
    assert ids(await find(graph, "Acme Corp"), "fact") == set()


async def test_a_revalidated_fact_is_active_again_not_duplicated(graph: ProfileGraph) -> None:
    stored = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    fact = stored.claims[0].fact
    assert fact is not None
    await retract(graph, stored.fragment.id, "filed under the wrong chat", now=at(5))

    again = await say(graph, "I work at Acme Corp, as I said before.", works_at("Acme Corp"), now=at(10))

    [claim] = again.claims
    assert claim.outcome is PromotionOutcome.PROMOTED
    assert claim.fact is not None
    assert (await counts(graph))["facts"] == 1
    assert claim.fact.id == fact.id
    assert await active_objects(graph) == ["Acme Corp"]
    assert (await health(graph)).counts.stale_facts == 0


async def test_retracting_twice_reports_already_retracted(graph: ProfileGraph) -> None:
    stored = await say(graph, "I like jazz a lot.")

    first = await retract(graph, stored.fragment.id, "not mine")
    second = await retract(graph, stored.fragment.id, "not mine, again")

    assert first.already_retracted is False
    assert second.already_retracted is True
    assert ids(await find(graph, "jazz"), "fragment") == set()


async def test_retracting_an_unknown_id_is_not_found(graph: ProfileGraph) -> None:
    with pytest.raises(NotFoundError) as missing:
        await retract(graph, "no-such-id", "cleanup")
    assert "'no-such-id'" in str(missing.value)


async def test_retract_needs_a_reason(graph: ProfileGraph) -> None:
    stored = await say(graph, "I like jazz a lot.")
    with pytest.raises(InvalidInputError):
        await retract(graph, stored.fragment.id, "   ")
    assert ids(await find(graph, "jazz"), "fragment") == {stored.fragment.id}


async def test_a_retracted_fact_no_longer_appears_in_recall(graph: ProfileGraph) -> None:
    stored = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"))
    fact = stored.claims[0].fact
    assert fact is not None
    assert fact.id in ids(await find(graph, "Acme"), "fact")

    result = await retract(graph, fact.id, "the person corrected it")

    assert (result.kind, result.already_retracted) == ("fact", False)
    assert (await fact_state(graph, fact.id))["status"] == FactStatus.RETRACTED
    assert ids(await find(graph, "Acme"), "fact") == set()
    assert await active_objects(graph) == []
    assert (await retract(graph, fact.id, "again")).already_retracted is True


# --- recall input ----------------------------------------------------------------------------


async def test_a_query_of_only_common_words_is_refused_rather_than_matching_everything(
    graph: ProfileGraph,
) -> None:
    await say(graph, "I like jazz a lot.")
    await say(graph, "I work at Acme Corp.", works_at("Acme Corp"))

    for query in ("AND OR NOT", "the", "it is what it is", "!!! ???"):
        with pytest.raises(InvalidInputError, match="no searchable words"):
            await find(graph, query)
    assert ids(await find(graph, "who likes jazz"), "fragment") != set()


# --- concurrency -----------------------------------------------------------------------------

COMPANIES = ["Acme", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Theta", "Kappa"]


async def test_concurrent_equal_claims_leave_one_active_fact_and_questions_for_the_rest(
    graph: ProfileGraph,
) -> None:
    results = await asyncio.gather(
        *(
            say(graph, f"I work at {company} Industries.", works_at(f"{company} Industries"))
            for company in COMPANIES
        )
    )

    outcomes = Counter(result.claims[0].outcome for result in results)
    assert outcomes == {PromotionOutcome.PROMOTED: 1, PromotionOutcome.CLARIFICATION_REQUIRED: 7}
    [active] = await active_objects(graph)
    winner = next(result for result in results if result.claims[0].outcome is PromotionOutcome.PROMOTED)
    assert active == winner.claims[0].object
    reflection = await health(graph)
    assert reflection.counts.open_clarifications == 7
    assert {q.fact_id for q in reflection.clarifications} == {winner.claims[0].fact.id}  # type: ignore[union-attr]


async def test_concurrent_claims_of_different_strength_leave_the_strongest_active(
    graph: ProfileGraph,
) -> None:
    # Every score differs by far more than the 0.001 tie tolerance, so whatever the commit order,
    # each promotion either supersedes a weaker fact or is rejected by a stronger one.
    strengths = {company: 0.86 + 0.015 * rank for rank, company in enumerate(COMPANIES)}
    results = await asyncio.gather(
        *(
            say(graph, f"I work at {company} Industries.", works_at(f"{company} Industries", extract=extract))
            for company, extract in strengths.items()
        )
    )

    assert await active_objects(graph) == ["Kappa Industries"]
    assert all(not result.clarifications for result in results)
    assert (await counts(graph))["facts"] == sum(
        result.claims[0].outcome is PromotionOutcome.PROMOTED for result in results
    )


async def test_concurrent_identical_content_leaves_one_fragment(graph: ProfileGraph) -> None:
    likes_jazz = ClaimInput(
        subject="user", predicate="likes", object="jazz", extract_conf=0.9, resolution_conf=0.9
    )

    results = await asyncio.gather(*(say(graph, "I really love jazz.", likes_jazz) for _ in range(5)))

    assert len({result.fragment.id for result in results}) == 1
    assert sorted(result.fragment.created for result in results) == [False] * 4 + [True]
    assert {result.fragment.duplicate_by for result in results} == {None, "content_hash"}
    stored = await counts(graph)
    assert (stored["fragments"], stored["claims"], stored["facts"]) == (1, 1, 1)
    assert await active_objects(graph, "likes") == ["jazz"]


# --- isolation -------------------------------------------------------------------------------


async def test_another_profile_sees_nothing_of_this_one(
    graph: ProfileGraph, other_graph: ProfileGraph
) -> None:
    first = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), idempotency_key="k1")
    second = await say(graph, "I work at Beta Labs.", works_at("Beta Labs"))
    claim = second.claims[0]
    assert claim.clarification is not None
    mine = await find(graph, "Acme Beta work")
    assert mine.results and mine.clarifications

    theirs = await find(other_graph, "Acme Beta work")
    assert theirs.results == []
    assert theirs.clarifications == []
    assert await counts(other_graph) == NOTHING
    reflection = await health(other_graph)
    assert reflection.counts.model_dump() == dict.fromkeys(reflection.counts.model_dump(), 0)
    with pytest.raises(NotFoundError):
        await confirm(other_graph, claim.claim_id, "accept_claim")
    with pytest.raises(NotFoundError):
        await retract(other_graph, first.fragment.id, "not theirs")
    with pytest.raises(NotFoundError):
        await retract(other_graph, first.claims[0].fact.id, "not theirs")  # type: ignore[union-attr]

    # The same key and content are new in the other profile, and nothing here moved.
    copy = await say(other_graph, "I work at Acme Corp.", works_at("Acme Corp"), idempotency_key="k1")
    assert copy.fragment.created is True
    assert copy.claims[0].outcome is PromotionOutcome.PROMOTED
    assert await active_objects(graph) == ["Acme Corp"]
    assert (await health(graph)).counts.open_clarifications == 1
    assert ids(await find(graph, "Acme"), "fragment") == {first.fragment.id}


# --- validity --------------------------------------------------------------------------------


async def test_valid_at_returns_a_fact_only_inside_its_window(graph: ProfileGraph) -> None:
    start, end = datetime(2020, 3, 1, tzinfo=UTC), datetime(2023, 6, 30, tzinfo=UTC)
    stored = await say(graph, "I work at Acme Corp.", works_at("Acme Corp", valid_from=start, valid_to=end))
    fact = stored.claims[0].fact
    assert fact is not None
    assert (fact.valid_from, fact.valid_to) == (start, end)

    for inside in (start, datetime(2021, 1, 1, tzinfo=UTC), end - timedelta(seconds=1)):
        assert ids(await find(graph, "Acme", valid_at=inside), "fact") == {fact.id}, inside
    for outside in (start - timedelta(seconds=1), end, datetime(2025, 1, 1, tzinfo=UTC)):
        assert ids(await find(graph, "Acme", valid_at=outside), "fact") == set(), outside
    assert ids(await find(graph, "Acme"), "fact") == {fact.id}


async def test_times_without_an_offset_are_read_as_utc(graph: ProfileGraph) -> None:
    # Hosts often send "2020-03-01T00:00:00" with no offset; it must compare with aware times.
    stored = await say(
        graph,
        "I work at Acme Corp.",
        works_at("Acme Corp", valid_from=datetime(2020, 3, 1), valid_to=datetime(2023, 6, 30)),
    )
    fact = stored.claims[0].fact
    assert fact is not None
    assert fact.valid_from == datetime(2020, 3, 1, tzinfo=UTC)

    assert ids(await find(graph, "Acme", valid_at=datetime(2021, 1, 1, tzinfo=UTC)), "fact") == {fact.id}
    assert ids(await find(graph, "Acme", valid_at=datetime(2021, 1, 1)), "fact") == {fact.id}
    assert ids(await find(graph, "Acme", valid_at=datetime(2024, 1, 1)), "fact") == set()

    with pytest.raises(InvalidInputError):
        await say(
            graph,
            "I work at Beta Labs.",
            works_at("Beta Labs", valid_from=datetime(2024, 1, 1, tzinfo=UTC), valid_to=datetime(2023, 1, 1)),
        )
