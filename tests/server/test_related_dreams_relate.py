"""Related dreams relate: recall lists first the dreams citing the memories it returned, each
saying which one in words; a dream found by its words alone must share a word of the question
that says something (not a date word, a month, a number or a filler). The two questions of
issue 44, on a small profile, against the real Neo4j and model."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.server.conftest import CallTool, caller
from tests.server.support import MEMORIES

pytestmark = pytest.mark.anyio

TUTOR, SARAMAGO = MEMORIES[6], MEMORIES[7]
TRIP, ANA = MEMORIES[4], MEMORIES[5]
ESPRESSO = "I drink espresso after dinner, often a double."
SLEEP = "I have been sleeping badly and wake up around 3 am."
DENTIST = "Had a dentist appointment in the morning, then lunch with Ana by the river."
RIVER_RUN = "Ran 18 km along the river after lunch; my knee felt fine."
MARCH_14 = "2026-03-14T10:00:00Z"


def words(hypothesis: str) -> dict[str, str]:
    return {
        "hypothesis": hypothesis,
        "why": "Both memories say it.",
        "what_if": "What if it holds?",
        "possible_outcome": "Ask the person.",
    }


async def dream_of(call: CallTool, ids: dict[str, str], first: str, second: str, hypothesis: str) -> str:
    written = await call("write_dream", source_ids=[ids[first], ids[second]], **words(hypothesis))
    return str(written["dream_id"])


async def profile(call: CallTool) -> tuple[dict[str, str], dict[str, str]]:
    """A person's memories (two of them said on 14 March 2026) and five dreams about them."""
    ids = {}
    for text in [*MEMORIES, ESPRESSO, SLEEP]:
        ids[text] = (await call("remember", content=text))["fragment"]["id"]
    for text in (DENTIST, RIVER_RUN):
        ids[text] = (await call("remember", content=text, occurred_at=MARCH_14))["fragment"]["id"]
    dreams = {
        "tutor": await dream_of(
            call,
            ids,
            TUTOR,
            SARAMAGO,
            "Late in the day, after work, the Tuesday tutor lessons are where the Saramago reading happens.",
        ),
        "trip": await dream_of(
            call,
            ids,
            TRIP,
            ANA,
            "What happened on the last day in Lisbon may shape the October trip to Ana's tiled buildings.",
        ),
        "march": await dream_of(
            call,
            ids,
            TUTOR,
            TRIP,
            "Since March 2026 the Portuguese lessons have been getting you ready for 14 days in Lisbon.",
        ),
        "caffeine": await dream_of(
            call, ids, ESPRESSO, SLEEP, "An espresso after dinner may be why you wake up at 3 am."
        ),
        "dentist": await dream_of(
            call,
            ids,
            DENTIST,
            RIVER_RUN,
            "The dentist visit and the river run were one busy Saturday with Ana nearby.",
        ),
    }
    return ids, dreams


def related_ids(found: dict[str, object], dreams: dict[str, str]) -> list[str]:
    names = {dream_id: name for name, dream_id in dreams.items()}
    return [names.get(item["dream_id"], item["dream_id"]) for item in found["related_dreams"]]  # type: ignore[attr-defined]


async def test_caffeine_and_a_day_bring_only_the_dreams_that_relate(call: CallTool) -> None:
    ids, dreams = await profile(call)

    caffeine = await call("recall_memory", query="Do I drink caffeine late in the day?")
    assert related_ids(caffeine, dreams) == ["caffeine"], (
        "the tutor and trip dreams share only 'late' and 'day'"
    )
    first = caffeine["related_dreams"][0]
    assert first["reason"] == f"cites the memory you recalled: “{ESPRESSO}”"
    assert first["cites_recalled"] == [ids[ESPRESSO]] and first["shared_words"] == []

    day = await call("recall_memory", query="What happened on 14 March 2026?")
    assert related_ids(day, dreams) == ["dentist"], (
        "the others share only 'happened', 'March', '2026' or '14'"
    )
    assert day["related_dreams"][0]["cites_recalled"] == [ids[DENTIST], ids[RIVER_RUN]]

    # A question about the trip: its dream relates through the memory recalled, quoted.
    trip = await call("recall_memory", query="Are Ana's tiled buildings worth the October trip?", limit=1)
    listed = {item["dream_id"]: item["reason"] for item in trip["related_dreams"]}
    assert "tiled buildings" in listed[dreams["trip"]]


async def test_a_dream_of_another_profile_is_never_related(call: CallTool, other_client: Client) -> None:
    other = caller(other_client)
    ids = [(await other("remember", content=text))["fragment"]["id"] for text in (ESPRESSO, SLEEP)]
    await other("write_dream", source_ids=ids, **words("Caffeine from espresso keeps the person awake."))
    await call("remember", content=ESPRESSO)

    found = await call("recall_memory", query="Does caffeine keep me awake?")
    assert found["results"] and found["related_dreams"] == []
