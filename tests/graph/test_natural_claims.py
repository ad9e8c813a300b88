"""Natural claims through remember on the real Neo4j: what the default verifier (sentence-v1)
makes of them with and without an evidence span, and the reason a host gets."""

from __future__ import annotations

import pytest

from graph.access import ProfileGraph
from graph.errors import InvalidInputError
from graph.memory.models import ClaimInput, ClaimStatus, PromotionOutcome
from tests.graph.memory_support import NOTHING, claim_state, counts, say, works_at

pytestmark = pytest.mark.anyio

# The object is far from the words that say the person likes it.
CHESS = (
    "Chess, which I picked up from my grandad years ago and still play most evenings with the "
    "neighbours, is honestly my favourite thing."
)


def likes(thing: str, evidence: str | None = None) -> ClaimInput:
    return ClaimInput(
        subject="user",
        predicate="likes",
        object=thing,
        extract_conf=0.9,
        resolution_conf=0.9,
        evidence=evidence,
    )


async def test_a_claim_stays_a_candidate_until_its_evidence_span_shows_the_words_that_say_it(
    graph: ProfileGraph,
) -> None:
    without = await say(graph, CHESS, likes("chess"))
    [first] = without.claims
    assert (first.status, first.outcome) == (ClaimStatus.CANDIDATE, PromotionOutcome.NOT_VALIDATED)
    assert first.verifier == "sentence-v1"
    assert first.verification_reason.startswith("object 'chess' found in fragment 1 but no word saying likes")
    assert first.verification_reason.endswith("send as evidence the words that say it")

    # The host does what the reason says: the same words again, with the span that says it.
    span = "Chess, which I picked up from my grandad years ago and still play most evenings"
    with_span = await say(
        graph, CHESS, likes("chess", evidence=f"{span} with the neighbours, is honestly my favourite")
    )
    [second] = with_span.claims
    assert second.claim_id == first.claim_id
    assert (second.status, second.outcome) == (ClaimStatus.PROMOTED, PromotionOutcome.PROMOTED)
    assert second.fact is not None and second.fact.object == "chess"
    assert (await claim_state(graph, first.claim_id))["evidence"].endswith("is honestly my favourite")


async def test_someone_elses_sentence_stays_a_candidate_and_says_whose_it_is(graph: ProfileGraph) -> None:
    result = await say(
        graph, "My sister works at Acme.", works_at("Acme", evidence="My sister works at Acme")
    )

    [claim] = result.claims
    assert (claim.verdict, claim.status, claim.fact) == ("insufficient", ClaimStatus.CANDIDATE, None)
    assert claim.verification_reason == (
        "object 'Acme' found in fragment 1, but the sentence is about 'My sister', not the person: "
        "send subject 'My sister' or a sentence the person says of themself"
    )


async def test_a_diary_sentence_without_i_becomes_a_fact(graph: ProfileGraph) -> None:
    text = "First day at Northwind as a senior product designer on the maps team."
    result = await say(graph, text, works_at("Northwind", evidence="First day at Northwind"))

    [claim] = result.claims
    assert claim.outcome is PromotionOutcome.PROMOTED, claim.verification_reason
    assert claim.fact is not None and claim.fact.object == "Northwind"


async def test_evidence_that_is_not_in_the_content_is_refused_and_writes_nothing(graph: ProfileGraph) -> None:
    with pytest.raises(
        InvalidInputError, match=r"evidence 'I love Acme' is not in content\. Copy the exact words"
    ):
        await say(graph, "I work at Acme.", works_at("Acme"), likes("Acme", evidence="I love Acme"))

    assert await counts(graph) == NOTHING


async def test_a_restatement_without_a_span_keeps_the_one_it_had(graph: ProfileGraph) -> None:
    first = await say(graph, "I work at Acme.", works_at("Acme", evidence="I work at Acme"))
    again = await say(graph, "Still at Acme, same desk.", works_at("Acme"))

    assert again.claims[0].claim_id == first.claims[0].claim_id
    assert (await claim_state(graph, first.claims[0].claim_id))["evidence"] == "I work at Acme"
