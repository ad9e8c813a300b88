"""A person's first week with Reverie on a desktop, end to end, as they would live it.

A desktop host starts `reverie serve` over stdio while its app is open. On the first day the host
saves what the person said over the last three months (with the days it was said) and turns
nightly dreaming on. The app is then closed over night; the next day's server runs the missed
night in the background, after the host's first answer. The host reviews the night's dreams with
the person through the `review_dreams` prompt, the person's answer goes into the dream's history
as theirs, a question brings back the dream that cites what it found, and the review page,
served by a second process, shows the same history in words.
"""

# The browser and page fixtures come from tests.server.browser; the test takes them as arguments.
# ruff: noqa: F811

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from graph.access import ProfileGraph
from graph.dreams.models import DreamRun
from graph.dreams.runs import recent_runs
from tests.server.browser import browser, page, sign_in, text_of  # noqa: F401
from tests.server.conftest import http_serving, structured
from tests.server.test_nights_over_stdio import finished_runs, stdio_servers

pytestmark = pytest.mark.anyio

GRACE_S = 8
# Said over three months: three threads a friend would link (a teacher and her instrument, a
# knee and its physio, a trip being planned) among everyday lines.
MONTHS: list[tuple[str, str]] = [
    ("2026-01-05T19:00:00Z", "First cello lesson with Inês tonight: the whole hour on holding the bow."),
    ("2026-01-12T08:10:00Z", "Porridge with blueberries again, the only breakfast that keeps me going."),
    ("2026-01-19T08:30:00Z", "Started at Quillmark on Monday, the design team sits by the window."),
    ("2026-01-26T21:00:00Z", "My left knee aches after the long Sunday runs by the canal."),
    ("2026-02-02T18:00:00Z", "Watched a documentary about deep sea fish, oddly calming."),
    ("2026-02-09T20:15:00Z", "Inês says my cello bowing is finally straight; scales every evening now."),
    ("2026-02-16T12:00:00Z", "Looking at flights to Porto for the May bank holiday."),
    ("2026-02-23T09:00:00Z", "The physio thinks the knee pain comes from weak hips, not the running itself."),
    ("2026-03-02T19:30:00Z", "Repotted the basil on the kitchen windowsill."),
    ("2026-03-09T22:00:00Z", "Booked a little guesthouse in Porto near the river for May."),
    ("2026-03-16T07:45:00Z", "The bus was late again, walked the last mile in the rain."),
    ("2026-03-23T18:40:00Z", "Bought a second-hand cello case, Inês found it for me."),
]


async def remember_the_months(client: Any) -> None:
    for said_at, words in MONTHS:
        await client.call_tool("remember", {"content": words, "occurred_at": said_at, "source": "chat"})


async def test_a_desktop_week_from_first_memories_to_a_reviewed_night(
    server_env: dict[str, str], graph: ProfileGraph, profile_id: str, tmp_path: Path, page: WebDriver
) -> None:
    env = {**server_env, "REVERIE_SCHEDULER_GRACE_SECONDS": str(GRACE_S)}
    # Day one: the app is open; nights are off until the person turns them on.
    async with stdio_servers(env, 1) as [host]:
        await remember_the_months(host)
        before = structured(await host.call_tool("dreaming_status", {}))["next_night"]
        assert before["will_run"] is False and "off" in before["why"]
        await host.call_tool(
            "configure_dreaming", {"enabled": True, "timezone": "UTC", "start_time_local": "00:00"}
        )
    # The app was closed over the night (it is due since midnight UTC and nothing ran it).
    assert await _runs(graph) == []

    # Day two: the app opens; the host's first answer comes before the missed night starts.
    async with stdio_servers(env, 1) as [host]:
        status = structured(await host.call_tool("dreaming_status", {}))
        assert status["next_night"]["will_run"] is True
        assert await _runs(graph) == [], "the night started before the host's first answer"
        [night] = await finished_runs(graph, 180)
        assert (night.trigger, night.status) == ("scheduled", "completed")

        # The host follows the review prompt: it lists the proposed dreams first.
        prompt = await host.get_prompt("review_dreams", {})
        prompt_text = " ".join(getattr(message.content, "text", "") for message in prompt.messages)
        assert 'list_dreams(status="proposed"' in prompt_text
        proposed = structured(await host.call_tool("list_dreams", {"status": "proposed"}))["dreams"]
        assert proposed, "a night over three months of linked memories proposed nothing"
        first = proposed[0]

        answered = structured(
            await host.call_tool(
                "resolve_dream_feedback",
                {"dream_id": first["id"], "decision": "reinforce", "feedback": "Yes, worth keeping in mind."},
            )
        )
        assert answered["dream"]["status"] == "reinforced"
        history = structured(await host.call_tool("get_dream", {"dream_id": first["id"]}))["feedback"]
        assert [(entry["actor"], entry["to_status"]) for entry in history] == [("person", "reinforced")]

        # A question about one of its memories brings the dream, saying how it relates.
        source = structured(await host.call_tool("get_dream", {"dream_id": first["id"]}))["sources"][0]
        found = structured(await host.call_tool("recall_memory", {"query": source["text"]}))
        related = {dream["dream_id"]: dream for dream in found["related_dreams"]}
        assert first["id"] in related, found["related_dreams"]
        assert source["id"] in related[first["id"]]["cites_recalled"]
        assert source["id"] not in related[first["id"]]["reason"], "an id where a person reads words"

    # The review page, served by another process, shows the person's answer as theirs.
    with http_serving(server_env, profile_id, tmp_path) as server:
        sign_in(page, server, server.write_token)
        page.get(f"{server.base}/review/dreams/{first['id']}")
        shown = text_of(page)
        assert "you answered reinforce" in shown and "Yes, worth keeping in mind." in shown


async def _runs(graph: ProfileGraph) -> list[DreamRun]:
    return [summary.run for summary in (await recent_runs(graph)).runs]
