"""`python -m bench.promotions`: is every promotion whose claim did not become a fact visible as such?

The promotion lane. On its own Neo4j instance (`promotions`, wiped first) a `reverie serve
--transport http` subprocess gets a profile; through its MCP tools the lane writes dreams and
answers them as a person would: words that state the claim, words that do not, a bare yes on a
dream's statement, a yes with no statement, a claim the host was unsure of, a claim against a
fact memory holds, a duplicate said twice, and two confirmations that pass later (the host
remembers the claim with `supported_by` naming the confirmation; the person promotes again).

For each it prints what memory did (whether a confirmed claim became a fact, from the tools'
own answers) beside the status every surface shows: the tool's answer, get_dream, the
list_dreams status that lists it, the review page's badge and the queue that lists it, and
whether the page still offers its statement as "What you would confirm". A row is true when
every surface says promoted exactly when something became memory. Nothing is asserted; the
figures are printed and written to bench/results/promotions-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.database import emptied, provisioned
from bench.machine import source_revision
from bench.report import results_path, write_json
from bench.serve import mcp_url, reverie_http
from graph.dreams.models import DreamStatus
from server.auth import add_token

INSTANCE = "promotions"
PROFILE = "promotions"
Call = Callable[..., Awaitable[dict[str, Any]]]
DUPLICATE = (
    ("My daughter Ines is allergic to peanuts and always carries an EpiPen in her bag.", "2024-02-07"),
    ("Ines, my daughter, is allergic to peanuts and always carries her EpiPen in her bag.", "2024-03-18"),
)
# Two memories per case, cited by the dream the host writes for it.
PAIRS = (
    ("My Portuguese tutor recommended reading Saramago novels.", "I read a Saramago novel on the flight."),
    ("The physio said to reduce mileage before the taper.", "Tom checked my knee after the long run."),
    ("I started training for the Lisbon marathon in April.", "Long runs on Sundays are getting easier."),
    ("I hosted a board game night on Friday.", "We played Wingspan until midnight."),
    ("I bake sourdough bread on weekends.", "Herbert the starter needs rye flour twice a day."),
    ("Our flaky tests keep failing on the Neo4j container.", "I switched the team's CI to GitHub Actions."),
)


def claim(predicate: str, obj: str, extract: float = 0.9, **extra: Any) -> dict[str, Any]:
    return {
        "subject": "user",
        "predicate": predicate,
        "object": obj,
        "extract_conf": extract,
        "resolution_conf": 0.9,
        **extra,
    }


@dataclass
class Case:
    name: str
    outcome: str  # the tool's promotion.outcome, then (after a later pass) what followed
    became_memory: bool
    tool: str
    get_dream: str = ""
    list_dreams: str = ""
    page_badge: str = ""
    page_queue: str = ""
    offers_statement: bool = False
    dream_id: str = ""

    @property
    def true(self) -> bool:
        shown = {self.tool, self.get_dream, self.list_dreams, self.page_badge, self.page_queue}
        return shown == {"promoted" if self.became_memory else "confirmed"} and not self.offers_statement


def caller(client: Client) -> Call:
    async def call(tool: str, **arguments: Any) -> dict[str, Any]:
        result = await client.call_tool(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {result.content}")
        return dict(result.structured_content or {})

    return call


def made_fact(answer: dict[str, Any]) -> bool:
    promotion = answer["promotion"]
    return promotion["outcome"] == "merged" or any(item["fact"] for item in promotion["claims"])


class Lane:
    """The profile's dreams, written and answered through the tools."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.cases: list[Case] = []
        self.pairs = iter(PAIRS)

    async def dream(self, statement: dict[str, Any] | None = None) -> str:
        ids = [(await self.call("remember", content=text))["fragment"]["id"] for text in next(self.pairs)]
        words = {
            "hypothesis": "These two belong together.",
            "why": "Both say one thing.",
            "what_if": "What if they do?",
            "possible_outcome": "Ask.",
        }
        extra = {"statement": statement} if statement else {}
        return str((await self.call("write_dream", source_ids=ids, **words, **extra))["dream_id"])

    async def promote(self, name: str, dream_id: str, words: str, *claims: dict[str, Any]) -> dict[str, Any]:
        answer = await self.call(
            "resolve_dream_feedback",
            dream_id=dream_id,
            decision="promote_candidate",
            feedback=words,
            claims=list(claims),
        )
        outcome = answer["promotion"]["outcome"]
        self.cases.append(
            Case(name, outcome, made_fact(answer), answer["dream"]["status"], dream_id=dream_id)
        )
        return answer


async def duplicate_case(lane: Lane) -> None:
    for text, day in DUPLICATE:
        await lane.call("remember", content=text, occurred_at=f"{day}T09:00:00+00:00")
    run = await lane.call("run_dreaming_cycle", max_outputs=3)
    dream_ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
    for dream_id in dream_ids:
        if (await lane.call("get_dream", dream_id=dream_id))["kind"] == "duplicate":
            await lane.promote("duplicate said twice", dream_id, "Yes, I said that twice.")
            return


async def answer_all(lane: Lane) -> dict[str, Any]:
    """Every first answer; returns the two the later passes follow up."""
    await duplicate_case(lane)
    await lane.call("remember", content="I work at Acme Corp.", claims=[claim("works_at", "Acme Corp")])
    saramago = "Yes! I love reading Saramago novels."
    await lane.promote("words state it", await lane.dream(), saramago, claim("likes", "Saramago novels"))
    physio = await lane.promote(
        "words do not state it", await lane.dream(), "Tom is my physiotherapist", claim("knows", "Tom")
    )
    goal = claim("has_goal", "run the Lisbon marathon")
    await lane.promote("bare yes on a statement", await lane.dream(goal), "Yes")
    bare = await lane.promote("yes, no claims", await lane.dream(), "Yes, these belong together.")
    await lane.promote(
        "host unsure (extract 0.5)", await lane.dream(), "I guess I like bread.", claim("likes", "bread", 0.5)
    )
    beta = "Right, and I work at Beta Labs now."
    await lane.promote("against a held fact", await lane.dream(), beta, claim("works_at", "Beta Labs"))
    return {"physio": physio, "bare": bare}


