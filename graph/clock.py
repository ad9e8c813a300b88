"""Time as Reverie keeps it: aware UTC datetimes, IANA zone names checked in one place, and the
machine's own zone."""

from __future__ import annotations

from datetime import UTC, datetime, timezone
from typing import overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import tzlocal


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """A time given without an offset is read as UTC; one in a named zone keeps its instant and
    its offset, without the zone's name.

    Neo4j stores a naive time as a LocalDateTime, which never compares with a zoned DateTime
    (the comparison is null), so a naive validity bound would silently hide a fact from every
    `valid_at` search, and comparing it with an aware one in Python raises. A named zone must
    not reach the driver either: its encoder (neo4j 6.4) asks the zone for the offset of its own
    DateTime, which Python's C zoneinfo reads as if it were a datetime, so the time is sent an
    hour off on some calls and the process crashes on others (seen here with Python 3.11).
    """
    if value is None or isinstance(value.tzinfo, timezone):
        return value
    offset = value.utcoffset()
    return value.replace(tzinfo=UTC if offset is None else timezone(offset))


def storable_time(value: datetime) -> datetime:
    """`value` (read as UTC without an offset) when it lies within years 1 to 9999 in UTC, as
    Neo4j and the driver keep times; a ValueError saying so otherwise."""
    aware = as_utc(value)
    try:
        aware.astimezone(UTC)
    except OverflowError:
        raise ValueError(
            f"{value.isoformat()} falls outside years 1 to 9999 in UTC; give a time within them"
        ) from None
    return aware


def known_zone(name: str) -> str:
    """`name` when it is an IANA time zone this machine knows; a ValueError saying so otherwise."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # OSError: a name longer than a file name can be, looked up as a file of the zone database.
        shown = name if len(name) <= 60 else f"{name[:60]}... ({len(name)} characters)"
        raise ValueError(f"expected an IANA time zone name such as Europe/Lisbon, got {shown!r}") from None
    return name


def machine_timezone() -> str:
    """The machine's zone as an IANA name (never an opaque 'Local'), UTC when it cannot be told."""
    try:
        # tzlocal reads TZ, then the distribution's files; it raises when they name different zones.
        return known_zone(tzlocal.get_localzone_name() or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
