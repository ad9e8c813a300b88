"""The machine's time zone, the default when no zone is set for dreaming."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from graph.clock import known_zone

pytestmark = pytest.mark.unit


def _zone_under(tz: str) -> str:
    # A fresh process: tzlocal keeps the zone it found for the life of the process.
    env = {**os.environ, "TZ": tz}
    script = "from server.settings import machine_timezone; print(machine_timezone())"
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
