"""`reverie serve --transport http` as a subprocess of the bench, on the bench's Neo4j."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.processes import RunningServer, free_port, serving
from graph.access import ConnectionSettings

REVERIE = Path(sys.executable).parent / "reverie"


@contextmanager
def reverie_http(
    settings: ConnectionSettings, work_dir: Path, tokens_file: Path, log_name: str, **extra_env: str
) -> Iterator[RunningServer]:
    """A server for the profiles `tokens_file` grants, without the nightly scheduler, with
    `extra_env` in its environment."""
    port = free_port()
    env = {
        **os.environ,
        "NEO4J_URI": settings.uri,
        "NEO4J_USERNAME": settings.username,
        "NEO4J_PASSWORD": settings.password,
        "REVERIE_TOKENS_FILE": str(tokens_file),
        "REVERIE_HOME": str(work_dir / "home"),
        **extra_env,
    }
    command = [
        str(REVERIE), "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port),
        "--no-scheduler",
    ]  # fmt: skip
    with serving(command, env, port, work_dir / log_name) as server:
        yield server


def mcp_url(server: RunningServer) -> str:
    return f"http://127.0.0.1:{server.port}/mcp"
