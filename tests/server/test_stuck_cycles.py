"""A process killed mid-cycle does not hold its profile: its lease lapses within one lease length
(REVERIE_CYCLE_LEASE_SECONDS, short here so the test does not wait out a minute), dreaming_status
tells the truth meanwhile, and an operator can release the lock at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import anyio
import pytest
from mcp import Client

from graph.dreams.lease import ABANDONED, RELEASED, CycleLease
from tests.server.conftest import CallTool, error_text, reverie_in_process
from tests.server.support import MEMORIES

pytestmark = pytest.mark.anyio

SHORT_LEASE = CycleLease(timedelta(seconds=6))

# A dreaming process that stops after its first phase and waits there, to be killed. It takes
# its lease from the settings, as a server does.
HOLDER = """
import os, anyio
from graph.access import ConnectionSettings, GraphStore
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from server.settings import load_settings

async def hang(done, total, message):
    print("holding", flush=True)
    await anyio.sleep_forever()

async def main():
    env = os.environ
    settings = ConnectionSettings(env["NEO4J_URI"], env["NEO4J_USERNAME"], env["NEO4J_PASSWORD"])
    store = GraphStore.connect(settings)
    graph = store.profile(env["REVERIE_PROFILE"])
    lease = load_settings().cycle_lease()
    await run_cycle(graph, DreamingConfig(), CycleRequest(), progress=hang, lease=lease)

anyio.run(main)
"""


@contextmanager
def killed_holder(server_env: dict[str, str]) -> Iterator[None]:
    """A cycle of this profile whose process was killed with SIGKILL after its first phase."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        env=server_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "holding", process.stderr.read() if process.stderr else line
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        yield
    finally:
        if process.poll() is None:
            process.kill()


async def remembered(call: CallTool) -> None:
    for text in MEMORIES[:4]:
        await call("remember", content=text)


async def latest(call: CallTool) -> dict[str, Any]:
    run: dict[str, Any] = (await call("dreaming_status"))["latest_run"]
    return run


async def test_a_killed_cycle_frees_its_profile_once_its_lease_lapses(
    call: CallTool, client: Client, server_env: dict[str, str]
) -> None:
    await remembered(call)
    short = str(int(SHORT_LEASE.length.total_seconds()))
    with killed_holder(server_env | {"REVERIE_CYCLE_LEASE_SECONDS": short}):
        held = await latest(call)
        assert held["status"] == "running" and held["lease_expires_at"]
        refused = await client.call_tool("run_dreaming_cycle", {"max_outputs": 3})
        assert held["run_id"] in error_text(refused) and "already running" in error_text(refused)

        # The dead process renews nothing: within one lease (plus a heartbeat of slack) the
        # status says so, and a new cycle runs.
        deadline = time.monotonic() + (SHORT_LEASE.length + SHORT_LEASE.heartbeat).total_seconds() + 10
        while (await latest(call))["status"] == "running":
            assert time.monotonic() < deadline, "the dead holder's lease never lapsed"
            await anyio.sleep(2)
        abandoned = await latest(call)
        assert abandoned["status"] == "interrupted" and abandoned["error"] == ABANDONED
        run = await call("run_dreaming_cycle", max_outputs=3)
        assert run["status"] == "completed"


async def test_an_operator_releases_a_dead_holders_lock_at_once(
    call: CallTool, server_env: dict[str, str], profile_id: str
) -> None:
    await remembered(call)
    with killed_holder(server_env):
        held = await latest(call)
        released = await reverie_in_process(server_env, "dream", "unlock", "--profile", profile_id)
        assert released.returncode == 0, released.stderr
        assert held["run_id"] in released.stdout
        after = await latest(call)
        assert after["status"] == "interrupted" and after["error"] == RELEASED
        assert (await call("run_dreaming_cycle", max_outputs=3))["status"] == "completed"
        again = await reverie_in_process(server_env, "dream", "unlock", "--profile", profile_id)
        assert "no cycle held this profile" in again.stdout
