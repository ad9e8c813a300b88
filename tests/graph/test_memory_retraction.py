"""Retraction, revalidation, and recall input the pipeline refuses."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.errors import InvalidInputError, NotFoundError
from graph.memory.models import (
    ClaimStatus,
    FactStatus,
    PromotionOutcome,
)
from graph.memory.pipeline import retract
from tests.graph.memory_support import (
    active_objects,
    at,
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
