"""Dreams of every kind through the MCP tools: a theme through memories months apart, two memories
that say the same thing, and a later statement against a fact; each found, filterable, reviewed
through the ordinary pipeline, and none proposed where none was planted or for another profile."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from server.app import build_server
from tests.server.conftest import CallTool, reverie_in_process, settings_for, structured
from tests.server.support import promote, works_at

pytestmark = pytest.mark.anyio

START = datetime(2024, 1, 8, 9, tzinfo=UTC)
KAYAK = (
    "Took the kayak out on the lake at dawn and saw a heron fishing near the reeds.",
    "Patched a crack in the kayak hull with epoxy, it took all afternoon in the garage.",
    "Booked a guided kayak tour along the fjords for the summer holiday.",
    "Sold the old kayak paddle to a neighbour and ordered a carbon one online.",
)
PEANUTS = (
    "My daughter Ines is allergic to peanuts and always carries an EpiPen in her bag.",
    "Ines, my daughter, is allergic to peanuts and always carries her EpiPen in her bag.",
)
EVERYDAY = (
    "Went to bed early on {day} after a long week at work.",
    "Had coffee with a friend on {day} morning and talked about the weekend.",
    "Cleaned the kitchen on {day} and did two loads of washing.",
    "Walked to the shop on {day} to buy bread and milk.",
    "Watched a film at home on {day} night and fell asleep halfway.",
)
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def day(offset: float) -> str:
    return (START + timedelta(days=offset)).isoformat()


async def say(call: CallTool, text: str, offset: float, *claims: dict[str, object]) -> str:
    stored = await call("remember", content=text, occurred_at=day(offset), claims=list(claims))
    return str(stored["fragment"]["id"])


async def plant(call: CallTool) -> dict[str, Any]:
    """The three kinds among everyday sentences that share only common words."""
    kayak = [await say(call, text, 20 + 45 * i) for i, text in enumerate(KAYAK)]
    peanuts = [await say(call, PEANUTS[0], 30), await say(call, PEANUTS[1], 70)]
    await say(
        call, "I work at Brightwater Labs as a data engineer.", 0, works_at("Brightwater Labs", 0.95, 0.95)
    )
    await say(
        call,
        "Still at Brightwater Labs, the data team moved floors.",
        3,
        works_at("Brightwater Labs", 0.95, 0.95),
    )
    corvid = await say(
        call, "Started my new job at Corvid Systems this week.", 200, works_at("Corvid Systems", 0.95, 0.95)
    )
    for index in range(15):
        await say(call, EVERYDAY[index % 5].format(day=DAYS[index // 5]), 1 + 9 * index)
    return {"kayak": set(kayak), "peanuts": set(peanuts), "corvid": corvid}


async def dreams_of(call: CallTool, run: dict[str, Any]) -> list[dict[str, Any]]:
    ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
    return [await call("get_dream", dream_id=dream_id) for dream_id in ids]


def cited(dream: dict[str, Any]) -> set[str]:
    return {source["id"] for source in dream["sources"]}


async def test_each_planted_kind_is_found_filterable_and_nothing_else_is_proposed(call: CallTool) -> None:
    planted = await plant(call)
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    by_kind = {dream["kind"]: dream for dream in dreams}

    assert sorted(dream["kind"] for dream in dreams) == ["contradiction", "duplicate", "theme"], [
        (dream["kind"], dream["hypothesis"]) for dream in dreams
    ]
    assert cited(by_kind["theme"]) == planted["kayak"]
    assert by_kind["theme"]["hypothesis"].startswith("You keep mentioning kayak")
    assert cited(by_kind["duplicate"]) == planted["peanuts"]
    assert planted["corvid"] in cited(by_kind["contradiction"])
    assert by_kind["contradiction"]["statement"]["object"] == "Corvid Systems"
    for kind, dream in by_kind.items():
        listed = (await call("list_dreams", kind=kind))["dreams"]
        assert [(item["id"], item["kind"]) for item in listed] == [(dream["id"], kind)]
    again = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    assert again == [], "the same sources are never proposed twice"


async def test_confirming_a_duplicate_retracts_one_with_its_words_until_the_person_undoes_it(
    call: CallTool,
) -> None:
    planted = await plant(call)
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    duplicate = next(dream for dream in dreams if dream["kind"] == "duplicate")

    outcome = (await promote(call, duplicate["id"], "Yes, that is the same thing said twice."))["promotion"]

    earlier, later = sorted(duplicate["sources"], key=lambda source: source["at"])
    assert outcome["outcome"] == "merged" and outcome["retracted_id"] == earlier["id"]
    after = await call("get_dream", dream_id=duplicate["id"], show_retracted=True)
    status = {source["id"]: (source["status"], source["text"]) for source in after["sources"]}
    assert status[earlier["id"]] == ("retracted", PEANUTS[0])
    assert status[later["id"]] == ("active", PEANUTS[1])
    found = (await call("recall_memory", query="peanuts EpiPen"))["results"]
    assert {item["id"] for item in found} & planted["peanuts"] == {later["id"]}

    undone = await call("resolve_dream_feedback", dream_id=duplicate["id"], decision="undo_merge")

    assert undone["merge"]["state"] == "undone" and undone["dream"]["status"] == "rejected"
    found = (await call("recall_memory", query="peanuts EpiPen"))["results"]
    assert {item["id"] for item in found} & planted["peanuts"] == planted["peanuts"]


async def test_confirming_a_contradiction_sends_the_later_value_through_the_gates(call: CallTool) -> None:
    await plant(call)
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    question = next(dream for dream in dreams if dream["kind"] == "contradiction")

    outcome = (
        await promote(call, question["id"], "Yes, I left Brightwater and work at Corvid Systems now.")
    )["promotion"]

    assert outcome["used_statement"] is True
    [claim] = outcome["claims"]
    assert claim["object"] == "Corvid Systems"
    # Said twice now (the later statement and the confirmation): it replaces the fact or, as strong
    # as the fact, becomes the person's question; either way nothing is settled silently.
    assert claim["outcome"] == "promoted" or outcome["clarifications"], outcome


async def test_a_theme_is_proposed_again_only_when_it_grows_and_then_builds_on_the_first(
    call: CallTool,
) -> None:
    await plant(call)
    await call("run_dreaming_cycle", max_outputs=10)
    await say(call, "Still hungover on sunday, yes, but fine.", 300)
    assert await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10)) == []

    newest = await say(call, "Taught my nephew to roll the kayak in the pool, he loved it.", 320)
    [grown] = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))

    [first] = [d for d in (await call("list_dreams", kind="theme"))["dreams"] if d["id"] != grown["id"]]
    assert grown["kind"] == "theme" and grown["builds_on"] == [first["id"]]
    assert newest in cited(grown)


async def test_another_profile_lends_no_memory_to_a_theme(
    call: CallTool, neo4j_settings: object, profile_id: str
) -> None:
    # Two mentions here and two in the neighbour's profile: a thread together, never alone.
    for index, text in enumerate(KAYAK[:2]):
        await say(call, text, 45 * index)
    other = build_server(settings_for(neo4j_settings, profile_id + "-other"), "stdio")  # type: ignore[arg-type]
    async with Client(other) as neighbour:
        for index, text in enumerate(KAYAK[2:]):
            await neighbour.call_tool("remember", {"content": text, "occurred_at": day(90 + 45 * index)})
        await neighbour.call_tool("run_dreaming_cycle", {"max_outputs": 10})
        theirs = structured(await neighbour.call_tool("list_dreams", {"kind": "theme"}))["dreams"]
    await call("run_dreaming_cycle", max_outputs=10)

    assert theirs == [] and (await call("list_dreams", kind="theme"))["dreams"] == []


async def grown_theme(call: CallTool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first theme on the kayak thread and the one that grew from it."""
    await plant(call)
    first = next(
        d
        for d in await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
        if d["kind"] == "theme"
    )
    await say(call, "Taught my nephew to roll the kayak in the pool, he loved it.", 320)
    [grown] = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    return first, grown


