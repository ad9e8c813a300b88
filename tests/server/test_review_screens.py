"""Every view of the review page, as a person sees it at a desktop's and a phone's width, in
headless Chromium against the HTTP server and the real Neo4j and model: each is screenshot, fits
its width, and reads in words (no identifier, no raw relation name, no "fragment" in a picture).

The screenshots go to $REVERIE_SCREENSHOTS when it is set (docs/screens holds the reviewed ones),
else to the test's own temporary folder.
"""

# The browser, page and call fixtures come from tests.server.browser; tests take them as arguments.
# ruff: noqa: F811

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.server.browser import (  # noqa: F401
    DESKTOP,
    PHONE,
    browser,
    call,
    click_through,
    page,
    screenshot,
    sign_in,
    text_of,
)
from tests.server.conftest import CallTool, HttpServer
from tests.server.support import claim_of
from tests.server.test_dream_kinds import day, dreams_of, plant

pytestmark = pytest.mark.anyio

SIZES = {"desktop": DESKTOP, "phone": PHONE}
# A relation's name as hosts send it ("has_goal"); a person reads words instead.
RAW_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b")
RUNNING = (
    "Started training for the Lisbon marathon, long runs every Sunday morning.",
    "My knee hurts after the long Sunday runs; the physio wants strength work first.",
)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    chosen = os.environ.get("REVERIE_SCREENSHOTS")
    return Path(chosen) if chosen else tmp_path / "screens"


def show(page: WebDriver, shots: Path, name: str) -> None:
    """The view at each width: it fits, reads in words, and is screenshot."""
    for size_name, size in SIZES.items():
        page.set_window_size(*size)
        beyond = page.execute_script(
            """const width = document.documentElement.clientWidth;
               return [...document.querySelectorAll('main *')]
                 .filter(e => e.getBoundingClientRect().right > width + 0.5)
                 .map(e => e.tagName + ' ' + (e.getAttribute('class') || ''))"""
        )
        assert not beyond, (name, size_name, beyond)
        shown = text_of(page)
        assert not RAW_NAME.findall(shown), (name, RAW_NAME.findall(shown))
        screenshot(page, shots, f"{name}-{size_name}")


def picture_labels(page: WebDriver) -> list[dict[str, float | str]]:
    """The date labels of the dream's picture as drawn now: text, middle, top and height on screen."""
    labels: list[dict[str, float | str]] = page.execute_script(
        """return [...document.querySelectorAll('svg.link text.day')]
             .filter(t => t.getBoundingClientRect().height > 0)
             .map(t => [t.textContent, t.getBoundingClientRect()])
             .map(([text, box]) => ({text, middle: box.left + box.width / 2, top: box.top,
                                     height: box.height}))"""
    )
    return labels


def read_picture(page: WebDriver, sources: int) -> None:
    """At both widths: one date per memory, all on one line (a row on a desktop, a column on a
    phone), big enough to read."""
    for size, along in ((DESKTOP, "top"), (PHONE, "middle")):
        page.set_window_size(*size)
        labels = picture_labels(page)
        assert len(labels) == sources, labels
        places = [float(label[along]) for label in labels]
        assert max(places) - min(places) < 2, labels
        assert min(float(label["height"]) for label in labels) >= 11, labels
        drawn = [
            svg.get_attribute("textContent") or "" for svg in page.find_elements(By.CSS_SELECTOR, "svg.link")
        ]
        assert not any("fragment" in words for words in drawn)


async def link_dream(call: CallTool) -> str:
    """Two memories a host linked, with a statement for the person to confirm."""
    ids = [
        (await call("remember", content=text, occurred_at=day(offset)))["fragment"]["id"]
        for text, offset in zip(RUNNING, (90, 120), strict=True)
    ]
    written = await call(
        "write_dream",
        source_ids=ids,
        statement=claim_of("has_goal", "run the Lisbon marathon"),
        hypothesis="Your sore knee may come from the Sunday long runs of your marathon training.",
        why="Both memories are about the Sunday long runs.",
        what_if="What if the long runs grow more slowly?",
        possible_outcome="The assistant can ask about the knee before suggesting a longer run.",
    )
    return str(written["dream_id"])


async def a_profile_with_every_view(call: CallTool) -> dict[str, Any]:
    """Dreams of every kind, two runs of one night and a statement the words do not show."""
    await plant(call)
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    by_kind: dict[str, Any] = {dream["kind"]: dream["id"] for dream in dreams}
    by_kind["link"] = await link_dream(call)
    await call("run_dreaming_cycle", max_outputs=10)
    said = await call(
        "remember", content="We talked about music over dinner.", claims=[claim_of("likes", "jazz")]
    )
    assert said["claims"][0]["status"] == "candidate", said
    return by_kind


async def test_every_view_reads_in_words_at_both_widths_and_is_screenshot(
    page: WebDriver, http_server: HttpServer, call: CallTool, shots: Path
) -> None:
    by_kind = await a_profile_with_every_view(call)
    assert sorted(by_kind) == ["contradiction", "duplicate", "link", "theme"], by_kind
    page.get(f"{http_server.base}/review/login")
    show(page, shots, "sign-in")
    page.set_window_size(*DESKTOP)
    sign_in(page, http_server, http_server.write_token)
    show(page, shots, "dreams")

    for kind, dream_id in by_kind.items():
        page.get(f"{http_server.base}/review/dreams/{dream_id}")
        sources = len((await call("get_dream", dream_id=dream_id))["sources"])
        read_picture(page, sources)
        show(page, shots, f"dream-{kind}")

    page.get(f"{http_server.base}/review/memory?q=kayak")
    show(page, shots, "memory-search")
    page.get(f"{http_server.base}/review/memory")
    assert "user likes jazz" in text_of(page)
    show(page, shots, "memory")
    page.get(f"{http_server.base}/review/runs")
    show(page, shots, "nights")
    page.get(f"{http_server.base}/review?status=everything")
    show(page, shots, "problem")


async def test_a_statement_the_words_do_not_show_says_what_to_do_and_can_be_dropped(
    page: WebDriver, http_server: HttpServer, call: CallTool
) -> None:
    said = await call(
        "remember", content="We talked about music over dinner.", claims=[claim_of("likes", "jazz")]
    )
    assert said["claims"][0]["status"] == "candidate", said
    sign_in(page, http_server, http_server.write_token)
    page.get(f"{http_server.base}/review/memory")
    [listed] = page.find_elements(By.CSS_SELECTOR, "ul.candidates li")
    assert "user likes jazz" in listed.text and "does not yet show it" in listed.text
    assert "say it again in your own words" in text_of(page)

    click_through(page, "ul.candidates button[value=reject_claim]")

    assert "Recorded: “you like jazz”: dropped." in text_of(page)
    assert not page.find_elements(By.CSS_SELECTOR, "ul.candidates li")
    assert (await call("reflect_memories"))["counts"]["candidate_claims"] == 0
