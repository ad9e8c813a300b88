"""Retraction, revalidation, and recall input the pipeline refuses."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.errors import InvalidInputError, InvalidTransitionError, NotFoundError
from graph.memory.models import (
    ClaimStatus,
    FactStatus,
    PromotionOutcome,
    RememberResult,
)
from graph.memory.pipeline import confirm
from graph.memory.retraction import retract
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
    # The claim lost all its evidence: it is no open question, and listing it would show the
    # retracted words again.
    assert reflection.candidate_claims == [] and reflection.counts.candidate_claims == 0
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


# --- retracting a fact that had replaced another ----------------------------------------------


async def _acme_replaced_by_beta(graph: ProfileGraph) -> tuple[RememberResult, RememberResult]:
    """Acme Corp held the slot, then a stronger Beta Labs claim replaced it."""
    old = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    new = await say(
        graph, "I work at Beta Labs.", works_at("Beta Labs", extract=0.95, resolution=0.9), now=at(10)
    )
    return old, new


async def test_retracting_the_fact_that_replaced_another_makes_the_older_one_current_again(
    graph: ProfileGraph,
) -> None:
    old, new = await _acme_replaced_by_beta(graph)
    old_fact, new_fact = old.claims[0].fact, new.claims[0].fact
    assert old_fact is not None and new_fact is not None
    assert await active_objects(graph) == ["Beta Labs"]

    result = await retract(graph, new_fact.id, "I never worked at Beta Labs", now=at(20))

    assert result.reinstated_fact is not None
    assert (result.reinstated_fact.id, result.reinstated_fact.object) == (old_fact.id, "Acme Corp")
    assert result.reinstated_fact.status is FactStatus.ACTIVE
    assert result.reinstated_fact.valid_to is None and result.reinstated_fact.superseded_by is None
    assert await active_objects(graph) == ["Acme Corp"]
    assert (await claim_state(graph, old.claims[0].claim_id))["status"] == ClaimStatus.PROMOTED
    assert (await fact_state(graph, new_fact.id))["status"] == FactStatus.RETRACTED
    assert old_fact.id in ids(await find(graph, "where do I work"), "fact")
    # Retracting it again changes nothing more.
    again = await retract(graph, new_fact.id, "again", now=at(30))
    assert again.already_retracted is True and again.reinstated_fact is None


async def test_a_replaced_fact_whose_own_evidence_was_retracted_stays_replaced(
    graph: ProfileGraph,
) -> None:
    old, new = await _acme_replaced_by_beta(graph)
    await retract(graph, old.fragment.id, "that was my sister", now=at(15))

    result = await retract(graph, new.claims[0].fact.id, "wrong too", now=at(20))  # type: ignore[union-attr]

    assert result.reinstated_fact is None
    assert await active_objects(graph) == []
    assert (await fact_state(graph, old.claims[0].fact.id))["status"] == FactStatus.SUPERSEDED  # type: ignore[union-attr]


async def test_a_question_about_a_retracted_fact_closes_and_its_claim_takes_the_empty_slot(
    graph: ProfileGraph,
) -> None:
    held = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"), now=at(0))
    asked = await say(graph, "I work at Beta Labs.", works_at("Beta Labs"), now=at(10))
    [waiting] = asked.claims
    assert waiting.clarification is not None and waiting.status is ClaimStatus.DISPUTED

    result = await retract(graph, held.claims[0].fact.id, "Acme was never my employer", now=at(20))  # type: ignore[union-attr]

    [reconsidered] = result.reconsidered_claims
    assert reconsidered.claim_id == waiting.claim_id
    assert reconsidered.outcome is PromotionOutcome.PROMOTED
    assert await active_objects(graph) == ["Beta Labs"]
    reflection = await health(graph)
    assert reflection.counts.open_clarifications == 0 and reflection.counts.disputed_claims == 0
    # The question is answered by the retraction: the person's keep_existing has nothing to keep.
    with pytest.raises(InvalidTransitionError):
        await confirm(graph, waiting.claim_id, "keep_existing")


async def test_a_question_about_a_retracted_replacement_is_asked_again_about_the_reinstated_fact(
    graph: ProfileGraph,
) -> None:
    _, replacement = await _acme_replaced_by_beta(graph)
    asked = await say(
        graph, "I work at Gamma Inc.", works_at("Gamma Inc", extract=0.95, resolution=0.9), now=at(20)
    )
    [waiting] = asked.claims
    assert waiting.clarification is not None

    result = await retract(graph, replacement.claims[0].fact.id, "never at Beta", now=at(30))  # type: ignore[union-attr]

    assert result.reinstated_fact is not None and result.reinstated_fact.object == "Acme Corp"
    [reconsidered] = result.reconsidered_claims
    # Gamma's claim is stronger than the reinstated Acme fact, so it replaces it at once, and
    # the result shows Acme as it ended up.
    assert reconsidered.outcome is PromotionOutcome.PROMOTED and reconsidered.fact is not None
    assert reconsidered.superseded_fact_id == result.reinstated_fact.id
    assert result.reinstated_fact.status is FactStatus.SUPERSEDED
    assert result.reinstated_fact.superseded_by == reconsidered.fact.id
    assert await active_objects(graph) == ["Gamma Inc"]
    assert (await health(graph)).counts.open_clarifications == 0
