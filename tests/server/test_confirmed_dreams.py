"""A yes that made no fact is shown as such: the dream is confirmed, not promoted, in the tool's
answer, get_dream, list_dreams, dreaming_status and the command line; it becomes promoted when
a claim of the confirmation passes later, and the person can always answer it again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from graph.access import ProfileGraph
from graph.memory.models import ClaimInput
from graph.memory.pipeline import RememberRequest, remember
from tests.server.conftest import CallTool, error_text, reverie_in_process
from tests.server.support import claim_of, first_dream, promote, remember_all

pytestmark = pytest.mark.anyio

# A yes whose words do not say the claim (no Tom in them), so nothing becomes memory. (The user's
# own example, "Tom is my physiotherapist", now passes: sentence-v1 reads it as knowing Tom.)
PHYSIO = "Yes, that's right, he treats my knee."


async def listed_ids(call: CallTool, status: str) -> list[str]:
    return [dream["id"] for dream in (await call("list_dreams", status=status, limit=100))["dreams"]]


async def confirmed_without_a_fact(call: CallTool) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dream the person confirmed in words whose claim fails verification: the answer and the dream."""
    await remember_all(call)
    dream = await first_dream(call)
    answer = await promote(call, dream["id"], PHYSIO, claim_of("knows", "Tom"))
    return answer, dream


async def test_a_yes_whose_claim_fails_is_confirmed_not_promoted_on_every_surface(
    call: CallTool, server_env: dict[str, str]
) -> None:
    answer, dream = await confirmed_without_a_fact(call)

    assert answer["promotion"]["outcome"] == "not_promoted"
    assert answer["dream"]["status"] == "confirmed"
    assert "Nothing became memory" in answer["promotion"]["message"]
    shown = await call("get_dream", dream_id=dream["id"])
    assert shown["status"] == "confirmed"
    [claim] = shown["confirmation"]["claims"]
    assert claim["statement"] == "user knows Tom" and claim["fact_id"] is None
    assert claim["waiting"] and "do not state it" in claim["waiting"]
    assert "nothing became memory yet" in shown["confirmation"]["summary"]
    assert shown["confirmation"]["fragment_ids"] == [answer["promotion"]["fragment_id"]]
    assert shown["feedback"][-1]["to_status"] == "confirmed"
    assert dream["id"] in await listed_ids(call, "confirmed")
    assert dream["id"] not in await listed_ids(call, "promoted")
    counts = (await call("dreaming_status"))["counts"]
    assert (counts["confirmed"], counts["promoted"]) == (1, 0)

    arguments = ("dream", "list", "--status", "confirmed", "--profile", server_env["REVERIE_PROFILE"])
    listed = await reverie_in_process(server_env, *arguments)
    assert listed.returncode == 0, listed.stderr
    assert f"{dream['id']}  [confirmed]" in listed.stdout
    show = await reverie_in_process(
        server_env, "dream", "show", dream["id"], "--profile", server_env["REVERIE_PROFILE"]
    )
    assert show.returncode == 0, show.stderr
    assert "[confirmed]" in show.stdout and "not memory yet" in show.stdout


