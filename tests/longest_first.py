"""The suite's tests, longest first, by how long each took in the last run on this machine.

pytest-xdist hands tests to its workers in collection order, so a test of a minute (a Neo4j of
its own, a wheel installed as a tool) collected last runs alone while the other worker waits at
the end. Started first, the long ones spread over both workers and the short ones fill in
behind them. Each run's times are kept under the user's cache, as the suite's other caches are;
a machine that has none runs in collection order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from graph.maven import reverie_cache


def _cache_file() -> Path:
    return reverie_cache() / "test-durations.json"


def last_durations() -> dict[str, float]:
    """Seconds per test id from the last run; nothing when there was none or it cannot be read."""
    try:
        seen = json.loads(_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(test): float(seconds) for test, seconds in seen.items()} if isinstance(seen, dict) else {}


def longest_first(items: list[pytest.Item], durations: Mapping[str, float]) -> None:
    """Sort `items` in place, longest first; the sort is stable, so unknown tests keep their order."""
    items.sort(key=lambda item: -durations.get(item.nodeid, 0.0))


def keep_durations(reports: Iterable[pytest.TestReport]) -> None:
    """Record this run's seconds per test (setup, call and teardown together) beside the last
    run's, so a run of one module does not forget the others."""
    durations = last_durations()
    measured: dict[str, float] = {}
    for report in reports:
        measured[report.nodeid] = measured.get(report.nodeid, 0.0) + report.duration
    durations.update(measured)
    target = _cache_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.with_suffix(".part")
    staged.write_text(json.dumps(durations, sort_keys=True), encoding="utf-8")
    staged.replace(target)
