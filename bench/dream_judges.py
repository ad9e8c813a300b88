"""Scripted hosts that dream as the `dream_now` prompt tells a host's model to, over MCP.

A scripted host renders the prompt, takes the page size from the `list_dream_candidates` call
it spells, and pages until no candidate is left: each candidate it reads it either writes up
with `write_dream` or judges empty (`verdict="empty"`), so the next page holds new ones. What it
writes is decided by a judge: the oracle answers from the lane's truth (the ceiling a perfect
model reaches), the coin answers at random (the floor).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp import Client

from bench.dreamgen.truth import Lane

# Given a candidate's two memories (lane indexes): the hypothesis to write, or None for empty.
Judge = Callable[[frozenset[int]], str | None]
LIST_CALL = re.compile(r"list_dream_candidates\(limit=(\d+)\)")
PROMPT_STEPS = ("list_dream_candidates", "write_dream", 'verdict="empty"')


@dataclass
class Judged:
    candidates: list[frozenset[int]] = field(default_factory=list)
    written: list[frozenset[int]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    pages: int = 0
    stopped: str = "no candidate left"


def oracle(lane: Lane) -> Judge:
    """Writes a candidate up when its two memories are of one planted link or theme."""

    def judge(pair: frozenset[int]) -> str | None:
        group = lane.group_of(pair)
        return None if group is None else f"Are both of these memories about {group.name}?"

    return judge


def coin(seed: int) -> Judge:
    """Writes half the candidates up, whichever they are."""
    rng = random.Random(f"coin-{seed}")

    def judge(pair: frozenset[int]) -> str | None:
        return "Are these two memories connected?" if rng.random() < 0.5 else None

    return judge


async def dream_now_page_size(client: Client, count: int) -> int:
    """The page size the rendered `dream_now` prompt asks for; refuses a prompt whose steps a
    scripted host could not follow."""
    result = await client.get_prompt("dream_now", {"count": str(count)})
    text = "".join(getattr(message.content, "text", "") for message in result.messages)
    missing = [step for step in PROMPT_STEPS if step not in text]
    found = LIST_CALL.search(text)
    if missing or found is None:
        raise RuntimeError(f"dream_now no longer spells {missing or 'list_dream_candidates(limit=N)'}")
    return int(found.group(1))


async def follow_dream_now(
    client: Client, index_of: dict[str, int], judge: Judge, count: int, max_pages: int
) -> Judged:
    """Page the candidates until none is left (or `max_pages`), answering each one."""
    limit = await dream_now_page_size(client, count)
    judged = Judged()
    seen: set[frozenset[int]] = set()
    while True:
        result = await client.call_tool("list_dream_candidates", {"limit": limit})
        listed: list[dict[str, Any]] = (result.structured_content or {}).get("candidates", [])
        if not listed:
            return judged
        if judged.pages == max_pages:
            judged.stopped = f"{max_pages} pages read"
            return judged
        fresh = [c for c in listed if frozenset(index_of[i] for i in c["source_ids"]) not in seen]
        if not fresh:
            judged.stopped = "a page of candidates answered before"
            return judged
        judged.pages += 1
        for candidate in fresh:
            pair = frozenset(index_of[i] for i in candidate["source_ids"])
            seen.add(pair)
            await _answer(client, candidate["source_ids"], pair, judge(pair), judged)


async def _answer(
    client: Client, ids: list[str], pair: frozenset[int], words: str | None, judged: Judged
) -> None:
    judged.candidates.append(pair)
    arguments: dict[str, Any] = {"source_ids": ids, "verdict": "empty"}
    if words is not None:
        arguments = {
            "source_ids": ids,
            "hypothesis": words,
            "why": "Both memories name it.",
            "what_if": "It is one thread of the person's life.",
            "possible_outcome": "Ask the person how the two belong together.",
        }
    result = await client.call_tool("write_dream", arguments)
    if result.is_error:
        judged.refused.append(str(getattr(result.content[0], "text", "?"))[:200])
    elif words is not None:
        judged.written.append(pair)
