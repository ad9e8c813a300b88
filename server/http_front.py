"""The HTTP server's front door: what every request passes before MCP or the review page sees it.

- The Host header must name this server (its address and port, the loopback names when bound to
  loopback, every local address when bound to all, and REVERIE_ALLOWED_HOSTS); anything else is
  421, for /mcp and the review page alike. A page served under a name an attacker controls (DNS
  rebinding) could otherwise sign in and post forms as a same-origin page. Host names are
  case-insensitive: the header is passed on in lower case, so the checks behind (the MCP SDK's
  own, the review page's Origin) see the name as this list does.
- A body is read whole, within a deadline and a size limit, before anything acts on it: a review
  form's here, an MCP message's once the SDK has authenticated its sender (`McpBodies`), so a
  client without a valid token gets its 401 at once. A body that trickles is cut off (408), an
  oversized one refused (413), and a client that leaves mid-body costs one log line instead of a
  traceback. A response that starts before the body was read whole closes the connection.
- A redirect's Location back to this server is made relative, so it never repeats a Host header
  back; a redirect elsewhere (a connector's registered callback, after consent) is left whole.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import psutil
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.text import log_safe
from server.connectors.discovery import ScopeChallenge
from server.lone_surrogates import mended_request
from server.review import ROOT as REVIEW_ROOT
from server.settings import ReverieSettings

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
# The largest form of the page (feedback with a statement) is a few KiB even percent-encoded.
MAX_FORM_BYTES = 64 * 1024
# An MCP message: the SDK's own limit, which it would apply after reading the body itself.
MAX_MCP_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE
# uvicorn's own limits, stated rather than inherited. Connections and tasks at once (an MCP host
# holds one or two; past this uvicorn answers 503 rather than running out of file descriptors).
MAX_CONCURRENCY = 256
# Seconds an idle keep-alive connection stays open (uvicorn's default).
KEEP_ALIVE_S = 5
# Bytes of a request's head h11 buffers before refusing it (uvicorn's default).
MAX_HEAD_BYTES = 16 * 1024
_WILDCARDS = {"0.0.0.0", "::", ""}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """'name:port' -> 'name', '[::1]:80' -> '[::1]'; a bare name stays as it is."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _local_names() -> set[str]:
    """Every address of this machine's interfaces, and its names: who a wildcard bind answers to."""
    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family in (socket.AF_INET, socket.AF_INET6):
                names.add(_bracketed(address.address.split("%", 1)[0]))
    return names


@dataclass(frozen=True)
class HostAllowList:
    """Host header values this server answers: 'name:port' exactly, or a bare 'name' at any port."""

    entries: frozenset[str]

    @classmethod
    def for_server(cls, bind_host: str, port: int, configured: Iterable[str] = ()) -> HostAllowList:
        names = {_bracketed(bind_host.lower())}
        if bind_host in _WILDCARDS:
            names = _local_names()
        if bind_host in _WILDCARDS or is_loopback(bind_host):
            names |= {"127.0.0.1", "localhost", "[::1]"}
        return cls(frozenset({f"{name}:{port}" for name in names} | {host.lower() for host in configured}))

    def allows(self, host: str | None) -> bool:
        if not host:
            return False
        host = host.lower()
        return host in self.entries or _host_name(host) in self.entries

    def transport_security(self) -> TransportSecuritySettings:
        """The same list in the MCP SDK's terms, for its own Host and Origin checks on /mcp."""
        bare = {f"{entry}:*" for entry in self.entries if _host_name(entry) == entry}
        hosts = sorted(self.entries | bare)
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")],
        )


