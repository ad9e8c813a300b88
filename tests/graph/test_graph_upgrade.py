"""Claim identity cannot collide, and profiles stored in the old format are upgraded."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from graph.access import ConnectionSettings, GraphStore, ProfileGraph
from graph.memory.models import ClaimInput, PromotionOutcome
from graph.schema import GRAPH_FORMAT
from graph.upgrade import upgrade_graph
from tests.graph.memory_support import say, works_at

pytestmark = pytest.mark.anyio


def likes(subject: str, obj: str) -> ClaimInput:
    return ClaimInput(subject=subject, predicate="likes", object=obj, extract_conf=0.9, resolution_conf=0.9)


async def raw(settings: ConnectionSettings, query: str, **params: Any) -> list[dict[str, Any]]:
    """Past Reverie's own checks, as an older version left the data."""
    async with (
        AsyncGraphDatabase.driver(settings.uri, auth=(settings.username, settings.password)) as driver,
        driver.session(database=settings.database) as session,
    ):
        result = await session.run(query, params)
        return [dict(record) async for record in result]


async def test_parts_holding_the_old_separator_are_two_claims_not_one(graph: ProfileGraph) -> None:
    first = await say(graph, "user|likes|jazz likes blues", likes("user|likes|jazz", "blues"))
    second = await say(graph, "I like jazz|likes|blues", likes("user", "jazz|likes|blues"))

    assert first.claims[0].claim_id != second.claims[0].claim_id


FORMAT_ONE = """
MATCH (c:Claim {profile_id: $profile_id})
SET c.claim_key = 'user|works_at|acme corp|positive', c.slot = 'user|works_at'
WITH c MATCH (f:Fact {profile_id: $profile_id}) SET f.claim_key = c.claim_key, f.slot = c.slot
WITH f MATCH (s:FactSlot {profile_id: $profile_id}) SET s.slot = 'user|works_at'
WITH s MATCH (p:Profile {profile_id: $profile_id}) REMOVE p.graph_format
"""
STATE = """
MATCH (c:Claim {profile_id: $profile_id}) WITH collect(c.claim_key) AS keys
OPTIONAL MATCH (s:FactSlot {profile_id: $profile_id}) WITH keys, collect(s.slot) AS slots
MATCH (p:Profile {profile_id: $profile_id})
RETURN keys, slots, p.graph_format AS graph_format
"""


async def test_an_old_profile_is_upgraded_at_start_and_its_slot_still_holds_one_fact(
    graph: ProfileGraph, store: GraphStore, neo4j_settings: ConnectionSettings
) -> None:
    acme = await say(graph, "I work at Acme Corp.", works_at("Acme Corp"))
    assert acme.claims[0].outcome is PromotionOutcome.PROMOTED
    await raw(neo4j_settings, FORMAT_ONE, profile_id=graph.profile_id)

    await upgrade_graph(store)

    [state] = await raw(neo4j_settings, STATE, profile_id=graph.profile_id)
    assert state["keys"] == ['["user","works_at","acme corp","positive"]'] and state["slots"] == []
    assert state["graph_format"] == GRAPH_FORMAT
    # The upgraded fact still owns its slot: an equally strong rival asks the person.
    beta = await say(graph, "I work at Beta Labs.", works_at("Beta Labs"))
    assert beta.claims[0].outcome is PromotionOutcome.CLARIFICATION_REQUIRED
