"""Concurrent writers, profile isolation and validity windows."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from graph.access import ProfileGraph
from graph.errors import IdempotencyConflictError, InvalidInputError, NotFoundError
from graph.memory.models import (
    ClaimInput,
    PromotionOutcome,
)
from graph.memory.pipeline import confirm
from graph.memory.retraction import retract
from tests.graph.memory_support import NOTHING, active_objects, counts, find, health, ids, say, works_at

pytestmark = pytest.mark.anyio


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


async def test_concurrent_calls_on_one_key_with_other_contents_keep_one_and_refuse_the_rest(
    graph: ProfileGraph,
) -> None:
    contents = [f"Note {number}: I planted {number} tulips today." for number in range(20)]
    results = await asyncio.gather(
        *(say(graph, content, idempotency_key="same-key") for content in contents), return_exceptions=True
    )

    stored = [result for result in results if not isinstance(result, BaseException)]
    refused = [result for result in results if isinstance(result, IdempotencyConflictError)]
    assert (len(stored), len(refused)) == (1, 19)
    assert (await counts(graph))["fragments"] == 1
    for error in refused:
        assert stored[0].fragment.id in str(error)


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