async def _answer(scope: Scope, receive: Receive, send: Send, status: int, text: str) -> None:
    await PlainTextResponse(text, status_code=status)(scope, receive, send)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` with the body already read handed out first, whole, in one message."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


@dataclass(frozen=True)
class BodyLimits:
    what: str  # what the body is, to say what was refused: "A form of this page"
    max_bytes: int
    timeout_s: float


async def read_body(scope: Scope, receive: Receive, send: Send, limits: BodyLimits) -> bytes | None:
    """The request's body, read whole; None when the request was answered (413, 408) or abandoned here."""
    declared = Headers(scope=scope).get("content-length", "")
    too_big = f"{limits.what} is at most {limits.max_bytes // 1024} KiB; nothing was done."
    if declared.isdigit() and int(declared) > limits.max_bytes:
        await _answer(scope, receive, send, 413, too_big)
        return None
    body = bytearray()
    with anyio.move_on_after(limits.timeout_s):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                where = log_safe(f"{scope['method']} {scope['path']}")
                log.info("%s: the client left after %d of %s body bytes.", where, len(body), declared or "?")
                return None
            body += message.get("body", b"")
            if len(body) > limits.max_bytes:
                await _answer(scope, receive, send, 413, too_big)
                return None
            if not message.get("more_body", False):
                return bytes(body)
    text = f"The request's body did not arrive within {limits.timeout_s:g} s; nothing was done."
    await _answer(scope, receive, send, 408, text)
    return None


class _BodyWatch:
    """`receive` and `send` of one request, such that a response started before the request's
    body was read whole says `Connection: close`: what is left of the body cannot be told from a
    next request, and a client still trickling it would otherwise keep the connection."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        self.unread = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        self._receive, self._send = receive, send

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.unread = False
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start" and self.unread:
            message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
        await self._send(message)


def _relative_redirects(send: Send, own_names: frozenset[str]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
            headers = [
                (key, _relative(value, own_names) if key.lower() == b"location" else value)
                for key, value in message.get("headers", [])
            ]
            message = {**message, "headers": headers}
        await send(message)

    return sending


def _relative(location: bytes, own_names: frozenset[str]) -> bytes:
    """The Location without scheme and host when it points at this server (no host, the
    request's own Host, or the public URL's); any other is a redirect away, kept whole."""
    parts = urlsplit(location.decode("latin-1"))
    if parts.netloc and parts.netloc.lower() not in own_names:
        return location
    return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment)).encode("latin-1")


def _lower_case_host(scope: Scope) -> Scope:
    headers = [(key, value.lower() if key == b"host" else value) for key, value in scope["headers"]]
    return {**scope, "headers": headers}


@dataclass(frozen=True)
class FrontDoor:
    """ASGI middleware around the whole app (see the module's docstring)."""

    app: ASGIApp
    hosts: HostAllowList
    body_timeout_s: float
    # The host (and port) of REVERIE_PUBLIC_URL, when set.
    public_host: str | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        own_names = frozenset(filter(None, [Headers(scope=scope).get("host", "").lower(), self.public_host]))
        watch = _BodyWatch(scope, receive, _relative_redirects(send, own_names))
        receive, send = watch.receive, watch.send
        if not self.hosts.allows(Headers(scope=scope).get("host")):
            await _answer(
                scope,
                receive,
                send,
                421,
                "This server does not answer to the name in the Host header; use its own address "
                "(its operator can add a name to REVERIE_ALLOWED_HOSTS).",
            )
            return
        scope = _lower_case_host(scope)
        path = str(scope["path"])
        if scope["method"] == "POST" and (path == REVIEW_ROOT or path.startswith(f"{REVIEW_ROOT}/")):
            limits = BodyLimits("A form of this page", MAX_FORM_BYTES, self.body_timeout_s)
            body = await read_body(scope, receive, send, limits)
            if body is None:
                return
            receive = _replaying(body, receive)
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class McpBodies:
    """ASGI middleware inside the MCP SDK's authentication, for POSTs to /mcp: a request with a
    valid token has its body read here, within the deadline and the SDK's size limit, and a lone
    surrogate in it mended (`server.lone_surrogates`); any other request is passed on unread, and
    the SDK answers it 401 without waiting for its body."""

    app: ASGIApp
    body_timeout_s: float

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Set by the SDK's AuthenticationMiddleware, which runs first; without it, all are served.
        user = scope.get("user")
        served = user is None or user.is_authenticated
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != MCP_PATH or not served:
            await self.app(scope, receive, send)
            return
        limits = BodyLimits("An MCP message", MAX_MCP_BYTES, self.body_timeout_s)
        body = await read_body(scope, receive, send, limits)
        if body is None:
            return
        scope, body = mended_request(scope, body)
        await self.app(scope, _replaying(body, receive), send)


def serve_http(server: MCPServer[Any], settings: ReverieSettings, host: str, port: int) -> None:
    """Serve MCP at /mcp and the review page through the front door until interrupted."""
    public_host = urlsplit(settings.reverie_public_url).netloc if settings.reverie_public_url else None
    # The public URL's name is this server's own: the proxy in front passes it on as the Host.
    named = [*settings.reverie_allowed_hosts, *([public_host] if public_host else [])]
    hosts = HostAllowList.for_server(host, port, named)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=hosts.transport_security(), host=host
    )
    # Last of the app's middleware, so it runs after the SDK's authentication (see McpBodies).
    app.user_middleware.append(Middleware(McpBodies, body_timeout_s=settings.reverie_http_body_timeout))
    if settings.reverie_public_url:
        app.user_middleware.insert(0, Middleware(ScopeChallenge))
    config = uvicorn.Config(
        FrontDoor(app, hosts, settings.reverie_http_body_timeout, public_host),
        host=host,
        port=port,
        log_level=server.settings.log_level.lower(),
        limit_concurrency=MAX_CONCURRENCY,
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
    # A SIGTERM is a clean stop: uvicorn shuts down on it, then raises it again, and Python's
    # default handler would end the process as killed (-15).
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        anyio.run(uvicorn.Server(config).serve)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(signum: int, frame: object) -> None:
    raise SystemExit(0)
