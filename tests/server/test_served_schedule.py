"""`reverie serve --transport http` dreams at night for the profiles its tokens serve, and for no
other profile of the same database: another's cycle would run on this server's settings and send
its memories to this server's model endpoint."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from graph.access import ProfileGraph
from graph.dreams.config import DreamingConfig, configure_dreaming
from graph.dreams.runs import recent_runs
from graph.memory.pipeline import RememberRequest, remember
from tests.server.conftest import http_serving

pytestmark = pytest.mark.anyio

DEFAULTS = DreamingConfig()
# Due since midnight UTC: the server's first tick, one second after its start, runs what it serves.
DUE_NOW = {"enabled": True, "timezone": "UTC", "start_time_local": "00:00"}
SHORT_GRACE = {"REVERIE_SCHEDULER_GRACE_SECONDS": "1"}


async def test_the_server_runs_its_own_profiles_night_and_no_other(
    server_env: dict[str, str], graph: ProfileGraph, other_graph: ProfileGraph, tmp_path: Path
) -> None:
    for profile, text in ((graph, "I bake rye bread on Sundays."), (other_graph, "I swim before work.")):
        await remember(profile, RememberRequest(content=text))
        await configure_dreaming(profile, DEFAULTS, DUE_NOW)
    try:
        with http_serving(server_env, graph.profile_id, tmp_path, **SHORT_GRACE), anyio.fail_after(90):
            while True:
                runs = (await recent_runs(graph)).runs
                if runs and runs[0].run.status != "running":
                    break
                await anyio.sleep(0.2)
    finally:
        for profile in (graph, other_graph):
            await configure_dreaming(profile, DEFAULTS, {"enabled": False})
    assert [(summary.run.trigger, summary.run.status) for summary in runs] == [("scheduled", "completed")]
    # The server has stopped, and a stop lets its tick finish: a cycle of the other profile in
    # that tick would be recorded by now.
    assert (await recent_runs(other_graph)).runs == []
