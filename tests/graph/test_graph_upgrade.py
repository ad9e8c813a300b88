"""Claim identity cannot collide, and profiles stored in the old format are upgraded."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from graph.access import ConnectionSettings, GraphStore, ProfileGraph
from graph.dreams.host import DreamWords, write_dream
from graph.dreams.models import DreamStatus, FeedbackDecision
from graph.dreams.review import get_dream, resolve_feedback
from graph.forgetting.profile import erase_profile
from graph.memory.models import ClaimInput, PromotionOutcome
from graph.schema import GRAPH_FORMAT
from graph.transfer.export import export_profile
from graph.transfer.load import import_profile
from graph.upgrade import upgrade_graph, upgrade_profile
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


# What a Reverie before format 3 stored: every confirmation marked its dream promoted, fact or not.
# The profile's format mark is set apart (BEHIND): while it says the current format, no other
# test's server start (each upgrades every profile behind) can upgrade these dreams under the test.
PROMOTED_AS_BEFORE_FORMAT_3 = """
MATCH (d:Dream {profile_id: $profile_id}) WHERE d.status = 'confirmed'
SET d.status = 'promoted'
WITH d MATCH (d)-[:HAS_FEEDBACK]->(fb:DreamFeedback {profile_id: $profile_id})
SET fb.to_status = 'promoted'
"""
BEHIND = "MATCH (p:Profile {profile_id: $profile_id}) SET p.graph_format = 2"
DREAM_STATES = """
MATCH (d:Dream {profile_id: $profile_id})
RETURN d.id AS id, d.status AS status,
       [(d)-[:HAS_FEEDBACK]->(fb) | fb.to_status] AS history
"""


async def confirmed_dreams(graph: ProfileGraph) -> dict[str, str]:
    """Three host-written dreams: one the person confirmed whose claim became a fact, one whose
    claim did not, one not answered yet."""
    ids = [
        (await say(graph, text)).fragment.id
        for text in (
            "I read a Saramago novel on the flight and loved it.",
            "My Portuguese tutor recommended Saramago novels.",
            "Tom said the knee needs strength work twice a week.",
            "The physio session with Tom moved to Thursdays.",
            "Herbert the sourdough starter needs rye flour.",
            "I bake sourdough bread every weekend.",
        )
    ]
    texts = DreamWords(hypothesis="Linked?", why="Shared words.", what_if="What if?", possible_outcome="Ask.")
    dreams = [
        (await write_dream(graph, pair, texts, "host:test")).dream_id for pair in (ids[:2], ids[2:4], ids[4:])
    ]
    fact, waiting, open_one = (dream_id or "" for dream_id in dreams)
    promote = FeedbackDecision.PROMOTE_CANDIDATE
    kept = await resolve_feedback(
        graph, fact, promote, "Yes, I like Saramago novels.", [likes("user", "Saramago novels")]
    )
    assert kept.dream.status is DreamStatus.PROMOTED
    knows_tom = ClaimInput(
        subject="user", predicate="knows", object="Tom", extract_conf=0.9, resolution_conf=0.9
    )
    # Words that do not state the claim (no Tom in them): a yes that makes no fact.
    left = await resolve_feedback(graph, waiting, promote, "Yes, that sounds right.", [knows_tom])
    assert left.dream.status is DreamStatus.CONFIRMED
    return {"fact": fact, "waiting": waiting, "open": open_one}


async def dream_states(settings: ConnectionSettings, profile_id: str) -> dict[str, tuple[str, list[str]]]:
    rows = await raw(settings, DREAM_STATES, profile_id=profile_id)
    return {row["id"]: (row["status"], sorted(row["history"])) for row in rows}


async def test_dreams_an_older_version_marked_promoted_without_a_fact_become_confirmed_once(
    graph: ProfileGraph,
    other_graph: ProfileGraph,
    store: GraphStore,
    neo4j_settings: ConnectionSettings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine, theirs = await confirmed_dreams(graph), await confirmed_dreams(other_graph)
    for profile in (graph, other_graph):
        await raw(neo4j_settings, PROMOTED_AS_BEFORE_FORMAT_3, profile_id=profile.profile_id)
    # A duplicate's promotion always merged (the upgrade leaves it), fact or not.
    duplicate = (
        "MATCH (d:Dream {profile_id: $profile_id, id: $id}) SET d.kind = 'duplicate', d.status = 'promoted'"
    )
    await raw(neo4j_settings, duplicate, profile_id=graph.profile_id, id=mine["open"])
    before = await dream_states(neo4j_settings, graph.profile_id)
    assert {status for status, _ in before.values()} == {"promoted"}
    monkeypatch.setattr("graph.upgrade._BATCH", 1)  # one dream per transaction: the steps loop

    await upgrade_profile(graph, 2)

    after = await dream_states(neo4j_settings, graph.profile_id)
    assert after[mine["fact"]] == ("promoted", ["promoted"])
    assert after[mine["waiting"]] == ("confirmed", ["confirmed"])
    assert after[mine["open"]] == before[mine["open"]]
    # Another profile is not touched until its own turn, and then gets the same (from this
    # upgrade or from another test's server start: the outcome is one).
    assert (await dream_states(neo4j_settings, other_graph.profile_id))[theirs["waiting"]][0] == "promoted"
    await raw(neo4j_settings, BEHIND, profile_id=other_graph.profile_id)
    await upgrade_graph(store)
    assert (await dream_states(neo4j_settings, other_graph.profile_id))[theirs["waiting"]][0] == "confirmed"
    [state] = await raw(neo4j_settings, STATE, profile_id=graph.profile_id)
    assert state["graph_format"] == GRAPH_FORMAT
    # Run again (a second process, a restart): nothing left to change.
    await upgrade_profile(graph, 2)
    assert await dream_states(neo4j_settings, graph.profile_id) == after
    shown = await get_dream(graph, mine["waiting"])
    assert shown.confirmation is not None and shown.confirmation.claims[0].fact_id is None


def resealed(lines: list[str]) -> str:
    """An export's lines with a closing line that proves them, as an older version wrote it."""
    body = "".join(line + "\n" for line in lines[:-1])
    closing = json.loads(lines[-1]) | {"sha256": hashlib.sha256(body.encode("utf-8")).hexdigest()}
    return body + json.dumps(closing) + "\n"


async def test_an_import_of_an_older_export_is_upgraded_with_it(
    graph: ProfileGraph, store: GraphStore, neo4j_settings: ConnectionSettings, tmp_path: Path
) -> None:
    mine = await confirmed_dreams(graph)
    out = io.StringIO()
    await export_profile(graph, out)
    older = [
        line.replace('"graph_format": 3}', '"graph_format": 2}').replace('"confirmed"', '"promoted"')
        for line in out.getvalue().splitlines()
    ]
    assert older != out.getvalue().splitlines()
    path = tmp_path / "older.jsonl"
    path.write_text(resealed(older), encoding="utf-8")
    await erase_profile(graph)

    await import_profile(store, graph.profile_id, path)

    states = await dream_states(neo4j_settings, graph.profile_id)
    assert states[mine["waiting"]] == ("confirmed", ["confirmed"])
    assert states[mine["fact"]] == ("promoted", ["promoted"])
    [state] = await raw(neo4j_settings, STATE, profile_id=graph.profile_id)
    assert state["graph_format"] == GRAPH_FORMAT
