"""`python -m bench.dream_kinds`: are themes, duplicates and contradictions found, and only those?

A synthetic profile, through the real MCP tools on its own Neo4j instance (`--instance`,
`dream-kinds` by default, wiped first): planted themes (one uncommon word through four memories
on four days months apart), planted duplicates (one statement said twice, weeks apart, in
slightly other words), planted contradictions (a fact of one employer, then weeks later a single
word of another), among everyday sentences that share only common words. `--cycles` cycles of
`--per-cycle` dreams run.

A dream *hits* when its kind matches what was planted on its sources: a theme citing three or
more memories of one planted theme, a duplicate citing a planted pair, a contradiction citing a
planted fact and its later statement. Everything else is *invented* (a link between two
memories of one theme counts as a link hit: the thread is real). Nothing is asserted; the
figures and every dream are printed and written to bench/results/kinds-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from mcp import Client

from bench.database import emptied, provisioned
from bench.locomo import server_settings
from bench.machine import source_revision
from bench.report import results_path, write_json
from server.app import build_server

INSTANCE = "dream-kinds"
PROFILE = "kinds-synthetic"
START = datetime(2024, 1, 8, 9, tzinfo=UTC)

# Four memories per theme; only the word carries the thread.
THEMES = {
    "kayak": (
        "Took the kayak out on the lake at dawn and saw a heron fishing near the reeds.",
        "Patched a crack in the kayak hull with epoxy, it took all afternoon in the garage.",
        "Booked a guided kayak tour along the fjords for the summer holiday.",
        "Sold the old kayak paddle to a neighbour and ordered a carbon one online.",
    ),
    "Odile": (
        "Grandma Odile called to say her tomatoes finally ripened after the cold spring.",
        "Visited Odile in the care home, she beat everyone at scrabble again.",
        "Found a box of letters Odile wrote during the war, in beautiful handwriting.",
        "Odile turns ninety next month and the family is planning a surprise lunch.",
    ),
    "sourdough": (
        "Started a sourdough starter from rye flour, feeding it twice a day on the counter.",
        "The sourdough loaf came out flat, probably too little proofing time overnight.",
        "Gave a jar of sourdough starter to my colleague who wants to bake on weekends.",
        "Finally baked a sourdough with an open crumb, took photos before slicing it.",
    ),
}
DUPLICATES = (
    (
        "My daughter Ines is allergic to peanuts and always carries an EpiPen in her bag.",
        "Ines, my daughter, is allergic to peanuts and always carries her EpiPen in her bag.",
    ),
    (
        "I want to run the Lisbon half marathon next spring in under two hours.",
        "My plan is to run the Lisbon half marathon next spring in under two hours.",
    ),
    (
        "Our landlord agreed to replace the broken boiler in the flat before winter.",
        "The landlord agreed to replace the broken boiler in our flat before the winter.",
    ),
)
# (fact said twice with its claim, later a single statement of another value)
CONTRADICTIONS = (("works_at", "Brightwater Labs", "Corvid Systems"),)
_EVERYDAY = (
    "Went to bed early on {day} after a long week at work.",
    "Had coffee with a friend on {day} morning and talked about the weekend.",
    "Cleaned the kitchen on {day} and did two loads of washing.",
    "Walked to the shop on {day} to buy bread and milk.",
    "Watched a film at home on {day} night and fell asleep halfway.",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class Planted:
    text: str
    at: datetime
    claims: tuple[dict[str, Any], ...] = ()


@dataclass
class Plan:
    memories: list[Planted] = field(default_factory=list)
    themes: list[set[int]] = field(default_factory=list)
    duplicates: list[set[int]] = field(default_factory=list)
    contradictions: list[set[int]] = field(default_factory=list)

    def add(self, text: str, at: datetime, *claims: dict[str, Any]) -> int:
        self.memories.append(Planted(text, at, claims))
        return len(self.memories) - 1


def _claim(predicate: str, value: str) -> dict[str, Any]:
    return {
        "subject": "user",
        "predicate": predicate,
        "object": value,
        "extract_conf": 0.95,
        "resolution_conf": 0.95,
    }


def plan(seed: int = 11, everyday: int = 80) -> Plan:
    rng = random.Random(seed)
    planned = Plan()
    for texts in THEMES.values():
        offset = rng.randrange(0, 20)
        planned.themes.append(
            {planned.add(text, START + timedelta(days=offset + 45 * i)) for i, text in enumerate(texts)}
        )
    for first, second in DUPLICATES:
        offset = rng.randrange(0, 60)
        planned.duplicates.append(
            {
                planned.add(first, START + timedelta(days=offset)),
                planned.add(second, START + timedelta(days=offset + 40)),
            }
        )
    for predicate, held, later in CONTRADICTIONS:
        fact = planned.add(f"I work at {held} as a data engineer.", START, _claim(predicate, held))
        planned.add(
            f"Still at {held}, the data team moved floors.",
            START + timedelta(days=3),
            _claim(predicate, held),
        )
        newer = planned.add(
            f"Started my new job at {later} this week.", START + timedelta(days=200), _claim(predicate, later)
        )
        planned.contradictions.append({fact, newer})
    for index in range(everyday):
        template = _EVERYDAY[index % len(_EVERYDAY)]
        planned.add(
            template.format(day=rng.choice(_DAYS)),
            START + timedelta(days=index * 3, hours=rng.randrange(8, 20)),
        )
    return planned


@dataclass
class Seen:
    kind: str
    hypothesis: str
    sources: list[int]
    hit: bool


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return dict(result.structured_content or {})


def judge(kind: str, sources: set[int], planned: Plan) -> bool:
    """Whether a dream of `kind` citing the planted memories `sources` is one that was planted."""
    if kind == "theme":
        return len(sources) >= 3 and any(sources <= theme for theme in planned.themes)
    if kind == "duplicate":
        return sources in planned.duplicates
    if kind == "contradiction":
        return any(max(pair) in sources for pair in planned.contradictions)
    return len(sources) == 2 and any(sources <= theme for theme in planned.themes)


async def run(cycles: int, per_cycle: int, instance: str = INSTANCE) -> tuple[Plan, list[Seen]]:
    planned = plan()
    with provisioned(instance) as db:
        await emptied(db.settings)
        async with Client(build_server(server_settings(db, PROFILE), "stdio")) as client:
            index_of: dict[str, int] = {}
            for index, memory in enumerate(planned.memories):
                stored = await _call(
                    client,
                    "remember",
                    content=memory.text,
                    occurred_at=memory.at.isoformat(),
                    claims=list(memory.claims),
                )
                index_of[stored["fragment"]["id"]] = index
            seen = []
            for _ in range(cycles):
                ran = await _call(client, "run_dreaming_cycle", max_outputs=per_cycle)
                ids = next(p for p in ran["phases"] if p["phase"] == "dream").get("dream_ids", [])
                for dream_id in ids:
                    dream = await _call(client, "get_dream", dream_id=dream_id)
                    sources = {index_of[s["id"]] for s in dream["sources"] if s["id"] in index_of}
                    kind = dream.get("kind", "link")
                    seen.append(
                        Seen(kind, dream["hypothesis"], sorted(sources), judge(kind, sources, planned))
                    )
    return planned, seen


def figures(planned: Plan, seen: Sequence[Seen]) -> dict[str, Any]:
    planted = {
        "theme": len(planned.themes),
        "duplicate": len(planned.duplicates),
        "contradiction": len(planned.contradictions),
    }
    found = {
        "theme": sum(
            any(set(s.sources) <= t for s in seen if s.kind == "theme" and s.hit) for t in planned.themes
        ),
        "duplicate": sum(
            any(set(s.sources) == d for s in seen if s.kind == "duplicate") for d in planned.duplicates
        ),
        "contradiction": sum(
            any(max(c) in s.sources for s in seen if s.kind == "contradiction")
            for c in planned.contradictions
        ),
    }
    kinds = Counter(s.kind for s in seen)
    invented = Counter(s.kind for s in seen if not s.hit)
    return {"planted": planted, "found": found, "dreams": dict(kinds), "invented": dict(invented)}


def report(result: dict[str, Any], seen: Sequence[Seen]) -> str:
    lines = []
    for kind, planted in result["planted"].items():
        lines.append(
            f"{kind}: {result['found'][kind]} of {planted} planted found; "
            f"{result['dreams'].get(kind, 0)} dreams, {result['invented'].get(kind, 0)} invented "
            "(target: each found, none invented)"
        )
    lines.append(
        f"link: {result['dreams'].get('link', 0)} dreams, "
        f"{result['invented'].get('link', 0)} not within a theme"
    )
    lines.extend(f"  [{s.kind} {'hit' if s.hit else 'miss'}] {s.hypothesis}" for s in seen)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dream_kinds", description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--per-cycle", type=int, default=10, help="max_outputs of each cycle")
    parser.add_argument("--instance", default=INSTANCE, help="the managed Neo4j instance (emptied)")
    args = parser.parse_args(argv)
    started = datetime.now(UTC)
    planned, seen = asyncio.run(run(args.cycles, args.per_cycle, args.instance))
    result = figures(planned, seen)
    print(report(result, seen))
    document = {
        "started_at": started.isoformat(),
        "revision": source_revision(),
        "figures": result,
        "dreams": [vars(s) for s in seen],
    }
    print(f"JSON: {write_json(results_path(started, 'kinds'), document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
