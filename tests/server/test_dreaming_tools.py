"""Dreaming as a host drives it, through the MCP client against the real Neo4j."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest
from mcp import Client

from graph.access import ProfileGraph
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.models import DreamRun
from server.app import build_server
from tests.server.conftest import CallTool, error_text, reverie_in_process, settings_for, structured
from tests.server.support import MEMORIES, claim_of, first_dream, promote, remember_all

pytestmark = pytest.mark.anyio


async def test_a_cycle_proposes_dreams_that_name_what_links_their_sources(call: CallTool) -> None:
    await remember_all(call)
    run = await call("run_dreaming_cycle", max_outputs=5)
    assert run["status"] == "completed", run
    dream_phase = next(phase for phase in run["phases"] if phase["phase"] == "dream")
    assert dream_phase["counts"]["new_dreams"] >= 2
    dream = await call("get_dream", dream_id=dream_phase["dream_ids"][0])
    assert dream["status"] == "proposed"
    assert len(dream["sources"]) == 2 and all(source["active"] for source in dream["sources"])
    assert any(term in dream["rationale"] for term in ("lisbon", "marathon", "saramago", "herbert", "physio"))
    again = await call("run_dreaming_cycle", max_outputs=5, reevaluate_enabled=False)
    again_ids = next(phase for phase in again["phases"] if phase["phase"] == "dream")["dream_ids"]
    assert not set(again_ids) & set(dream_phase["dream_ids"])
    status = await call("dreaming_status")
    assert sum(status["counts"].values()) == len(dream_phase["dream_ids"]) + len(again_ids)
    assert status["latest_run"]["run_id"] == again["run_id"]


async def test_a_second_cycle_while_one_runs_gets_a_clear_refusal(
    client: Client, call: CallTool, graph: ProfileGraph
) -> None:
    await remember_all(call)
    paused, release = anyio.Event(), anyio.Event()

    async def pause_after_first_phase(done: float, total: float, message: str) -> None:
        paused.set()
        await release.wait()

    runs: list[DreamRun] = []

    async def first_cycle() -> None:
        runs.append(
            await run_cycle(graph, DreamingConfig(), CycleRequest(), progress=pause_after_first_phase)
        )

    async with anyio.create_task_group() as group:
        group.start_soon(first_cycle)
        await paused.wait()
        refused = await client.call_tool("run_dreaming_cycle", {"max_outputs": 3})
        status = await call("dreaming_status")
        release.set()
    text = error_text(refused)
    assert "already running" in text and runs[0].run_id is not None and runs[0].run_id in text
    assert status["latest_run"]["status"] == "running"
    assert runs[0].status == "completed"
    assert (await call("dreaming_status"))["latest_run"]["run_id"] == runs[0].run_id


async def test_a_rejected_pair_never_comes_back(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=50)
    rejected_sources = {source["id"] for source in dream["sources"]}  # type: ignore[index, union-attr]
    resolved = await call(
        "resolve_dream_feedback", dream_id=dream["id"], decision="reject", feedback="not related"
    )
    assert resolved["dream"]["status"] == "rejected"
    assert resolved["dream"]["feedback"][0]["decision"] == "reject"
    for _ in range(2):
        await call("run_dreaming_cycle", max_outputs=50)
    page = await call("list_dreams", limit=100)
    for summary in page["dreams"]:
        if summary["id"] == dream["id"]:
            continue
        full = await call("get_dream", dream_id=summary["id"])
        assert {source["id"] for source in full["sources"]} != rejected_sources


async def test_feedback_follows_the_lifecycle_and_final_states_refuse_changes(
    client: Client, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    reinforced = await call("resolve_dream_feedback", dream_id=dream["id"], decision="reinforce")
    again = await call(
        "resolve_dream_feedback", dream_id=dream["id"], decision="reinforce", feedback="still true"
    )
    assert reinforced["dream"]["status"] == again["dream"]["status"] == "reinforced"
    assert [entry["decision"] for entry in again["dream"]["feedback"]] == ["reinforce", "reinforce"]
    await call("resolve_dream_feedback", dream_id=dream["id"], decision="reject")
    refused = await client.call_tool(
        "resolve_dream_feedback", {"dream_id": dream["id"], "decision": "reinforce"}
    )
    assert "final" in error_text(refused)
    after = await call("get_dream", dream_id=dream["id"])
    assert after["status"] == "rejected" and len(after["feedback"]) == 3


async def test_a_confirmed_dream_whose_claim_passes_the_gates_becomes_a_fact(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    words = "Yes! I love reading Saramago novels, my tutor got me hooked."
    promoted = await promote(call, dream["id"], words, claim_of("likes", "Saramago novels"))
    report = promoted["promotion"]
    assert promoted["dream"]["status"] == "promoted"
    assert report["outcome"] == "promoted" and report["fragment_label"] == "dream_feedback"
    claim = report["claims"][0]
    assert claim["verdict"] == "entailed" and claim["outcome"] == "promoted"
    found = await call("recall_memory", query="Saramago novels")
    assert claim["fact"]["id"] in [item["id"] for item in found["results"] if item["kind"] == "fact"]
    fragment = next(item for item in found["results"] if item["id"] == report["fragment_id"])
    assert fragment["text"] == words  # only the person's words are stored, never the dream's text


async def test_a_confirmation_with_weak_evidence_stays_a_candidate(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    weak = {**claim_of("likes", "Saramago novels"), "extract_conf": 0.5}
    report = (await promote(call, dream["id"], "Yes, I like Saramago novels.", weak))["promotion"]
    assert report["outcome"] == "not_promoted"
    claim = report["claims"][0]
    assert claim["outcome"] == "gate_rejected" and claim["fact"] is None
    assert "extract_conf" in " ".join(claim["failed_gates"])


async def test_a_confirmation_in_conflict_with_a_fact_opens_a_clarification(call: CallTool) -> None:
    await call("remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")])
    await remember_all(call)
    dream = await first_dream(call)
    words = "Right, and I work at Beta Labs now."
    report = (await promote(call, dream["id"], words, claim_of("works_at", "Beta Labs")))["promotion"]
    assert report["outcome"] == "not_promoted"
    assert report["claims"][0]["outcome"] == "clarification_required"
    assert report["clarifications"] and report["claims"][0]["clarification"]["id"]


async def test_the_dreams_own_text_never_counts_as_evidence(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    # The claim restates the dream's hypothesis, which the person's words do not contain.
    restated = claim_of("has_goal", str(dream["hypothesis"])[:400])
    report = (await promote(call, dream["id"], "Yes.", restated))["promotion"]
    assert report["outcome"] == "not_promoted"
    assert report["claims"][0]["verdict"] != "entailed" and report["claims"][0]["fact"] is None


async def test_promotion_without_claims_keeps_the_words_and_says_what_is_missing(
    client: Client, call: CallTool
) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    refused = await client.call_tool(
        "resolve_dream_feedback", {"dream_id": dream["id"], "decision": "promote_candidate"}
    )
    assert "feedback" in error_text(refused)
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"
    misplaced = await client.call_tool(
        "resolve_dream_feedback",
        {"dream_id": dream["id"], "decision": "reinforce", "claims": [claim_of("likes", "bread")]},
    )
    assert "promote_candidate" in error_text(misplaced)
    report = (await promote(call, dream["id"], "Yes, these belong together."))["promotion"]
    assert report["outcome"] == "awaiting_claims" and report["claims"] == []
    assert report["fragment_created"] is True and "remember" in report["message"]
    # Nothing became memory: the dream is confirmed, and the person can answer it again.
    again = await promote(call, dream["id"], "yes")
    assert (again["promotion"]["outcome"], again["dream"]["status"]) == ("awaiting_claims", "confirmed")
    health = await call("reflect_memories")
    assert health["counts"]["stale_facts"] == 0


async def test_retracting_a_source_makes_the_next_cycle_mark_the_dream_stale(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    source = dream["sources"][0]  # type: ignore[index]
    await call("retract_memory", id=source["id"], reason="the person said this was wrong")
    run = await call("run_dreaming_cycle", dream_enabled=False)
    reevaluation = next(phase for phase in run["phases"] if phase["phase"] == "re_evaluate")
    assert reevaluation["counts"]["went_stale"] >= 1
    stale = await call("get_dream", dream_id=dream["id"])
    assert stale["status"] == "stale"
    assert source["id"] in stale["stale_reason"]
    withdrawn = next(s for s in stale["sources"] if s["id"] == source["id"])
    assert (withdrawn["active"], withdrawn["status"], withdrawn["text"]) == (False, "retracted", "")
    # Only when asked for are the retracted words shown, marked as retracted.
    asked = await call("get_dream", dream_id=dream["id"], show_retracted=True)
    shown = next(s for s in asked["sources"] if s["id"] == source["id"])
    assert shown["status"] == "retracted" and shown["text"] == source["text"]


async def test_recall_lists_related_dreams_beside_results(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    source_text = dream["sources"][0]["text"]  # type: ignore[index]
    source_id = dream["sources"][0]["id"]  # type: ignore[index]
    found = await call("recall_memory", query=source_text)
    assert source_id in [item["id"] for item in found["results"]]
    [related] = [related for related in found["related_dreams"] if related["dream_id"] == dream["id"]]
    assert source_id in related["cites_recalled"] and source_id in related["source_ids"]
    assert related["reason"].startswith("cites") and source_text[:40] in related["reason"]
    assert related["hypothesis"] == dream["hypothesis"]
    related_ids = {related["dream_id"] for related in found["related_dreams"]}
    assert not related_ids & {item["id"] for item in found["results"]}
    # Its own words find it too.
    worded = await call("recall_memory", query=dream["hypothesis"], limit=1)
    assert dream["id"] in [related["dream_id"] for related in worded["related_dreams"]]


async def test_dry_run_writes_nothing(call: CallTool) -> None:
    await remember_all(call)
    run = await call("run_dreaming_cycle", dry_run=True, max_outputs=3)
    assert run["run_id"] is None and run["would_create"]
    status = await call("dreaming_status")
    assert sum(status["counts"].values()) == 0 and status["latest_run"] is None


async def test_list_dreams_pages_newest_first_with_a_cursor(call: CallTool) -> None:
    await remember_all(call)
    await call("run_dreaming_cycle", max_outputs=50)
    everything = await call("list_dreams", limit=100)
    assert len(everything["dreams"]) >= 3
    seen = []
    cursor = None
    while True:
        page = await call("list_dreams", limit=2, **({"cursor": cursor} if cursor else {}))
        seen.extend(dream["id"] for dream in page["dreams"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [dream["id"] for dream in everything["dreams"]]


async def test_another_profile_sees_none_of_the_dreams(
    call: CallTool, neo4j_settings: object, profile_id: str
) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    other = build_server(settings_for(neo4j_settings, profile_id + "-other"), "stdio")  # type: ignore[arg-type]
    async with Client(other) as stranger:
        listed = structured(await stranger.call_tool("list_dreams", {}))
        assert listed["dreams"] == []
        await stranger.call_tool("remember", {"content": dream["sources"][0]["text"]})  # type: ignore[index]
        for query in (dream["hypothesis"], dream["sources"][0]["text"]):  # type: ignore[index]
            recalled = structured(await stranger.call_tool("recall_memory", {"query": query}))
            assert recalled["results"] and recalled["related_dreams"] == []
        assert "No dream" in error_text(await stranger.call_tool("get_dream", {"dream_id": dream["id"]}))
        refused = await stranger.call_tool(
            "resolve_dream_feedback", {"dream_id": dream["id"], "decision": "reject"}
        )
        assert error_text(refused)
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == "proposed"


async def test_new_dreams_get_meaning_vectors_like_every_memory(call: CallTool) -> None:
    await remember_all(call)
    run = await call("run_dreaming_cycle", max_outputs=5)

    semantic = (await call("dreaming_status"))["semantic"]

    assert run["phases"][2]["counts"]["new_dreams"] > 0
    assert semantic["pending_by_kind"]["dream"] == 0
    assert semantic["embedded"] == len(MEMORIES) + run["phases"][2]["counts"]["new_dreams"]


async def test_three_memories_of_one_thread_are_linked_once_each_never_in_a_triangle(call: CallTool) -> None:
    thread = [
        ("We adopted a rescue greyhound and named her Pixel.", "2025-01-05T09:00:00Z"),
        ("The vet says our Pixel has a strong heart for a greyhound of her age.", "2025-02-04T09:00:00Z"),
        ("At the county show our greyhound Pixel won second prize.", "2025-03-06T09:00:00Z"),
    ]
    ids = [
        (await call("remember", content=text, occurred_at=when))["fragment"]["id"] for text, when in thread
    ]
    await remember_all(call)
    linked = []
    for _ in range(3):
        run = await call("run_dreaming_cycle", max_outputs=5)
        for dream_id in next(p for p in run["phases"] if p["phase"] == "dream")["dream_ids"]:
            sources = {s["id"] for s in (await call("get_dream", dream_id=dream_id))["sources"]}
            if sources <= set(ids):
                linked.append(sources)
    assert 1 <= len(linked) <= 2, linked


async def operator(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return await reverie_in_process(env, "dream", *arguments, "--profile", env["REVERIE_PROFILE"])


async def test_an_operator_promotes_a_dream_with_the_claims_the_person_claim_of(
    call: CallTool, server_env: dict[str, str]
) -> None:
    await remember_all(call)
    dream = await first_dream(call)
    words = "Yes, I love reading Saramago novels."
    bad = await operator(
        server_env, "resolve", dream["id"], "--decision", "promote_candidate", "--feedback", words,
        "--claim", '{"subject": "user", "predicate": "likes"}',
    )  # fmt: skip
    assert bad.returncode != 0 and "--claim" in bad.stderr and "object" in bad.stderr
    assert (await call("get_dream", dream_id=dream["id"]))["status"] == dream["status"]
    done = await operator(
        server_env, "resolve", dream["id"], "--decision", "promote_candidate", "--feedback", words,
        "--claim", json.dumps(claim_of("likes", "Saramago novels")), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["promotion"]
    assert report["outcome"] == "promoted" and report["claims"][0]["fact"] is not None
    found = await call("recall_memory", query="Saramago novels")
    assert report["claims"][0]["fact"]["id"] in [item["id"] for item in found["results"]]
