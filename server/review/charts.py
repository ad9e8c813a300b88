"""Geometry of the review page's small pictures, computed here so templates only draw."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from graph.dreams.models import DreamSource, DreamStatus, RunSummary

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
# Room between bars for a label as wide as "06:41:10" under each.
BAR_GAP = 22


@dataclass(frozen=True)
class Segment:
    status: DreamStatus
    count: int
    y: float
    height: float


@dataclass(frozen=True)
class NightBar:
    x: float
    # Under the bar: its night ("28 Nov"), or its start time when several runs share that night.
    label: str
    # Under the first of several runs of one night: that night, so the times have their date.
    shared_night: str
    total: int
    failed: bool
    segments: tuple[Segment, ...]


def _stack(summary: RunSummary, tallest: int) -> tuple[Segment, ...]:
    bottom = float(CHART_HEIGHT)
    segments = []
    for status in CHART_STATUSES:
        count = summary.dreams.get(status, 0)
        if count:
            height = CHART_HEIGHT * count / tallest
            bottom -= height
            segments.append(Segment(status, count, round(bottom, 1), round(height, 1)))
    return tuple(segments)


def night_words(run_date: str) -> str:
    return date.fromisoformat(run_date).strftime("%-d %b")


def _start_times(runs: Sequence[RunSummary], zone: ZoneInfo) -> dict[datetime, str]:
    """Each run's start as the hour and minute in the profile's zone; with the seconds when two
    runs of one night started within one minute, so no two bars of a night read the same."""

    def minute(summary: RunSummary) -> tuple[str, str]:
        return summary.run.run_date, summary.run.started_at.astimezone(zone).strftime("%H:%M")

    per_minute = Counter(map(minute, runs))
    return {
        summary.run.started_at: summary.run.started_at.astimezone(zone).strftime(
            "%H:%M" if per_minute[minute(summary)] == 1 else "%H:%M:%S"
        )
        for summary in runs
    }


def night_bars(runs: Sequence[RunSummary], timezone: str) -> list[NightBar]:
    """One stacked bar per run, oldest on the left, scaled to the busiest run."""
    tallest = max((sum(summary.dreams.values()) for summary in runs), default=0) or 1
    starts = _start_times(runs, ZoneInfo(timezone))
    per_night = Counter(summary.run.run_date for summary in runs)
    bars, previous = [], None
    for index, summary in enumerate(reversed(runs)):
        night = summary.run.run_date
        shared = per_night[night] > 1
        bars.append(
            NightBar(
                x=index * (BAR_WIDTH + BAR_GAP),
                label=starts[summary.run.started_at] if shared else night_words(night),
                shared_night=night_words(night) if shared and night != previous else "",
                total=sum(summary.dreams.values()),
                failed=summary.run.status == "error",
                segments=_stack(summary, tallest),
            )
        )
        previous = night
    return bars


def chart_width(bars: Sequence[NightBar]) -> int:
    return max(len(bars), 1) * (BAR_WIDTH + BAR_GAP)


# A dream's picture: its memories in time order along one line, each circle showing its date.
# Wide for a desktop (a row), tall for a phone (a column, drawn at about its real size so its
# words stay readable); review.css shows one of them.
PICTURE_WIDE_WIDTH = 600
PICTURE_RADIUS = 30
# The row's line near the top: the dream's why is printed just above the picture, not in it.
WIDE_LINE_Y = 40
PICTURE_TALL_WIDTH = 340
TALL_STEP = 72
WIDE_MARGIN = 90
TALL_X = 40
# Where a column's snippet starts, right of its circle.
TALL_SNIPPET_X = TALL_X + PICTURE_RADIUS + 12
# A character of 12-13 px is about this wide, on average; a snippet is cut to fit its space.
CHAR_PX = 7.5


@dataclass(frozen=True)
class PictureNode:
    x: float
    y: float
    day: str
    year: str
    snippet: str
    active: bool


@dataclass(frozen=True)
class DreamPicture:
    wide: tuple[PictureNode, ...]
    tall: tuple[PictureNode, ...]
    radius: int
    tall_height: int


def _snippet(text: str, room_px: float) -> str:
    """The memory's first words that fit, cut at a word; empty once its words are gone."""
    limit = max(int(room_px / CHAR_PX), 6)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"


def dream_picture(sources: Sequence[DreamSource]) -> DreamPicture | None:
    """Where each of a dream's memories is drawn; None when there is no link to draw."""
    if len(sources) < 2:
        return None
    step = (PICTURE_WIDE_WIDTH - 2 * WIDE_MARGIN) / (len(sources) - 1)
    wide, tall = [], []
    for index, source in enumerate(sources):
        day, year = (source.at.strftime("%-d %b"), source.at.strftime("%Y")) if source.at else ("undated", "")
        wide_snippet = _snippet(source.text, min(step, 2 * WIDE_MARGIN) - 8)
        tall_snippet = _snippet(source.text, PICTURE_TALL_WIDTH - TALL_SNIPPET_X - 16)
        wide.append(
            PictureNode(WIDE_MARGIN + step * index, WIDE_LINE_Y, day, year, wide_snippet, source.active)
        )
        tall.append(
            PictureNode(TALL_X, TALL_STEP // 2 + TALL_STEP * index, day, year, tall_snippet, source.active)
        )
    return DreamPicture(tuple(wide), tuple(tall), radius=PICTURE_RADIUS, tall_height=TALL_STEP * len(sources))
