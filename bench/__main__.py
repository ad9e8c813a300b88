"""`python -m bench`: run every size, print the table, write the JSON."""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bench.database import INSTANCE, provisioned
from bench.machine import describe_machine, source_revision
from bench.options import Options, parse
from bench.report import results_path, table, write_json
from bench.runner import SizeRun, say, work_dir
from bench.stats import Figure, Stopwatch
from bench.warmup import warm_up
from graph.localdb import NEO4J_VERSION


def run(options: Options) -> int:
    figures: list[Figure] = []
    failures: list[str] = []
    started = datetime.now(UTC)
    watch = Stopwatch()
    scratch = work_dir()
    json_path = results_path(started)
    document: dict[str, Any] = {
        "started_at": started.isoformat(),
        "machine": describe_machine(),
        "revision": source_revision(),
        "options": options.as_dict(),
        "neo4j": {"version": NEO4J_VERSION, "instance": INSTANCE},
    }
    try:
        say(f"starting Neo4j instance '{INSTANCE}'")
        with provisioned() as db:
            document["neo4j"].update(pid=db.pid, started_here=db.started_here, start_seconds=db.start_seconds)
            figures.append(
                Figure(
                    None,
                    "setup",
                    f"Neo4j '{INSTANCE}' start",
                    db.start_seconds,
                    "s",
                    1,
                    "already running: reused" if not db.started_here else "started by the bench",
                )
            )
            say("warming Neo4j up on a throwaway profile")
            figures.append(
                Figure(
                    None,
                    "setup",
                    "warm-up (remember, recall, dream on a throwaway profile)",
                    asyncio.run(warm_up(db, options.seed)),
                    "s",
                    None,
                    "not measured; removed by the wipe",
                )
            )
            for size in options.sizes:
                size_run = SizeRun(size, options, db, scratch)
                try:
                    asyncio.run(size_run.run())
                except Exception as error:  # report the sizes that did finish, and why this one did not
                    failures.append(f"size {size}: {type(error).__name__}: {error}")
                    traceback.print_exc()
                figures.extend(size_run.figures)
                # A long run shows (and keeps) each size as soon as it is done.
                print(f"\n--- size {size:,} ---\n{table(size_run.figures)}", flush=True)
                document.update(figures=[figure.as_dict() for figure in figures], failures=failures)
                write_json(json_path, document)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures.append(Figure(None, "setup", "whole run", watch.seconds, "s", None))
    document.update(
        finished_at=datetime.now(UTC).isoformat(),
        figures=[figure.as_dict() for figure in figures],
        failures=failures,
    )
    machine = document["machine"]
    print(
        f"\nReverie benchmark, {started:%Y-%m-%d %H:%M} UTC: {machine['nproc']} CPUs "
        f"({machine['cpu_model']}), {machine['ram_gib']} GiB RAM, Neo4j {NEO4J_VERSION}, "
        f"revision {document['revision']}\n"
    )
    print(table(figures))
    for failure in failures:
        print(f"\nFAILED {failure}")
    print(f"\nJSON: {write_json(json_path, document)}")
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return run(parse(argv))


if __name__ == "__main__":
    sys.exit(main())
