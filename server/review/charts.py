"""Geometry of the review page's small pictures, computed here so templates only draw."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.dreams.models import DreamStatus, RunSummary

# Drawn bottom-up in this order; each status has its own colour class in review.css.
CHART_STATUSES = (
    DreamStatus.PROMOTED,
    DreamStatus.CONFIRMED,
    DreamStatus.REINFORCED,
    DreamStatus.PROPOSED,
    DreamStatus.STALE,
    DreamStatus.REJECTED,
)
CHART_HEIGHT = 120
BAR_WIDTH = 22
BAR_GAP = 10


@dataclass(frozen=True)
class Segment:
    status: DreamStatus
    count: int
    y: float
    height: float


@dataclass(frozen=True)
class NightBar:
    x: float
    label: str
    total: int
    failed: bool
    segments: tuple[Segment, ...]


def night_bars(runs: Sequence[RunSummary]) -> list[NightBar]:
    """One stacked bar per run, oldest on the left, scaled to the busiest run."""
    tallest = max((sum(summary.dreams.values()) for summary in runs), default=0) or 1
    bars = []
    for index, summary in enumerate(reversed(runs)):
        bottom = float(CHART_HEIGHT)
        segments = []
        for status in CHART_STATUSES:
            count = summary.dreams.get(status, 0)
            if count:
                height = CHART_HEIGHT * count / tallest
                bottom -= height
                segments.append(Segment(status, count, round(bottom, 1), round(height, 1)))
        bars.append(
            NightBar(
                x=index * (BAR_WIDTH + BAR_GAP),
                label=summary.run.run_date[5:],
                total=sum(summary.dreams.values()),
                failed=summary.run.status == "error",
                segments=tuple(segments),
            )
        )
    return bars


def chart_width(bars: Sequence[NightBar]) -> int:
    return max(len(bars), 1) * (BAR_WIDTH + BAR_GAP)
