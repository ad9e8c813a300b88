"""`python -m bench.locomo`: LoCoMo recall through the real MCP tools, beside a BM25 baseline.

Each conversation gets its own profile in the bench's Neo4j instance, emptied before each
conversation. Every turn goes in through the JSON Lines importer, as `reverie import jsonl`
stores a person's history (`graph.history`: `remember` for each, vectors included): the speaker's
words, and a photo they shared as its caption, a memory of its own marked `shared`; every
question of categories 1-4 goes through `recall_memory` (limit 10) on an in-process MCP client of
the server `build_server` makes. A question is found at k when one of
its evidence turns is among the first k fragments returned. Plain BM25 over the same turn
strings answers the same questions, scored the same way. Nothing is asserted: the figures are
printed and written to bench/results/locomo-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp import Client
from mcp_types import CallToolResult
from neo4j import AsyncDriver

from bench.database import BenchDatabase, driver_for, prepare, provisioned
from bench.locomo_data import CATEGORIES, Bm25Baseline, Conversation, Question, first_hit, load_conversations
from bench.machine import describe_machine, source_revision
from bench.report import results_path, write_json
from bench.semantic import bench_vectors
from bench.stats import Latency, Stopwatch
from graph.access import GraphStore, ProfileTx
from graph.history.jsonl import read_jsonl
from graph.history.load import pending, write_pieces
from graph.history.pieces import plan_import
from graph.memory.pipeline import content_hash
from graph.scope import ScopedQuery
from server.app import build_server
from server.settings import ReverieSettings

LIMIT = 10
KS = (5, 10)
TARGETS = {10: 78.0, 5: 68.0}  # R@k in percent, from the recall issue's acceptance measure
SYSTEMS = ("recall_memory", "bm25")
MODEL_ENV = "REVERIE_EMBEDDING_MODEL"
NO_LANES = "(no lanes field)"
FRAGMENT_HASHES = ScopedQuery(
    "locomo_fragment_hashes",
    "MATCH (f:SourceFragment {profile_id: $profile_id}) RETURN f.id AS id, f.content_hash AS hash",
)


@dataclass
class Outcome:
    """One question: the rank of its first evidence turn for each system (None: not in the top 10)."""

    conversation: str
    category: int
    question: str
    evidence: list[str]
    ranks: dict[str, int | None]
    top: dict[str, list[str]]
    error: str | None = None


@dataclass
class ConversationRun:
    name: str
    turns: int
    import_seconds: float = 0.0
    duplicates: int = 0
    recall_latencies: list[float] = field(default_factory=list)
    # Which recall lanes found the fragments returned, and the evidence fragments among them.
    lanes_returned: Counter[str] = field(default_factory=Counter)
    lanes_evidence: Counter[str] = field(default_factory=Counter)
    outcomes: list[Outcome] = field(default_factory=list)


def say(message: str) -> None:
    print(f"[locomo] {message}", file=sys.stderr, flush=True)


def _error_text(result: CallToolResult) -> str:
    return str(getattr(result.content[0], "text", "?") if result.content else "?")[:300]


def server_settings(db: BenchDatabase, profile: str) -> ReverieSettings:
    # REVERIE_HOME stays as the environment has it: the server finds its model files where a real
    # one would. The embedding model comes from the environment too (`--model` sets it).
    return ReverieSettings(
        neo4j_uri=db.settings.uri,
        neo4j_username=db.settings.username,
        neo4j_password=db.settings.password,
        reverie_profile=profile,
    )


def turn_lines(conversation: Conversation) -> str:
    """The conversation as `reverie import jsonl` reads it: a memory a line, with its dia_id (and
    its place in the turn after the first: a shared photo's caption is the turn's second)."""
    lines = []
    for turn in conversation.turns:
        for index, said in enumerate(turn.memories):
            entry = {
                "text": said.text,
                "occurred_at": turn.occurred_at.isoformat(),
                "conversation": conversation.name,
                "id": f"{turn.dia_id}#{index}" if index else turn.dia_id,
            }
            lines.append(json.dumps(entry | ({"shared": said.shared} if said.shared else {})) + "\n")
    return "".join(lines)


async def import_turns(
    db: BenchDatabase, profile: str, conversation: Conversation, run: ConversationRun
) -> dict[str, set[str]]:
    """Store every turn through the JSON Lines importer (`reverie import jsonl`), vectors
    included; returns fragment id -> the dia_ids of the turns stored (in part) as that fragment."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{conversation.name}.jsonl"
        path.write_text(turn_lines(conversation), encoding="utf-8")
        plan = plan_import(read_jsonl(path))
    store = GraphStore.connect(db.settings)
    try:
        graph = store.profile(profile)
        watch = Stopwatch()
        async with bench_vectors() as vectors:
            written = await write_pieces(graph, (await pending(graph, plan)).todo, vectors)
        run.import_seconds = watch.seconds
        # Identical turns ("Speaker: Thanks!") fold into one fragment, which then stands for both.
        run.duplicates = written.same_words
        by_hash = {row["hash"]: str(row["id"]) for row in await graph.read(ProfileTx.run, FRAGMENT_HASHES)}
    finally:
        await store.close()
    fragments: dict[str, set[str]] = {}
    for turn in conversation.turns:
        for said in turn.memories:
            fragments.setdefault(by_hash[content_hash(said.text)], set()).add(turn.dia_id)
    return fragments