async def test_a_theme_that_builds_on_another_survives_export_and_import(
    call: CallTool, server_env: dict[str, str], profile_id: str, tmp_path: Path
) -> None:
    first, grown = await grown_theme(call)
    path = tmp_path / "kinds.jsonl"
    assert (
        await reverie_in_process(server_env, "profile", "export", profile_id, "--output", str(path))
    ).returncode == 0
    assert (await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")).returncode == 0
    imported = await reverie_in_process(server_env, "profile", "import", str(path), "--profile", profile_id)
    assert imported.returncode == 0, imported.stderr

    back = await call("get_dream", dream_id=grown["id"])
    assert (back["kind"], back["builds_on"], cited(back)) == ("theme", [first["id"]], cited(grown))


async def test_forgetting_a_themes_memory_erases_its_words_and_keeps_what_it_built_on(call: CallTool) -> None:
    first, grown = await grown_theme(call)
    shared = sorted(cited(first) & cited(grown))[0]

    erased = await call("forget_memory", ids=[shared], reason="asked to")

    assert {first["id"], grown["id"]} <= set(erased["dreams_erased"])
    after = await call("get_dream", dream_id=grown["id"])
    assert after["status"] == "stale" and "kayak" not in after["hypothesis"]
    assert (after["kind"], after["builds_on"]) == ("theme", [first["id"]])
