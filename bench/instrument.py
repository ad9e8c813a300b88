"""Counting Reverie's database round trips, per query name, inside the benchmark only.

`QueryLog.installed()` wraps `graph.access.ProfileTx.run` (which `single` also goes through)
for as long as the block lasts, counting calls and the time each took (the query and reading
its rows). Nothing in graph/ is changed; the original method is restored on exit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from graph.access import ProfileTx
from graph.scope import ScopedQuery


@dataclass
class QueryStat:
    calls: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0


@dataclass
class QueryLog:
    by_query: dict[str, QueryStat] = field(default_factory=dict)

    @property
    def round_trips(self) -> int:
        return sum(stat.calls for stat in self.by_query.values())

    @property
    def seconds(self) -> float:
        return sum(stat.seconds for stat in self.by_query.values())

    def record(self, name: str, seconds: float) -> None:
        stat = self.by_query.setdefault(name, QueryStat())
        stat.calls += 1
        stat.seconds += seconds
        stat.max_seconds = max(stat.max_seconds, seconds)

    def reset(self) -> None:
        self.by_query.clear()

    def top(self, count: int = 6) -> list[dict[str, Any]]:
        """The queries that took the most time in total, slowest first."""
        ranked = sorted(self.by_query.items(), key=lambda item: -item[1].seconds)[:count]
        return [
            {
                "query": name,
                "calls": stat.calls,
                "total_ms": round(stat.seconds * 1000, 1),
                "mean_ms": round(stat.seconds * 1000 / stat.calls, 2),
                "max_ms": round(stat.max_seconds * 1000, 1),
            }
            for name, stat in ranked
        ]

    @contextmanager
    def installed(self) -> Iterator[QueryLog]:
        original = ProfileTx.run

        async def counted(tx: ProfileTx, query: ScopedQuery, **params: Any) -> list[dict[str, Any]]:
            started = time.perf_counter()
            try:
                return await original(tx, query, **params)
            finally:
                self.record(getattr(query, "name", "?"), time.perf_counter() - started)

        ProfileTx.run = counted  # type: ignore[method-assign, assignment]
        try:
            yield self
        finally:
            ProfileTx.run = original  # type: ignore[method-assign]
