"""`python -m bench.dream_quality`: are the dreams worth a person's attention?

Two measures, both through the real MCP tools on the bench's Neo4j:

- **LoCoMo.** Every turn of each conversation is remembered (as `bench.locomo` does), then
  `run_dreaming_cycle` runs `--cycles` times with `max_outputs` `--per-cycle`. A dream *hits*
  when its two source turns are both evidence of one question (a link the dataset's authors
  drew); precision is hits over dreams. A dream is *small talk* when either source has fewer
  than two topical words once greetings, fillers and the speakers' names are set aside.
- **Synthetic.** A profile where pairs of memories share a rare name in otherwise unrelated
  sentences, among many sentences cut from a few templates. Precision is named pairs over dreams.

Nothing is asserted: the figures and five dreams per conversation are printed, and everything
is written to bench/results/dreams-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mcp import Client

from bench.database import BenchDatabase, driver_for, prepare, provisioned
from bench.locomo import ConversationRun, remember_turns, say, server_settings
from bench.locomo_data import Conversation, load_conversations
from bench.machine import source_revision
from bench.report import results_path, write_json
from bench.stats import Stopwatch
from graph.dreams.evidence import topical_terms
from server.app import build_server

TARGETS = {"locomo_precision": 0.10, "synthetic_precision": 0.8}
INSTANCE = "dreams"


@dataclass
class DreamSeen:
    conversation: str
    hypothesis: str
    why: str | None
    sources: list[str]
    hit: bool
    small_talk: bool


@dataclass
class Lane:
    dreams: list[DreamSeen] = field(default_factory=list)
    cycle_seconds: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        count = len(self.dreams)
        hits = sum(dream.hit for dream in self.dreams)
        return {
            "dreams": count,
            "hits": hits,
            "precision": hits / count if count else float("nan"),
            "small_talk": sum(dream.small_talk for dream in self.dreams),
            "cycle_seconds_max": max(self.cycle_seconds, default=float("nan")),
        }


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return dict(result.structured_content or {})


async def _dream(client: Client, lane: Lane, cycles: int, per_cycle: int) -> list[dict[str, Any]]:
    """Run the cycles; the dreams they made, in full."""
    ids: list[str] = []
    for _ in range(cycles):
        watch = Stopwatch()
        run = await _call(client, "run_dreaming_cycle", max_outputs=per_cycle)
        lane.cycle_seconds.append(watch.seconds)
        ids.extend(next(p for p in run["phases"] if p["phase"] == "dream").get("dream_ids", []))
    return [await _call(client, "get_dream", dream_id=dream_id) for dream_id in ids]


def _small_talk(text: str, names: Sequence[str]) -> bool:
    lowered = {name.casefold() for name in names}
    return len([term for term in topical_terms(text) if term not in lowered]) < 2


async def locomo_conversation(
    db: BenchDatabase, conversation: Conversation, lane: Lane, cycles: int, per_cycle: int
) -> None:
    profile = f"dreams-{conversation.name}"
    async with Client(build_server(server_settings(db, profile), "stdio")) as client:
        say(f"{conversation.name}: remembering {len(conversation.turns):,} turns")
        fragments = await remember_turns(client, conversation, ConversationRun(conversation.name, 0))
        texts = {turn.dia_id: turn.content for turn in conversation.turns}
        evidence = [
            question.evidence for question in conversation.all_questions if len(question.evidence) > 1
        ]
        for dream in await _dream(client, lane, cycles, per_cycle):
            sides = [fragments.get(source["id"], set()) for source in dream["sources"]]
            hit = len(sides) == 2 and any(sides[0] & turns and sides[1] & turns for turns in evidence)
            lane.dreams.append(
                DreamSeen(
                    conversation.name,
                    dream["hypothesis"],
                    dream.get("why"),
                    [texts[min(side)] for side in sides if side],
                    hit,
                    any(_small_talk(texts[min(side)], conversation.speakers) for side in sides if side),
                )
            )


# --- the synthetic profile ---------------------------------------------------------------

_NAMES = (
    "Ottoline Brisk",
    "Casimir Vantongeren",
    "Marisol Quenby",
    "Thaddeus Ruark",
    "Ingrid Solvang",
    "Anselm Prideaux",
    "Bettina Kovalenko",
    "Leocadia Frame",
    "Ravindra Oakhurst",
    "Zephyrine Mott",
    "Hollis Varga",
    "Perpetua Lindqvist",
    "Evander Crouch",
    "Seraphina Ndiaye",
    "Wystan Albright",
)
# Each sentence is used once: a named pair shares its name and nothing else.
_FIRST = (
    "I met {name} at the climbing gym and we compared bouldering routes for an hour.",
    "{name} lent me a cast-iron pan that makes the best cornbread.",
    "My dentist appointment got moved because {name} needed the slot.",
    "{name} is organising the street party and asked me to bring paper lanterns.",
    "We carpooled to the conference with {name}, who drives very carefully.",
    "{name} fixed the wobbly bookshelf in the hallway with two brackets.",
    "At the pottery class {name} showed me how to centre clay on the wheel.",
    "{name} sent me a playlist of Brazilian jazz for the long drive.",
    "The new tenant downstairs, {name}, keeps bees on the roof terrace.",
    "{name} and I split the cost of a second-hand kayak.",
    "During the power cut {name} brought over candles and a thermos of soup.",
    "{name} convinced me to sign up for the autumn half marathon.",
    "My sister's wedding photographer was {name}, who barely stopped smiling.",
    "{name} translated the old letters my grandmother wrote in Polish.",
    "On the night train to Vienna I shared a compartment with {name}.",
)
_SECOND = (
    "Got a postcard from {name} in Reykjavik, with a drawing of a puffin.",
    "{name} recommended a novel about lighthouse keepers that I started tonight.",
    "The plumber said {name} had the same leak last winter and patched it with tape.",
    "I owe {name} forty euros for the concert tickets.",
    "{name} taught my niece to play chess over the holidays.",
    "Birthday reminder: {name} turns fifty on the ninth.",
    "{name} is moving to Lisbon next spring for a museum job.",
    "I borrowed a tent from {name} for the festival and tore the flysheet.",
    "{name} called to ask whether I still have the ladder.",
    "There is a photo of {name} holding a giant pumpkin on my fridge.",
    "{name} got me into sourdough by gifting a jar of starter.",
    "The cat sitter cancelled, so {name} will feed Miso this weekend.",
    "{name} beat me at table tennis three games in a row.",
    "I need to return the drill to {name} before Friday.",
    "{name} wrote a glowing reference for my volunteering application.",
)
_TASKS = (
    "quarterly review",
    "design sync",
    "budget call",
    "retro",
    "vendor demo",
    "offsite planning",
    "hiring panel",
    "roadmap session",
    "security audit",
    "launch rehearsal",
    "training",
    "standup",
)


def synthetic_memories(seed: int = 7) -> tuple[list[str], set[frozenset[int]]]:
    """Named pairs (rare name, different sentences) among template sentences; the named pairs."""
    rng = random.Random(seed)
    texts: list[str] = []
    pairs: set[frozenset[int]] = set()
    for name, first_template, second_template in zip(_NAMES, _FIRST, _SECOND, strict=True):
        first = first_template.format(name=name)
        second = second_template.format(name=name.split()[0])
        pairs.add(frozenset((len(texts), len(texts) + 1)))
        texts.extend([first, second])
    while len(texts) < 200:
        moved, room = rng.sample(_TASKS, 2)
        day = rng.choice(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"))
        texts.append(f"Jordan moved the {moved} to {day} to make room for the {room}.")
    order = list(range(len(texts)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    return [texts[old] for old in order], {frozenset(position[i] for i in pair) for pair in pairs}


async def synthetic(db: BenchDatabase, lane: Lane, cycles: int, per_cycle: int) -> None:
    texts, pairs = synthetic_memories()
    start = datetime(2025, 1, 1, tzinfo=UTC)
    async with Client(build_server(server_settings(db, "dreams-synthetic"), "stdio")) as client:
        ids: dict[str, int] = {}
        for index, text in enumerate(texts):
            when = (start + timedelta(days=index)).isoformat()
            stored = await _call(client, "remember", content=text, occurred_at=when)
            ids[stored["fragment"]["id"]] = index
        for dream in await _dream(client, lane, cycles, per_cycle):
            members = frozenset(ids[source["id"]] for source in dream["sources"])
            lane.dreams.append(
                DreamSeen(
                    "synthetic",
                    dream["hypothesis"],
                    dream.get("why"),
                    [texts[i] for i in sorted(members)],
                    members in pairs,
                    False,
                )
            )


# --- the run -----------------------------------------------------------------------------


async def run_all(
    db: BenchDatabase, conversations: Sequence[Conversation], cycles: int, per_cycle: int
) -> dict[str, Lane]:
    driver = driver_for(db.settings)
    lanes = {"locomo": Lane(), "synthetic": Lane()}
    try:
        for conversation in conversations:
            await prepare(driver)
            await locomo_conversation(db, conversation, lanes["locomo"], cycles, per_cycle)
        await prepare(driver)
        await synthetic(db, lanes["synthetic"], cycles, per_cycle)
    finally:
        await driver.close()
    return lanes


def report(lanes: dict[str, Lane], samples: int) -> str:
    lines = []
    for name, lane in lanes.items():
        figures = lane.figures()
        target = TARGETS[name + "_precision"]
        verdict = "met" if figures["precision"] >= target else "not met"
        lines.append(
            f"{name}: {figures['dreams']} dreams, {figures['hits']} hits, "
            f"precision {figures['precision']:.3f} (target {target}: {verdict}), "
            f"small talk {figures['small_talk']}, slowest cycle {figures['cycle_seconds_max']:.2f} s"
        )
    by_conversation: dict[str, list[DreamSeen]] = {}
    for dream in lanes["locomo"].dreams + lanes["synthetic"].dreams:
        by_conversation.setdefault(dream.conversation, []).append(dream)
    for conversation, dreams in by_conversation.items():
        lines.append(f"--- {conversation}: the first {samples} dreams")
        for dream in dreams[:samples]:
            lines.append(f"  [{'hit' if dream.hit else 'miss'}] {dream.hypothesis}\n      why: {dream.why}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dream_quality", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", type=Path, required=True, help="folder of LoCoMo conversation files (*.json)"
    )
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--per-cycle", type=int, default=20, help="max_outputs of each cycle")
    parser.add_argument("--samples", type=int, default=5, help="dreams printed per conversation")
    args = parser.parse_args(argv)
    conversations = load_conversations(args.data)
    started, watch = datetime.now(UTC), Stopwatch()
    with provisioned(INSTANCE) as db:
        lanes = asyncio.run(run_all(db, conversations, args.cycles, args.per_cycle))
    print(report(lanes, args.samples))
    print(f"whole run: {watch.seconds:.0f} s")
    document = {
        "started_at": started.isoformat(),
        "revision": source_revision(),
        "data": str(args.data),
        "cycles": args.cycles,
        "per_cycle": args.per_cycle,
        "figures": {name: lane.figures() for name, lane in lanes.items()},
        "targets": TARGETS,
        "dreams": {name: [asdict(dream) for dream in lane.dreams] for name, lane in lanes.items()},
    }
    print(f"JSON: {write_json(results_path(started, 'dreams'), document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
