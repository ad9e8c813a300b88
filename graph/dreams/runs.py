"""Reading a profile's past dreaming runs."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from graph.access import ProfileGraph, ProfileTx
from graph.dreams import queries as q
from graph.dreams.models import DreamRun, DreamStatus, PhaseReport, RunSummary
from graph.errors import InvalidInputError

MAX_RUNS_LIMIT = 100


def run_from_record(record: dict[str, Any]) -> DreamRun:
    """A stored run; its phase reports are kept as one JSON text so a run is a single node."""
    return DreamRun(
        run_id=record["id"],
        trigger=record["trigger"],
        run_date=record["run_date"],
        status=record["status"],
        started_at=record["started_at"],
        completed_at=record.get("completed_at"),
        late=record.get("late") or False,
        phases=[PhaseReport(**phase) for phase in json.loads(record.get("phases") or "[]")],
        error=record.get("error"),
    )


async def recent_runs(graph: ProfileGraph, limit: int = 14) -> list[RunSummary]:
    """The latest runs, newest first, each with its dreams counted by their status today."""
    if not 1 <= limit <= MAX_RUNS_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_RUNS_LIMIT}.")
    rows = await graph.read(ProfileTx.run, q.RECENT_RUNS, limit=limit)
    return [
        RunSummary(
            run=run_from_record(row["run"]),
            dreams=dict(Counter(DreamStatus(status) for status in row["dream_statuses"])),
        )
        for row in rows
    ]
