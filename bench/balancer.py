"""HAProxy (Debian's package) in front of several `reverie serve --transport http` processes.

The tests and the capacity lane start it with a generated configuration and stop it again:
- round robin, each request on its own: on protocol 2026-07-28 every request stands alone, so
  any process answers any request;
- affinity on `Mcp-Session-Id` for the handshake era (2025-11-25 and earlier): a session lives
  in the memory of the process that answered its `initialize`, so the balancer learns the id from
  that response and sends the session's later requests to the same process;
- a dead process is found by a TCP check every second, and a request whose connection failed or
  got no answer is sent again to another process (`retry-on`): a remember that reached a process
  killed before it answered may then be stored twice unless it carries an idempotency key;
- `X-Reverie-Backend` on each response names the process that answered, for tests to see;
- optionally every request signed with one bearer token, for a client that cannot send one (the
  MCP conformance suite sends no Authorization header).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bench.processes import ServerStartError, serving

HAPROXY: Final = "haproxy"
BACKEND_HEADER: Final = "x-reverie-backend"
INSTALL_HINT: Final = "`make balancer` installs it as root, or run `apt-get install haproxy`"


class BalancerMissingError(RuntimeError):
    """HAProxy is not installed; the message says how to install it."""


@dataclass(frozen=True)
class Balancer:
    port: int
    config: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def balancer_config(port: int, backends: Sequence[int], bearer: str | None = None) -> str:
    """HAProxy's configuration for `backends` (ports on 127.0.0.1) behind 127.0.0.1:`port`;
    with `bearer`, every request carries it as its Authorization, whatever the client sent."""
    signing = f'    http-request set-header Authorization "Bearer {bearer}"\n' if bearer else ""
    servers = "\n".join(
        f"    server s{index} 127.0.0.1:{backend} check inter 1s fall 1 rise 2"
        for index, backend in enumerate(backends)
    )
    return f"""global
    maxconn 1024
    log stdout format raw local0 info

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 300s
    timeout server 300s
    timeout http-request 30s
    option http-buffer-request
    retries 3
    retry-on conn-failure empty-response response-timeout
    option redispatch 1

frontend mcp
    bind 127.0.0.1:{port}
{signing}    default_backend reverie

backend reverie
    balance roundrobin
    stick-table type string len 128 size 100k expire 1h
    stick match req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
    http-response set-header {BACKEND_HEADER} %s
{servers}
"""


def haproxy_path() -> str:
    found = shutil.which(HAPROXY) or shutil.which(f"/usr/sbin/{HAPROXY}")
    if found is None:
        raise BalancerMissingError(f"HAProxy is not installed: {INSTALL_HINT}.")
    return found


def _checked(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServerStartError(f"haproxy refused its configuration:\n{done.stdout}{done.stderr}")


@contextmanager
def balancing(
    backends: Sequence[int], work_dir: Path, port: int, bearer: str | None = None
) -> Iterator[Balancer]:
    """HAProxy in the foreground until the block ends, on `port` in front of `backends` (signing
    every request with `bearer`, if given). Each backend answers the balancer's Host header only
    if told to (REVERIE_ALLOWED_HOSTS)."""
    haproxy = haproxy_path()
    config = work_dir / "haproxy.cfg"
    config.write_text(balancer_config(port, backends, bearer), encoding="utf-8")
    _checked([haproxy, "-c", "-q", "-f", str(config)])
    with serving([haproxy, "-db", "-f", str(config)], {}, port, work_dir / "haproxy.log"):
        yield Balancer(port, config)
