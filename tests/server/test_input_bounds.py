"""Inputs at the edges get an answer that says what to do, never "internal error", and change
nothing."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from mcp import Client

from tests.server.conftest import CallTool, error_text

pytestmark = pytest.mark.anyio

YEAR_ONE = "0001-01-01T00:00:00+05:00"  # year 0 in UTC
YEAR_END = "9999-12-31T23:59:59-05:00"  # year 10000 in UTC
LIKES_JAZZ = {"subject": "user", "predicate": "likes", "object": "jazz"} | {
    "extract_conf": 0.9,
    "resolution_conf": 0.9,
}
NESTED = base64.urlsafe_b64encode(b"[" * 100_000).decode()
EDGES: dict[str, tuple[str, dict[str, Any], str]] = {
    "stale_after_days far beyond any date": (
        "reflect_memories", {"stale_after_days": 1_000_000}, "stale_after_days"
    ),
    "a time zone name of 300 characters": ("configure_dreaming", {"timezone": "A" * 300}, "time zone"),
    "recall at year 1 with an offset": ("recall_memory", {"query": "jazz", "valid_at": YEAR_ONE}, "valid_at"),
    "recall at year 9999 with an offset": (
        "recall_memory", {"query": "jazz", "known_at": YEAR_END}, "known_at"
    ),
    "a claim valid from year 1 with an offset": (
        "remember",
        {"content": "I like jazz.", "claims": [{**LIKES_JAZZ, "valid_from": YEAR_ONE}]},
        "valid_from",
    ),
    "remembered as said in year 10000": (
        "remember", {"content": "I like jazz.", "occurred_at": YEAR_END}, "occurred_at"
    ),
    "a cursor of deeply nested brackets": ("list_dreams", {"cursor": NESTED}, "cursor"),
    "a source of a megabyte": ("remember", {"content": "I like jazz.", "source": "s" * 1_000_000}, "source"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(EDGES), ids=list(EDGES))
async def test_an_edge_input_is_a_clear_error_that_changes_nothing(
    case: str, client: Client, call: CallTool
) -> None:
    tool, arguments, names = EDGES[case]
    before = await call("dreaming_status")
    text = error_text(await client.call_tool(tool, arguments))
    assert "internal error" not in text and names in text, text
    assert len(text) < 2_000
    assert (await call("recall_memory", query="jazz"))["results"] == []
    after = await call("dreaming_status")
    # Nothing changed: no setting, no memory waiting for its vector, no run, no dream. The
    # server's own background backfill moves on its own schedule: a server just started can
    # show it running before and done after.
    assert after["config"] == before["config"]
    assert (vectors_of(after), after["latest_run"], after["counts"]) == (
        vectors_of(before),
        before["latest_run"],
        before["counts"],
    )


def vectors_of(status: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in status["semantic"].items() if key != "backfill"}


async def test_a_huge_unknown_id_is_not_echoed_back_whole(client: Client) -> None:
    text = error_text(await client.call_tool("get_dream", {"dream_id": "x" * 1_000_000}))
    assert "internal error" not in text and len(text) < 2_000, text[:300]


# Unpunctuated Chinese, as one 1,100-character run: one "word" to a tokenizer that splits on
# spaces, 1,100 tokens to Lucene's.
CHINESE = "我每天早上在公园里跑步然后去街角的咖啡店喝一杯热拿铁再走路去公司上班"
LONG_CHINESE = (CHINESE * 40)[:1_100]


async def test_a_long_unpunctuated_chinese_memory_is_recalled_and_dreamed(call: CallTool) -> None:
    long_one = (await call("remember", content=LONG_CHINESE))["fragment"]["id"]
    short_one = (await call("remember", content="周末我也在公园里跑步" + CHINESE[:12]))["fragment"]["id"]

    found = await call("recall_memory", query=LONG_CHINESE[:500])
    run = await call("run_dreaming_cycle", max_outputs=3)

    assert long_one in [item["id"] for item in found["results"]]
    assert run["status"] == "completed" and run["error"] is None, run
    dream_ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
    assert dream_ids, run
    sources = {source["id"] for source in (await call("get_dream", dream_id=dream_ids[0]))["sources"]}
    assert sources == {long_one, short_one}
    assert (await call("dreaming_status"))["latest_run"]["status"] == "completed"
