"""`python -m bench`: run every size, print the table, write the JSON."""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.database import INSTANCE, BenchDatabase, provisioned
from bench.machine import describe_machine, source_revision
from bench.options import Options, parse
from bench.report import results_path, table, write_json
from bench.runner import SizeRun, say, work_dir
from bench.stats import Figure, Stopwatch
from bench.warmup import warm_up
from graph.localdb import NEO4J_VERSION


@dataclass
class _Report:
    """What the run has measured so far, and the JSON document that keeps it."""

    started: datetime
    document: dict[str, Any]
    figures: list[Figure] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def save(self) -> Path:
        self.document.update(figures=[figure.as_dict() for figure in self.figures], failures=self.failures)
        return write_json(results_path(self.started), self.document)


def _setup_figures(db: BenchDatabase, options: Options) -> list[Figure]:
    """The Neo4j start and the warm-up: reported, not measured."""
    reused = "already running: reused" if not db.started_here else "started by the bench"
    start = Figure(None, "setup", f"Neo4j '{INSTANCE}' start", db.start_seconds, "s", 1, reused)
    say("warming Neo4j up on a throwaway profile")
    warm = asyncio.run(warm_up(db, options.seed))
    return [
        start,
        Figure(
            None,
            "setup",
            "warm-up (remember, recall, dream on a throwaway profile)",
            warm,
            "s",
            None,
            "not measured; removed by the wipe",
        ),
    ]


def _run_sizes(options: Options, db: BenchDatabase, scratch: Path, report: _Report) -> None:
    for size in options.sizes:
        size_run = SizeRun(size, options, db, scratch)
        try:
            asyncio.run(size_run.run())
        except Exception as error:  # report the sizes that did finish, and why this one did not
            report.failures.append(f"size {size}: {type(error).__name__}: {error}")
            traceback.print_exc()
        report.figures.extend(size_run.figures)
        # A long run shows (and keeps) each size as soon as it is done.
        print(f"\n--- size {size:,} ---\n{table(size_run.figures)}", flush=True)
        report.save()


def run(options: Options) -> int:
    started = datetime.now(UTC)
    watch = Stopwatch()
    scratch = work_dir()
    report = _Report(
        started,
        {
            "started_at": started.isoformat(),
            "machine": describe_machine(),
            "revision": source_revision(),
            "options": options.as_dict(),
            "neo4j": {"version": NEO4J_VERSION, "instance": INSTANCE},
        },
    )
    try:
        say(f"starting Neo4j instance '{INSTANCE}'")
        with provisioned() as db:
            report.document["neo4j"].update(
                pid=db.pid, started_here=db.started_here, start_seconds=db.start_seconds
            )
            report.figures.extend(_setup_figures(db, options))
            _run_sizes(options, db, scratch, report)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report.figures.append(Figure(None, "setup", "whole run", watch.seconds, "s", None))
    report.document.update(finished_at=datetime.now(UTC).isoformat())
    machine = report.document["machine"]
    print(
        f"\nReverie benchmark, {started:%Y-%m-%d %H:%M} UTC: {machine['nproc']} CPUs "
        f"({machine['cpu_model']}), {machine['ram_gib']} GiB RAM, Neo4j {NEO4J_VERSION}, "
        f"revision {report.document['revision']}\n"
    )
    print(table(report.figures))
    for failure in report.failures:
        print(f"\nFAILED {failure}")
    print(f"\nJSON: {report.save()}")
    return 1 if report.failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return run(parse(argv))


if __name__ == "__main__":
    sys.exit(main())
