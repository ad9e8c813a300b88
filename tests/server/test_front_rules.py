"""The front door's and the sign-in throttle's rules, without a server."""

from __future__ import annotations

import pytest

from server.http_front import HostAllowList
from server.review.throttle import SignInThrottle
from tests.manual_clock import ManualClock

pytestmark = pytest.mark.unit


def test_the_throttle_refuses_an_address_after_its_limit_until_the_window_passes() -> None:
    clock = ManualClock(1000.0)
    throttle = SignInThrottle(limit=3, window_s=60, clock=clock)
    for _ in range(3):
        assert throttle.wait_s("10.0.0.1") == 0
        throttle.failed("10.0.0.1")
        clock.now += 1
    assert throttle.wait_s("10.0.0.1") == 57
    assert throttle.wait_s("10.0.0.2") == 0
    clock.now += 57
    assert throttle.wait_s("10.0.0.1") == 0


def test_the_throttle_table_keeps_a_bounded_number_of_addresses() -> None:
    throttle = SignInThrottle(limit=2, capacity=100, clock=ManualClock(1000.0))
    for number in range(10_000):
        throttle.failed(f"10.0.{number // 256}.{number % 256}")
        throttle.failed(f"10.0.{number // 256}.{number % 256}")
    assert len(throttle._failures) == 100
    assert max(len(failures) for failures in throttle._failures.values()) == 2
    assert throttle.wait_s("10.0.39.15") > 0  # the last one to fail is still remembered


def test_the_host_list_names_the_server_its_loopback_names_and_the_configured_hosts() -> None:
    loopback = HostAllowList.for_server("127.0.0.1", 8765, ["memory.example.org", "10.0.0.5:9000"])
    for host in (
        "127.0.0.1:8765",
        "LOCALHOST:8765",
        "[::1]:8765",
        "memory.example.org",
        "memory.example.org:443",
    ):
        assert loopback.allows(host), host
    for host in ("evil.example", "127.0.0.1:8766", "localhost", "10.0.0.5", "10.0.0.5:9001", "", None):
        assert not loopback.allows(host), host
    public = HostAllowList.for_server("192.0.2.7", 8765)
    assert public.allows("192.0.2.7:8765") and not public.allows("localhost:8765")
    security = loopback.transport_security()
    assert "memory.example.org:*" in security.allowed_hosts and "10.0.0.5:9000" in security.allowed_hosts
    assert "https://memory.example.org:*" in security.allowed_origins
