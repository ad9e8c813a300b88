"""The endpoint's model checks claims over the lexical floor: it may take a fragment's support
away (negation, hedges), never add support nor contradict. The model is a scripted
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import pytest

from graph.dreams.host_model import HostModelLimits
from graph.memory.verifier import ClaimStatement, LexicalVerifier, Verdict
from graph.models.claim_check import ClaimCheck
from graph.models.endpoint import EndpointConfig, EndpointModel
from tests.scripted_endpoint import (
    ANSWERING_MODEL,
    Received,
    Reply,
    ScriptedEndpoint,
    completion,
    error,
    scripted_endpoint,
)

pytestmark = [pytest.mark.anyio, pytest.mark.unit]
LIKES_JAZZ = ClaimStatement(subject="user", predicate="likes", object="jazz")
HEDGED = "I don't think I like jazz, to be honest."
LEXICAL = LexicalVerifier()


def checked(*states: bool) -> Reply:
    claims = [{"number": n, "states": s, "why": "hedged: 'I don't think'"} for n, s in enumerate(states, 1)]
    return completion(json.dumps({"claims": claims}))


@pytest.fixture
def reply() -> Reply:
    return checked(False)


@pytest.fixture
def endpoint(reply: Reply) -> Iterator[ScriptedEndpoint]:
    def answer(received: Received) -> Reply:
        return reply

    with scripted_endpoint(answer) as served:
        yield served


@pytest.fixture
def timeout_seconds() -> float:
    # Ample for a scripted answer on a loaded machine (0.5 s once timed out in CI); the test of a
    # slow model shortens it.
    return 10.0


@pytest.fixture
async def check(endpoint: ScriptedEndpoint, timeout_seconds: float) -> AsyncIterator[ClaimCheck]:
    limits = HostModelLimits(timeout_seconds=timeout_seconds)
    model = EndpointModel(EndpointConfig(url=endpoint.url, model="configured", limits=limits))
    yield ClaimCheck(model, limits, floor=LEXICAL)
    await model.aclose()


def test_the_lexical_floor_alone_reads_a_hedged_negation_as_support() -> None:
    # The known limit the model is there for: the negator is too far from "jazz".
    assert LEXICAL.verify(LIKES_JAZZ, [HEDGED]).verdict is Verdict.ENTAILED


async def test_a_hedged_negation_does_not_support_the_claim(
    check: ClaimCheck, endpoint: ScriptedEndpoint
) -> None:
    verifier = await check.verifier_for(HEDGED, [LIKES_JAZZ])
    result = verifier.verify(LIKES_JAZZ, [HEDGED])
    assert result.verdict is Verdict.INSUFFICIENT
    assert result.verifier == f"lexical-v1+{ANSWERING_MODEL}"
    assert "reads fragment 1 as not stating the claim (hedged" in result.reason
    [sent] = endpoint.received
    assert "1. user likes jazz" in sent.prompt and HEDGED in sent.prompt


async def test_other_fragments_that_support_the_claim_keep_it_entailed(check: ClaimCheck) -> None:
    verifier = await check.verifier_for(HEDGED, [LIKES_JAZZ])
    result = verifier.verify(LIKES_JAZZ, ["I love jazz, Coltrane above all.", HEDGED])
    assert result.verdict is Verdict.ENTAILED and result.verifier == LEXICAL.name


@pytest.mark.parametrize("reply", [checked(True)])
async def test_a_model_that_reads_support_leaves_the_lexical_verdict(check: ClaimCheck) -> None:
    verifier = await check.verifier_for("I like jazz a lot.", [LIKES_JAZZ])
    assert verifier.verify(LIKES_JAZZ, ["I like jazz a lot."]) == LEXICAL.verify(
        LIKES_JAZZ, ["I like jazz a lot."]
    )


@pytest.mark.parametrize("reply", [checked(True, True)])
async def test_the_model_is_not_asked_what_the_lexical_verifier_does_not_entail(
    check: ClaimCheck, endpoint: ScriptedEndpoint
) -> None:
    # Neither claim is entailed lexically ("rock" is absent, jazz is denied), so the model,
    # which would say both are stated, cannot raise them: it is not even asked.
    likes_rock = ClaimStatement(subject="user", predicate="likes", object="rock")
    text = "I never liked jazz."
    verifier = await check.verifier_for(text, [likes_rock, LIKES_JAZZ])
    assert endpoint.received == []
    assert verifier.verify(likes_rock, [text]).verdict is Verdict.INSUFFICIENT
    assert verifier.verify(LIKES_JAZZ, [text]).verdict is Verdict.CONTRADICTED


@pytest.mark.parametrize(
    ("reply", "timeout_seconds"),
    [
        (error(500), 10.0),
        (completion("I'd rather not say."), 10.0),
        (completion('{"claims": "no"}'), 10.0),
        (Reply(delay=2.0), 0.5),
    ],
    ids=["error", "prose", "malformed", "slow"],
)
async def test_a_model_that_cannot_answer_leaves_the_lexical_floor(check: ClaimCheck) -> None:
    verifier = await check.verifier_for(HEDGED, [LIKES_JAZZ])
    assert verifier is LEXICAL


async def test_a_reading_applies_to_the_claim_it_was_asked_about_only(check: ClaimCheck) -> None:
    likes_coltrane = ClaimStatement(subject="user", predicate="likes", object="Coltrane")
    text = "I don't think I like jazz, but I love Coltrane."
    verifier = await check.verifier_for(text, [LIKES_JAZZ])
    assert verifier.verify(LIKES_JAZZ, [text]).verdict is Verdict.INSUFFICIENT
    assert verifier.verify(likes_coltrane, [text]).verdict is Verdict.ENTAILED