def _lanes_key(item: dict[str, Any]) -> str:
    lanes = item.get("lanes")
    return "+".join(sorted(lanes)) if lanes else NO_LANES


async def ask(
    client: Client, question: Question, fragments: dict[str, set[str]], run: ConversationRun
) -> tuple[list[frozenset[str]], str | None]:
    """The fragments `recall_memory` returns for a question, as dia_id sets, best first."""
    watch = Stopwatch()
    result = await client.call_tool("recall_memory", {"query": question.text, "limit": LIMIT})
    elapsed = watch.seconds
    if result.is_error:
        # A question of common words only is refused; it counts as not found, with the reason.
        return [], _error_text(result)
    run.recall_latencies.append(elapsed)
    items = [
        item for item in (result.structured_content or {}).get("results", []) if item["kind"] == "fragment"
    ]
    ranked = [frozenset(fragments.get(str(item["id"]), ())) for item in items]
    for item, dia_ids in zip(items, ranked, strict=True):
        run.lanes_returned[_lanes_key(item)] += 1
        if dia_ids & question.evidence:
            run.lanes_evidence[_lanes_key(item)] += 1
    return ranked, None


def _first_ids(ranked: list[frozenset[str]]) -> list[str]:
    return [",".join(sorted(dia_ids)) for dia_ids in ranked]


async def run_conversation(
    db: BenchDatabase, driver: AsyncDriver, conversation: Conversation
) -> ConversationRun:
    profile = f"locomo-{conversation.name}"
    # The whole instance is emptied, not just this profile: the fulltext index's BM25 statistics
    # span every profile in it, so other memories in the database move recall's ranking (by four
    # points of R@10 on one conversation). Alone in the index, a conversation scores the same
    # whatever ran before it.
    await prepare(driver)
    run = ConversationRun(conversation.name, len(conversation.turns))
    baseline = Bm25Baseline(conversation.turns)
    say(f"{conversation.name}: importing {len(conversation.turns):,} turns into profile {profile}")
    fragments = await import_turns(db, profile, conversation, run)
    async with Client(build_server(server_settings(db, profile), "stdio")) as client:
        say(f"{conversation.name}: asking {len(conversation.questions):,} questions")
        for question in conversation.questions:
            found, error = await ask(client, question, fragments, run)
            bm25 = baseline.ranked(question.text, LIMIT)
            run.outcomes.append(
                Outcome(
                    conversation.name,
                    question.category,
                    question.text,
                    sorted(question.evidence),
                    {
                        "recall_memory": first_hit(found, question.evidence),
                        "bm25": first_hit(bm25, question.evidence),
                    },
                    {"recall_memory": _first_ids(found), "bm25": _first_ids(bm25)},
                    error,
                )
            )
    return run


# --- figures -------------------------------------------------------------------------------------


def recall_at(outcomes: Sequence[Outcome], system: str, k: int) -> float:
    """Percent of the questions whose first evidence turn is in the system's top k."""
    found = sum(1 for outcome in outcomes if (rank := outcome.ranks[system]) is not None and rank <= k)
    return 100 * found / len(outcomes) if outcomes else float("nan")


