"""Latency summaries and the one record every figure of the benchmark is reported as."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


def percentile(sorted_values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile of already sorted values (share in 0..1); NaN when empty."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(share * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass(frozen=True)
class Latency:
    """Milliseconds: p50/p95/p99, mean and max over `count` operations."""

    count: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        values = sorted(value * 1000 for value in seconds)
        mean = sum(values) / len(values) if values else math.nan
        return cls(
            count=len(values),
            p50_ms=percentile(values, 0.50),
            p95_ms=percentile(values, 0.95),
            p99_ms=percentile(values, 0.99),
            mean_ms=mean,
            max_ms=values[-1] if values else math.nan,
        )

    def text(self) -> str:
        return f"p50 {self.p50_ms:.1f} / p95 {self.p95_ms:.1f} / p99 {self.p99_ms:.1f} ms"


@dataclass
class Figure:
    """One measured figure: what, how much, and how many operations it rests on."""

    size: int | None
    section: str
    name: str
    value: float | str | None
    unit: str
    operations: int | None = None
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Stopwatch:
    """perf_counter seconds since creation (or the last `restart`)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def restart(self) -> None:
        self.started = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started
