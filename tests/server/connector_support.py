"""A connector's side of OAuth, spelled out in plain HTTP, for the tests of `server.connectors`:
registration, the authorization request, the person's consent (signed in with a static token),
the code exchange; a loopback callback that receives the redirect a browser is sent to; and the
module-wide profile and server environment of the modules that start one public server."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import ssl
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench.processes import free_port
from graph.access import ConnectionSettings
from tests.conftest import TEST_PROFILE_PREFIX, server_environment
from tests.server.conftest import HttpServer
from tests.server.support import INITIALIZE, MCP_HEADERS

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(scope="module")
def profile() -> str:
    return f"{TEST_PROFILE_PREFIX}{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def env(neo4j_settings: ConnectionSettings, profile: str) -> dict[str, str]:
    # These machines are shared; a slow moment must not read as a refusal.
    return {**server_environment(neo4j_settings, profile), "NEO4J_TIMEOUT": "60"}


def pkce() -> tuple[str, str]:
    """A code verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


@dataclass
class Connector:
    """One registered client of `server`, speaking through `http` (redirects not followed)."""

    http: httpx2.AsyncClient
    server: HttpServer
    redirect_uri: str
    client_id: str = ""
    verifier: str = ""
    challenge: str = ""

    async def register(self, name: str = "Test connector") -> Connector:
        answer = await self.http.post(
            "/register",
            json={
                "client_name": name,
                "redirect_uris": [self.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_method": "none",
            },
        )
        assert answer.status_code == 201, answer.text
        self.client_id = answer.json()["client_id"]
        self.verifier, self.challenge = pkce()
        return self

    async def authorize(self, **changes: str | None) -> httpx2.Response:
        """GET /authorize with a well-formed request, except for `changes` (None leaves a parameter out)."""
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            "state": "state-1",
            "resource": self.server.url,
            "scope": "read write",
            **changes,
        }
        return await self.http.get("/authorize", params={k: v for k, v in params.items() if v is not None})

    async def consent_page(self, token: str) -> tuple[str, str]:
        """Authorize, sign in on the way and open the consent page: its request id and CSRF token."""
        asked = await self.authorize()
        assert asked.status_code == 302, asked.text
        request_id = query_of(asked.headers["location"])["request"]
        signed = await self.http.post("/review/login", data={"token": token, "connect": request_id})
        assert signed.status_code == 303, signed.text
        page = await self.http.get(signed.headers["location"])
        assert page.status_code == 200, page.text
        found = CSRF.search(page.text)
        assert found is not None
        return request_id, found.group(1)

    async def code(self, token: str, profile: str) -> str:
        """The whole consent, allowed: the code the redirect carries."""
        request_id, csrf = await self.consent_page(token)
        answer = await self.http.post(
            "/review/connect",
            data={"request": request_id, "csrf_token": csrf, "profile": profile, "decision": "allow"},
        )
        assert answer.status_code == 303, answer.text
        back = query_of(answer.headers["location"])
        assert back["state"] == "state-1"
        return back["code"]

    async def exchange(self, code: str, **changes: str) -> httpx2.Response:
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "client_id": self.client_id,
            "code_verifier": self.verifier,
            "resource": self.server.url,
            **changes,
        }
        return await self.http.post("/token", data=data)

    async def tokens(self, token: str, profile: str) -> dict[str, Any]:
        answer = await self.exchange(await self.code(token, profile))
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    async def refresh(self, refresh_token: str) -> httpx2.Response:
        data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id}
        return await self.http.post("/token", data=data)

    async def mcp_status(self, access_token: str) -> int:
        """The status /mcp answers an initialize signed with `access_token`."""
        answer = await self.http.post(
            "/mcp", headers={"Authorization": f"Bearer {access_token}", **MCP_HEADERS}, json=INITIALIZE
        )
        return answer.status_code


@dataclass
class Callback:
    """A loopback page that keeps the query of the one redirect it receives."""

    url: str
    received: threading.Event = field(default_factory=threading.Event)
    query: dict[str, str] = field(default_factory=dict)

    def wait(self, seconds: float = 60) -> dict[str, str]:
        assert self.received.wait(seconds), "the browser never came back to the callback"
        return self.query


# What a local page answers a GET of a path with: status, content type and body.
Answer = Callable[[str], tuple[int, str, bytes]]


@contextmanager
def local_page(port: int, answer: Answer, tls: ssl.SSLContext | None = None) -> Iterator[None]:
    """A page on 127.0.0.1:`port` (over TLS with `tls`), served by a thread while the block runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, content_type, body = answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def callback_server() -> Iterator[Callback]:
    port = free_port()
    callback = Callback(f"http://127.0.0.1:{port}/callback")

    def came_back(path: str) -> tuple[int, str, bytes]:
        callback.query.update(query_of(path))
        callback.received.set()
        return 200, "text/html", b"<html><body><main>Connected; you can close this page.</main></body></html>"

    with local_page(port, came_back):
        yield callback


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for "localhost" that signs itself, and its key: trusted by a client given it
    as SSL_CERT_FILE, as a public site's certificate is by everyone."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "localhost.pem", folder / "localhost.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@contextmanager
def https_document(certificate: tuple[Path, Path], document: dict[str, Any]) -> Iterator[str]:
    """`document` as JSON over HTTPS at https://localhost:PORT/client.json (its `client_id` is set
    to that URL), as a connector publishes its client metadata document; yields the URL."""
    port = free_port()
    url = f"https://localhost:{port}/client.json"
    body = json.dumps({**document, "client_id": url}).encode()

    def document_or_nothing(path: str) -> tuple[int, str, bytes]:
        return (200 if path == "/client.json" else 404), "application/json", body

    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(*certificate)
    with local_page(port, document_or_nothing, tls):
        yield url
