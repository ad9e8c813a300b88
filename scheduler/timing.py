"""When a profile's nightly cycle is due, in its own wall-clock time.

Arithmetic is done in UTC and only converted to local time at the edges, because adding a
timedelta to an aware local datetime is wall-clock arithmetic that loses DST folds.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from graph.dreams.config import DreamingConfig


def parse_start_time(value: str) -> time:
    hours, minutes = value.split(":")
    return time(int(hours), int(minutes))


def _exists(local: datetime) -> bool:
    return local.astimezone(UTC).astimezone(local.tzinfo).replace(tzinfo=None) == local.replace(tzinfo=None)


def due_at(day: date, start_time_local: str, timezone: str) -> datetime:
    """The UTC instant of `day`'s run. A start time skipped by a spring-forward jump moves to the
    first valid minute after it; one repeated by a fall-back hour runs at its first occurrence."""
    zone = ZoneInfo(timezone)
    local = datetime.combine(day, parse_start_time(start_time_local), tzinfo=zone)
    while not _exists(local):
        local = (local.replace(tzinfo=None) + timedelta(minutes=1)).replace(tzinfo=zone)
    return local.replace(fold=0).astimezone(UTC)


def next_due(now: datetime, start_time_local: str, timezone: str) -> datetime:
    """The first run instant strictly after `now`."""
    today = now.astimezone(ZoneInfo(timezone)).date()
    for offset in range(3):
        candidate = due_at(today + timedelta(days=offset), start_time_local, timezone)
        if candidate > now:
            return candidate
    raise AssertionError("a daily time is always due within three days")


def next_run(now: datetime, config: DreamingConfig) -> datetime | None:
    """The profile's next nightly run, in its own time zone; None when its nightly dreaming is off."""
    if not config.enabled:
        return None
    return next_due(now, config.start_time_local, config.timezone).astimezone(ZoneInfo(config.timezone))
