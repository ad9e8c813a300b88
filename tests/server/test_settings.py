"""The machine's time zone, the default when no zone is set for dreaming; the cycle lease's length;
the managed Neo4j's memory and idle stop."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta

import pytest

from graph.clock import known_zone
from graph.dreams.lease import DEFAULT_LEASE
from graph.localdb.memory import DEFAULT_MEMORY, NAMED_SIZES, Neo4jMemory
from server.settings import SettingsError, load_settings

pytestmark = pytest.mark.unit


def _zone_under(tz: str) -> str:
    # A fresh process: tzlocal keeps the zone it found for the life of the process. The module
    # imports little, so each process is quick.
    env = {**os.environ, "TZ": tz}
    script = "from graph.clock import machine_timezone; print(machine_timezone())"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("tz", "zone"),
    [
        ("Europe/Lisbon", "Europe/Lisbon"),
        (":Asia/Tokyo", "Asia/Tokyo"),  # POSIX allows a leading colon
        ("/usr/share/zoneinfo/America/New_York", "America/New_York"),  # a path into the zone database
    ],
)
def test_the_tz_variable_names_the_machines_zone(tz: str, zone: str) -> None:
    assert _zone_under(tz) == zone


def test_a_tz_that_names_no_zone_falls_back_to_the_machines_files() -> None:
    from_files = _zone_under("")
    assert _zone_under("Not/A_Zone") == from_files
    assert known_zone(from_files) == from_files  # an IANA name, never "Local"


def test_the_cycle_lease_is_a_minute_unless_set_and_renewed_four_times_per_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REVERIE_CYCLE_LEASE_SECONDS", raising=False)
    assert load_settings().cycle_lease() == DEFAULT_LEASE
    assert DEFAULT_LEASE.length == timedelta(seconds=60)
    monkeypatch.setenv("REVERIE_CYCLE_LEASE_SECONDS", "8")
    lease = load_settings().cycle_lease()
    assert (lease.length, lease.heartbeat) == (timedelta(seconds=8), timedelta(seconds=2))


@pytest.mark.parametrize("seconds", ["4", "3601", "a minute"])
def test_a_cycle_lease_out_of_bounds_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, seconds: str
) -> None:
    monkeypatch.setenv("REVERIE_CYCLE_LEASE_SECONDS", seconds)
    with pytest.raises(SettingsError, match="REVERIE_CYCLE_LEASE_SECONDS"):
        load_settings()


@pytest.mark.parametrize(
    ("given", "memory"),
    [
        (None, DEFAULT_MEMORY),
        ("small", NAMED_SIZES["small"]),
        ("LARGE", NAMED_SIZES["large"]),
        ("heap=768m, pagecache=1g", Neo4jMemory(heap_mb=768, pagecache_mb=1024)),
        ("pagecache=64M,heap=300m", Neo4jMemory(heap_mb=300, pagecache_mb=64)),
    ],
)
def test_the_neo4j_memory_is_a_named_size_or_a_heap_and_page_cache(
    monkeypatch: pytest.MonkeyPatch, given: str | None, memory: Neo4jMemory
) -> None:
    if given is None:
        monkeypatch.delenv("REVERIE_NEO4J_MEMORY", raising=False)
    else:
        monkeypatch.setenv("REVERIE_NEO4J_MEMORY", given)
    assert load_settings().neo4j_memory() == memory


@pytest.mark.parametrize(
    "given",
    ["huge", "heap=1g", "heap=1g,pagecache=1g,stack=1m", "heap=1t,pagecache=1g", "heap=128m,pagecache=1g"],
)
def test_a_neo4j_memory_neo4j_cannot_use_is_refused_saying_what_is_accepted(
    monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setenv("REVERIE_NEO4J_MEMORY", given)
    with pytest.raises(SettingsError, match=r"REVERIE_NEO4J_MEMORY.*small, desktop, large or heap=SIZE"):
        load_settings()


def test_the_managed_neo4j_stops_after_a_quarter_hour_unused_unless_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REVERIE_NEO4J_IDLE_SECONDS", raising=False)
    assert load_settings().neo4j_stop_when_idle() == 900
    monkeypatch.setenv("REVERIE_NEO4J_IDLE_SECONDS", "0")
    assert load_settings().neo4j_stop_when_idle() is None
    monkeypatch.setenv("REVERIE_NEO4J_IDLE_SECONDS", "-1")
    with pytest.raises(SettingsError, match="REVERIE_NEO4J_IDLE_SECONDS"):
        load_settings()