def scores(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return {
        "questions": len(outcomes),
        **{system: {f"R@{k}": recall_at(outcomes, system, k) for k in KS} for system in SYSTEMS},
    }


def groups(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Scores overall, per category and per conversation, in the order they are printed."""
    rows: dict[str, Any] = {"overall": scores(outcomes)}
    for number, name in CATEGORIES.items():
        rows[f"{number} {name}"] = scores([outcome for outcome in outcomes if outcome.category == number])
    for name in dict.fromkeys(outcome.conversation for outcome in outcomes):
        rows[f"conversation {name}"] = scores(
            [outcome for outcome in outcomes if outcome.conversation == name]
        )
    return rows


def matrix(rows: dict[str, Any]) -> str:
    header = f"{'':<18}{'questions':>10}  {'recall_memory R@5':>17}{'R@10':>7}  {'BM25 R@5':>9}{'R@10':>7}"
    lines = [header, "-" * len(header)]
    for name, row in rows.items():
        if name.startswith("conversation") and not lines[-1].startswith("conversation"):
            lines.append("")
        mine, bm25 = row["recall_memory"], row["bm25"]
        lines.append(
            f"{name:<18}{row['questions']:>10,}  {mine['R@5']:>17.1f}{mine['R@10']:>7.1f}  "
            f"{bm25['R@5']:>9.1f}{bm25['R@10']:>7.1f}"
        )
    return "\n".join(lines)


def targets(overall: dict[str, Any]) -> dict[str, Any]:
    return {
        f"R@{k}": {"target": target, "value": value, "met": value >= target}
        for k, target in TARGETS.items()
        for value in [overall["recall_memory"][f"R@{k}"]]
    }


def totals(runs: Sequence[ConversationRun]) -> dict[str, Any]:
    """Ingestion and recall timings, duplicates, errors and lanes, over every conversation."""
    recall = Latency.of([seconds for run in runs for seconds in run.recall_latencies])
    import_seconds = sum(run.import_seconds for run in runs)
    outcomes = [outcome for run in runs for outcome in run.outcomes]
    turns = sum(run.turns for run in runs)
    return {
        "turns": turns,
        "import_per_second": turns / import_seconds if import_seconds else 0.0,
        "duplicates_folded": sum(run.duplicates for run in runs),
        "recall_latency": asdict(recall),
        "recall_errors": [f"{o.conversation}: {o.question}: {o.error}" for o in outcomes if o.error],
        "questions_without_evidence": sum(1 for outcome in outcomes if not outcome.evidence),
        "lanes_returned": dict(sum((run.lanes_returned for run in runs), Counter[str]()).most_common()),
        "lanes_evidence": dict(sum((run.lanes_evidence for run in runs), Counter[str]()).most_common()),
    }


def _lanes_line(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in counts.items()) or "none"


def _timing_lines(figures: dict[str, Any]) -> list[str]:
    recall = figures["recall_latency"]
    return [
        f"ingest: {figures['turns']:,} turns through the JSON Lines importer, "
        f"{figures['import_per_second']:.1f}/s with their vectors; "
        f"{figures['duplicates_folded']:,} identical turns folded",
        f"recall_memory: p50 {recall['p50_ms']:.1f} ms, p95 {recall['p95_ms']:.1f} ms over "
        f"{recall['count']:,} calls; {len(figures['recall_errors'])} errors; "
        f"{figures['questions_without_evidence']} questions name no evidence turn (never found)",
    ]


def report(rows: dict[str, Any], figures: dict[str, Any], model: str) -> str:
    met = "; ".join(
        f"{name} >= {goal['target']:.0f}: {goal['value']:.1f}, {'met' if goal['met'] else 'not met'}"
        for name, goal in targets(rows["overall"]).items()
    )
    return "\n".join(
        [
            matrix(rows),
            "",
            f"targets (recall_memory): {met}",
            f"embedding model: {model}",
            *_timing_lines(figures),
            f"lanes of the fragments returned: {_lanes_line(figures['lanes_returned'])}",
            f"lanes of the evidence fragments returned: {_lanes_line(figures['lanes_evidence'])}",
        ]
    )


# --- the run -------------------------------------------------------------------------------------


def effective_model(db: BenchDatabase) -> str:
    """The embedding model the server is built with, or why there is none to tell."""
    settings = server_settings(db, "locomo")
    # Read by name: the field is new, and a revision without it ignores the variable.
    if "reverie_embedding_model" in type(settings).model_fields:
        return str(getattr(settings, "reverie_embedding_model"))  # noqa: B009
    asked = os.environ.get(MODEL_ENV)
    return f"{asked} (not a setting of this revision: ignored)" if asked else "none (no such setting yet)"


async def run_all(db: BenchDatabase, conversations: Sequence[Conversation]) -> list[ConversationRun]:
    driver = driver_for(db.settings)
    try:
        return [await run_conversation(db, driver, conversation) for conversation in conversations]
    finally:
        await driver.close()


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.locomo",
        description="LoCoMo recall through the real MCP tools, beside a BM25 baseline.",
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="folder of LoCoMo conversation files (*.json)"
    )
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N", help="only the first N")
    parser.add_argument(
        "--model", default=None, help=f"embedding model of the server ({MODEL_ENV}), e.g. e5-small-v2 or off"
    )
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"--data {args.data}: no such folder")
    if args.limit_conversations is not None and args.limit_conversations < 1:
        parser.error("--limit-conversations must be 1 or more")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parse(argv)
    if args.model is not None:
        # Settings read the environment, so the server built for each conversation sees it.
        os.environ[MODEL_ENV] = args.model
    conversations = load_conversations(args.data, args.limit_conversations)
    started, watch = datetime.now(UTC), Stopwatch()
    say(f"starting the bench Neo4j instance; {len(conversations)} conversations from {args.data}")
    with provisioned() as db:
        model = effective_model(db)
        runs = asyncio.run(run_all(db, conversations))
    outcomes = [outcome for run in runs for outcome in run.outcomes]
    rows, figures = groups(outcomes), totals(runs)
    print(report(rows, figures, model))
    print(f"whole run: {watch.seconds:.0f} s")
    document = {
        "started_at": started.isoformat(),
        "seconds": watch.seconds,
        "machine": describe_machine(),
        "revision": source_revision(),
        "data": str(args.data),
        "conversations": [run.name for run in runs],
        "embedding_model": model,
        "scores": rows,
        "targets": targets(rows["overall"]),
        **figures,
        "questions": [asdict(outcome) for outcome in outcomes],
    }
    print(f"JSON: {write_json(results_path(started, 'locomo'), document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
