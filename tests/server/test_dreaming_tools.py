"""Dreaming as a host drives it, through the MCP client against the real Neo4j."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from tests.server.conftest import CallTool, error_text, structured

pytestmark = pytest.mark.anyio

MEMORIES = [
    "I started training for the Lisbon marathon in April; long runs on Sundays.",
    "My knee has been sore after long runs, the physio suggested strength work.",
    "I love baking sourdough bread on weekends, my starter is called Herbert.",
    "Herbert the sourdough starter needs feeding twice a day with rye flour.",
    "We are planning a trip to Lisbon in October to visit my sister Ana.",
    "Ana works as an architect in Lisbon and restores old tiled buildings.",
    "I have been learning Portuguese with a tutor every Tuesday evening.",
    "My Portuguese tutor recommended reading Saramago novels to practise.",
    "I switched my team's CI to GitHub Actions and builds got faster.",
    "Our flaky integration tests in CI keep failing on the Neo4j container.",
    "I read a Saramago novel on the flight, Blindness, and loved it.",
    "The physio said to reduce mileage before the marathon taper.",
]


async def remember_all(call: CallTool) -> list[str]:
    ids = []
    for text in MEMORIES:
        ids.append((await call("remember", content=text))["fragment"]["id"])
    return ids


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


async def test_two_cycles_at_once_give_one_run_and_one_clear_refusal(client: Client, call: CallTool) -> None:
    await remember_all(call)
    results = []

    async def cycle() -> None:
        results.append(await client.call_tool("run_dreaming_cycle", {"max_outputs": 3}))

    async with anyio.create_task_group() as group:
        group.start_soon(cycle)
        group.start_soon(cycle)
    errors = [result for result in results if result.is_error]
    assert len(errors) == 1, [r.content for r in results]
    assert "already running" in error_text(errors[0])
    ok = structured(next(result for result in results if not result.is_error))
    assert ok["run_id"] in error_text(errors[0])