async def pass_later(lane: Lane, physio: dict[str, Any], bare: dict[str, Any]) -> list[Case]:
    """Two confirmations that made no fact, followed up; their cases."""
    # Later passes: the host remembers the confirmed claim on the confirmation; the person says more.
    confirmation = physio["promotion"]["fragment_id"]
    remembered = await lane.call(
        "remember",
        content="I met Tom at the clinic; he is my physiotherapist now.",
        claims=[claim("knows", "Tom", supported_by=[confirmation])],
    )
    # No answer of its own: the tool column shows what get_dream says after the remember.
    later = Case("words do not state it, then remembered", "not_promoted, then remembered",
                 bool(remembered["claims"][0]["fact"]), "", dream_id=physio["dream"]["id"])  # fmt: skip
    try:
        again = await lane.call(
            "resolve_dream_feedback",
            dream_id=bare["dream"]["id"],
            decision="promote_candidate",
            feedback="Yes, I love playing Wingspan at our board game nights.",
            claims=[claim("likes", "Wingspan")],
        )
    except RuntimeError:
        # A version that took every yes for final refuses the second one: nothing changed.
        again = {"promotion": {"outcome": "refused", "claims": []}, "dream": bare["dream"]}
    return [
        later,
        Case("yes, no claims, then promoted again", "awaiting_claims, then " + again["promotion"]["outcome"],
             made_fact(again), again["dream"]["status"], dream_id=bare["dream"]["id"]),
    ]  # fmt: skip


async def surfaces(lane: Lane, http: httpx2.AsyncClient, cases: list[Case]) -> dict[str, int]:
    """Each of `cases`' status as get_dream, list_dreams and the page show it; the status counts."""
    listed: dict[str, str] = {}
    queued: dict[str, str] = {}
    for status in DreamStatus:
        page = await lane.call("list_dreams", status=status.value, limit=100)
        listed |= {dream["id"]: status.value for dream in page["dreams"]}
        html = (await http.get("/review", params={"status": status.value})).text
        queued |= {found: status.value for found in re.findall(r'href="/review/dreams/([^"]+)"', html)}
    for case in cases:
        case.get_dream = (await lane.call("get_dream", dream_id=case.dream_id))["status"]
        case.list_dreams, case.page_queue = listed.get(case.dream_id, "-"), queued.get(case.dream_id, "-")
        html = (await http.get(f"/review/dreams/{case.dream_id}")).text
        badge = re.search(r'<span class="badge (\w+)">', html)
        case.page_badge = badge.group(1) if badge else "-"
        case.offers_statement = "What you would confirm" in html and case.get_dream not in (
            "proposed",
            "reinforced",
        )
        if not case.tool:
            case.tool = case.get_dream  # a later pass: no answer of its own
    return dict((await lane.call("dreaming_status"))["counts"])


async def run(work: Path) -> tuple[list[Case], dict[str, int]]:
    with provisioned(INSTANCE) as db:
        await emptied(db.settings)
        tokens = work / "tokens.json"
        token = add_token(tokens, PROFILE, ["read", "write"], name="promotions").token
        with reverie_http(db.settings, work, tokens, "server.log") as server:
            base = f"http://127.0.0.1:{server.port}"
            signed = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300)
            async with (
                signed,
                Client(streamable_http_client(mcp_url(server), http_client=signed)) as client,
                httpx2.AsyncClient(base_url=base, timeout=60) as page,
            ):
                lane = Lane(caller(client))
                first = await answer_all(lane)
                await page.post("/review/login", data={"token": token})
                await surfaces(lane, page, lane.cases)
                later = await pass_later(lane, first["physio"], first["bare"])
                counts = await surfaces(lane, page, later)
    return lane.cases + later, counts


def report(cases: list[Case], counts: dict[str, int]) -> str:
    header = (
        "case",
        "outcome",
        "fact",
        "tool",
        "get_dream",
        "list_dreams",
        "page",
        "queue",
        "offers",
        "true",
    )
    rows = [header] + [
        (c.name, c.outcome, "yes" if c.became_memory else "no", c.tool, c.get_dream, c.list_dreams,
         c.page_badge, c.page_queue, "yes" if c.offers_statement else "no", "yes" if c.true else "NO")
        for c in cases
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    unmade = [c for c in cases if not c.became_memory]
    shown_promoted = sum(
        "promoted" in {c.tool, c.get_dream, c.list_dreams, c.page_badge, c.page_queue} for c in unmade
    )
    lines.append(
        f"{sum(c.true for c in cases)} of {len(cases)} cases shown truthfully on every surface; of "
        f"{len(unmade)} promotions that made no fact, {shown_promoted} shown as promoted somewhere "
        "(target: none)"
    )
    lines.append("dreaming_status counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.promotions", description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    started = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="reverie-promotions-") as work:
        cases, counts = asyncio.run(run(Path(work)))
    print(report(cases, counts))
    document = {
        "started_at": started.isoformat(),
        "revision": source_revision(),
        "cases": [asdict(case) | {"true": case.true} for case in cases],
        "counts": counts,
    }
    print(f"JSON: {write_json(results_path(started, 'promotions'), document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