async def test_a_yes_whose_claim_passes_is_promoted_on_every_surface(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    words = "Yes! I love reading Saramago novels."
    answer = await promote(call, dream["id"], words, claim_of("likes", "Saramago novels"))

    assert (answer["promotion"]["outcome"], answer["dream"]["status"]) == ("promoted", "promoted")
    shown = await call("get_dream", dream_id=dream["id"])
    [claim] = shown["confirmation"]["claims"]
    assert (
        shown["status"] == "promoted" and claim["fact_id"] == answer["promotion"]["claims"][0]["fact"]["id"]
    )
    assert claim["waiting"] is None and "Became memory" in shown["confirmation"]["summary"]
    assert dream["id"] in await listed_ids(call, "promoted")
    assert dream["id"] not in await listed_ids(call, "confirmed")
    counts = (await call("dreaming_status"))["counts"]
    assert (counts["confirmed"], counts["promoted"]) == (0, 1)


async def test_the_host_remembering_the_confirmed_claim_later_promotes_the_dream(call: CallTool) -> None:
    answer, dream = await confirmed_without_a_fact(call)
    confirmation = answer["promotion"]["fragment_id"]

    later = await call(
        "remember",
        content="I met Tom at the clinic; he is my physiotherapist now.",
        claims=[claim_of("knows", "Tom", supported_by=[confirmation])],
    )

    assert later["claims"][0]["outcome"] == "promoted"
    shown = await call("get_dream", dream_id=dream["id"])
    assert (shown["status"], shown["feedback"][-1]["actor"]) == ("promoted", "memory")
    [claim] = shown["confirmation"]["claims"]
    assert claim["fact_id"] == later["claims"][0]["fact"]["id"] and claim["waiting"] is None
    assert dream["id"] in await listed_ids(call, "promoted")


async def test_a_claim_that_passes_outside_the_tools_is_caught_by_the_next_cycle(
    call: CallTool, graph: ProfileGraph
) -> None:
    answer, dream = await confirmed_without_a_fact(call)
    knows_tom = ClaimInput(
        subject="user",
        predicate="knows",
        object="Tom",
        extract_conf=0.9,
        resolution_conf=0.9,
        supported_by=[answer["promotion"]["fragment_id"]],
    )
    # Straight through the pipeline, as an import or a bench would: no tool settles the dream.
    request = RememberRequest(
        content="Tom, a friend I met at the clinic, treats my knee.", claims=[knows_tom]
    )
    assert (await remember(graph, request)).claims[0].fact is not None
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "confirmed"

    run = await call("run_dreaming_cycle", reflect_enabled=False, dream_enabled=False)

    [phase] = [phase for phase in run["phases"] if phase["phase"] == "re_evaluate"]
    assert phase["counts"]["became_memory"] == 1
    promoted = await call("get_dream", dream_id=dream["id"])
    assert promoted["status"] == "promoted"
    last = promoted["feedback"][-1]
    assert (last["actor"], last["decision"], last["from_status"]) == ("re_evaluation", None, "confirmed")
    assert last["reason"] == "what the person confirmed became a fact"
    [fact] = last["evidence"]
    assert fact["change"] == "became_fact" and fact["text"]
    assert [entry["actor"] for entry in promoted["feedback"]] == ["person", "re_evaluation"]


async def test_a_confirmed_dream_can_be_promoted_again_or_rejected(client: Client, call: CallTool) -> None:
    await remember_all(call)
    await first_dream(call, max_outputs=3)
    first, second = (await call("list_dreams", limit=2))["dreams"]
    bare = await promote(call, first["id"], "Yes, these belong together.")
    assert (bare["promotion"]["outcome"], bare["dream"]["status"]) == ("awaiting_claims", "confirmed")
    assert "No statement was read" in bare["dream"]["confirmation"]["summary"]
    refused = await client.call_tool(
        "resolve_dream_feedback", {"dream_id": first["id"], "decision": "reinforce"}
    )
    assert "allowed: promote_candidate, reject, stale" in error_text(refused)

    again = await promote(
        call, first["id"], "Yes, I love reading Saramago novels.", claim_of("likes", "Saramago novels")
    )

    assert (again["promotion"]["outcome"], again["dream"]["status"]) == ("promoted", "promoted")
    assert again["promotion"]["fragment_id"] != bare["promotion"]["fragment_id"]
    assert [entry["to_status"] for entry in again["dream"]["feedback"]] == ["confirmed", "promoted"]
    assert len(again["dream"]["confirmation"]["fragment_ids"]) == 2

    dropped = await promote(call, second["id"], PHYSIO, claim_of("knows", "Tom"))
    assert dropped["dream"]["status"] == "confirmed"
    rejected = await call("resolve_dream_feedback", dream_id=second["id"], decision="reject", feedback="no")
    assert rejected["dream"]["status"] == "rejected"
    assert json.dumps(rejected["dream"]["feedback"][-1]).count("confirmed") == 1
