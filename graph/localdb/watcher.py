"""`python -m graph.localdb.watcher HOME INSTANCE PID IDLE_SECONDS`: the process that stops a
local Neo4j Reverie started on demand once no Reverie process has used it for IDLE_SECONDS
(`graph.localdb.idle` says how uses are counted). Started by `LocalNeo4j.start`, never by hand."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from graph.localdb.manager import LocalNeo4j

log = logging.getLogger(__name__)


def poll_interval(idle_seconds: float) -> float:
    """Often enough that the stop comes within a tenth of the idle time, never busier than 2/s."""
    return min(max(idle_seconds / 10, 0.5), 30.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graph.localdb.watcher")
    parser.add_argument("home", type=Path)
    parser.add_argument("instance")
    parser.add_argument("pid", type=int)
    parser.add_argument("idle_seconds", type=float)
    options = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(name)s: %(message)s")
    local = LocalNeo4j(options.home, options.instance)
    log.info("watching Neo4j pid %d: it stops after %.0f s unused", options.pid, options.idle_seconds)
    with contextlib.suppress(KeyboardInterrupt):
        outcome = local.watch_idle(options.pid, options.idle_seconds, poll_interval(options.idle_seconds))
        log.info("%s", outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main())
