"""Conflicts in single_current slots: questions, supersession and the person's answers."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.errors import InvalidTransitionError, NotFoundError
from graph.memory.models import (
    ClaimStatus,
    FactStatus,
    PromotionOutcome,
    RememberResult,
)
from graph.memory.pipeline import ConfirmDecision, confirm
from tests.graph.memory_support import (
    active_objects,
    at,
    claim_state,
    counts,
    fact_state,
    find,
    health,
    ids,
    say,
    works_at,
)

pytestmark = pytest.mark.anyio


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
