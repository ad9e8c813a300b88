"""A dream's history says who changed its status and why (issue 44): the person's answers, the
cycle's re-evaluation naming the memory that moved it, a forget; a second cycle with nothing new
changes nothing; entries an earlier version wrote read as unknown, never as the person."""

from __future__ import annotations

import pytest

from graph.access import ConnectionSettings
from tests.server.conftest import CallTool
from tests.server.support import MEMORIES, database, dream_words

pytestmark = pytest.mark.anyio

TUTOR, SARAMAGO, NOVEL = MEMORIES[6], MEMORIES[7], MEMORIES[10]
BAKING, HERBERT = MEMORIES[2], MEMORIES[3]
RE_EVALUATE = {"reflect_enabled": False, "dream_enabled": False}


async def remembered(call: CallTool, *texts: str) -> list[str]:
    return [(await call("remember", content=text))["fragment"]["id"] for text in texts]


async def written(call: CallTool, source_ids: list[str], subject: str) -> str:
    return str((await call("write_dream", source_ids=source_ids, **dream_words(subject)))["dream_id"])


async def statuses_by(call: CallTool) -> dict[str, tuple[str, str | None]]:
    return {d["id"]: (d["status"], d["status_by"]) for d in (await call("list_dreams"))["dreams"]}


async def test_each_status_change_names_its_actor_and_the_memory_that_moved_it(call: CallTool) -> None:
    tutor, saramago, novel, baking, herbert = await remembered(call, TUTOR, SARAMAGO, NOVEL, BAKING, HERBERT)
    kept = await written(call, [tutor, saramago], "the tutor")
    retracted = await written(call, [saramago, novel], "Saramago")
    forgotten = await written(call, [baking, herbert], "Herbert")
    assert await statuses_by(call) == {
        kept: ("proposed", None),
        retracted: ("proposed", None),
        forgotten: ("proposed", None),
    }

    reinforced = await call("resolve_dream_feedback", dream_id=kept, decision="reinforce", feedback="yes")
    [answer] = reinforced["dream"]["feedback"]
    assert (answer["actor"], answer["decision"], answer["to_status"]) == ("person", "reinforce", "reinforced")
    assert answer["reason"] is None and answer["evidence"] == []

    await call("retract_memory", id=novel, reason="I never read it")
    await call("run_dreaming_cycle", **RE_EVALUATE)
    stale = await call("get_dream", dream_id=retracted)
    [change] = stale["feedback"]
    assert (change["actor"], change["decision"], change["from_status"], change["to_status"]) == (
        "re_evaluation", None, "proposed", "stale",
    )  # fmt: skip
    assert change["reason"] == "a memory it cites was retracted"
    assert change["evidence"] == [{"memory_id": novel, "change": "retracted", "text": ""}]
    shown = await call("get_dream", dream_id=retracted, show_retracted=True)
    assert shown["feedback"][0]["evidence"][0]["text"] == NOVEL

    # A second night with nothing new: no status changes, no entries.
    await call("run_dreaming_cycle", **RE_EVALUATE)
    assert len((await call("get_dream", dream_id=retracted))["feedback"]) == 1
    assert (await call("get_dream", dream_id=kept))["feedback"] == reinforced["dream"]["feedback"]

    await call("forget_memory", ids=[herbert])
    erased = await call("get_dream", dream_id=forgotten)
    [gone] = erased["feedback"]
    assert (gone["actor"], gone["to_status"], gone["reason"]) == (
        "memory",
        "stale",
        "a memory it cited was forgotten",
    )
    assert gone["evidence"] == [{"memory_id": herbert, "change": "forgotten", "text": ""}]

    assert await statuses_by(call) == {
        kept: ("reinforced", "person"),
        retracted: ("stale", "re_evaluation"),
        forgotten: ("stale", "memory"),
    }


OLD_ENTRY = """
MATCH (d:Dream {profile_id: $profile_id, id: $id})
CREATE (fb:DreamFeedback {profile_id: $profile_id, id: randomUUID(), at: datetime(), decision: 'reinforce',
                          from_status: 'proposed', to_status: 'reinforced'})
CREATE (d)-[:HAS_FEEDBACK]->(fb)
SET d.status = 'reinforced'
"""
# An earlier version's cycle reinforced dreams and kept no record of it.
UNRECORDED = "MATCH (d:Dream {profile_id: $profile_id, id: $id}) SET d.status = 'reinforced'"


async def test_entries_and_changes_an_earlier_version_made_read_as_unknown(
    call: CallTool, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    tutor, saramago, baking, herbert = await remembered(call, TUTOR, SARAMAGO, BAKING, HERBERT)
    answered = await written(call, [tutor, saramago], "the tutor")
    silent = await written(call, [baking, herbert], "Herbert")
    await database(neo4j_settings, OLD_ENTRY, profile_id=profile_id, id=answered)
    await database(neo4j_settings, UNRECORDED, profile_id=profile_id, id=silent)

    [old] = (await call("get_dream", dream_id=answered))["feedback"]
    assert (old["actor"], old["decision"], old["reason"], old["evidence"]) == (
        "unknown",
        "reinforce",
        None,
        [],
    )
    assert await statuses_by(call) == {answered: ("reinforced", "unknown"), silent: ("reinforced", "unknown")}
