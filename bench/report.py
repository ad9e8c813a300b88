"""The table printed at the end, and the same figures as JSON under bench/results/."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.stats import Figure

RESULTS_DIR = Path(__file__).with_name("results")
_HEADERS = ("size", "section", "figure", "value", "unit", "ops", "note")


def _value(value: float | str | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if math.isnan(value):
        return "n/a"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def _size(size: int | None) -> str:
    return "-" if size is None else f"{size:,}"


def table(figures: Sequence[Figure]) -> str:
    rows = [
        (
            _size(f.size),
            f.section,
            f.name,
            _value(f.value),
            f.unit,
            "-" if f.operations is None else f"{f.operations:,}",
            f.note,
        )
        for f in figures
    ]
    widths = [
        max(len(header), *(len(row[i]) for row in rows)) if rows else len(header)
        for i, header in enumerate(_HEADERS)
    ]
    # The note column is last and free-running, so it never forces the table wider.
    widths[-1] = len(_HEADERS[-1])
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(_HEADERS, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    previous: tuple[str, str] | None = None
    for row in rows:
        if previous is not None and (row[0], row[1]) != previous and row[0] != previous[0]:
            lines.append("")
        previous = (row[0], row[1])
        cells = [
            row[0].rjust(widths[0]),
            row[1].ljust(widths[1]),
            row[2].ljust(widths[2]),
            row[3].rjust(widths[3]),
            row[4].ljust(widths[4]),
            row[5].rjust(widths[5]),
            row[6],
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def results_path(started: datetime, kind: str = "bench") -> Path:
    return RESULTS_DIR / f"{kind}-{started.astimezone(UTC):%Y%m%dT%H%M%SZ}.json"


def write_json(path: Path, document: dict[str, Any]) -> Path:
    """Write (or rewrite, as sizes finish) the run's JSON atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(document, indent=2, default=str) + "\n")
    partial.replace(path)
    return path
