"""The HTTP server under a hostile network, against a real `reverie serve --transport http`: bodies
that stop or never end, sign-in guessing, foreign Host and Origin headers, and the page's limits."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from graph.recall.request import MAX_QUERY_CHARS
from tests.server.conftest import HttpServer, http_serving
from tests.server.support import INITIALIZE, MCP_HEADERS

pytestmark = pytest.mark.anyio

# Generous: the server answers in well under a second, but this machine is shared and slow.
WAIT_S = 30.0


def port_of(server: HttpServer) -> int:
    port = urlsplit(server.base).port
    assert port is not None
    return port


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)


def open_post(
    server: HttpServer, path: str, declared: int, sent: bytes, headers: dict[str, str] | None = None
) -> socket.socket:
    """A post that announces `declared` body bytes and sends only `sent`, its socket still open;
    a form unless `headers` say otherwise."""
    connection = socket.create_connection(("127.0.0.1", port_of(server)), timeout=WAIT_S)
    sent_headers = {
        "Host": f"127.0.0.1:{port_of(server)}",
        "Content-Type": "application/x-www-form-urlencoded",
        **(headers or {}),
        "Content-Length": str(declared),
    }
    head = f"POST {path} HTTP/1.1\r\n" + "".join(f"{key}: {value}\r\n" for key, value in sent_headers.items())
    connection.sendall(head.encode() + b"\r\n" + sent)
    return connection


def mcp_post(server: HttpServer, declared: int, sent: bytes, token: str | None = None) -> socket.socket:
    """An MCP message announcing `declared` body bytes, sending only `sent`, signed with `token`."""
    signed = {"Authorization": f"Bearer {token}"} if token else {}
    return open_post(server, "/mcp", declared, sent, {**MCP_HEADERS, **signed})


def answer_of(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or WAIT_S passes)."""
    received = b""
    try:
        while chunk := connection.recv(65536):
            received += chunk
    except TimeoutError:
        pass
    return received


def signed_in(server: HttpServer) -> tuple[str, str]:
    """A session cookie of the write token and the CSRF token its forms carry."""
    with httpx2.Client(base_url=server.base, timeout=WAIT_S) as http:
        assert http.post("/review/login", data={"token": server.write_token}).status_code == 303
        page = http.get("/review/runs").text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert csrf is not None
        return str(http.cookies["reverie_review"]), csrf.group(1)


@pytest.fixture
def quick_server(server_env: dict[str, str], profile_id: str, tmp_path: Path) -> Iterator[HttpServer]:
    """A server that waits 1 s for a form's body (the default is longer)."""
    with http_serving(server_env, profile_id, tmp_path, REVERIE_HTTP_BODY_TIMEOUT="1") as server:
        yield server


def test_a_client_that_leaves_mid_body_costs_one_short_log_line(own_http_server: HttpServer) -> None:
    cookie, csrf = signed_in(own_http_server)
    before = own_http_server.log.read_text().splitlines()
    form = f"csrf_token={csrf}&token=abc".encode()[:40]
    open_post(own_http_server, "/review/login", 150, form).close()
    open_post(own_http_server, "/review/runs", 150, form, {"Cookie": f"reverie_review={cookie}"}).close()
    mcp_post(own_http_server, 150, b'{"jsonrpc": "2.0", "id": 1, ', own_http_server.write_token).close()

    def logged() -> str:
        return "\n".join(own_http_server.log.read_text().splitlines()[len(before) :])

    wait_until(lambda: logged().count("left after") >= 3 or "Exception" in logged())
    added = logged()
    assert "Traceback" not in added and "ClientDisconnect" not in added, added
    # The server's warm-up recall (graph/recall/warmup.py) may finish meanwhile and say so: that
    # line is the start's, not the disconnects'.
    lines = [line for line in added.splitlines() if "recall's queries planned" not in line]
    assert len(lines) == 3 and all("left after" in line and len(line) < 200 for line in lines), lines
    assert "POST /mcp: the client left after 28 of 150 body bytes." in added


def test_a_form_body_that_never_ends_or_is_too_big_is_refused(quick_server: HttpServer) -> None:
    slow = open_post(quick_server, "/review/login", 150, b"token=")
    answer = answer_of(slow)
    slow.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]

    huge = open_post(quick_server, "/review/login", 10_000_000, b"token=")
    answer = answer_of(huge)
    huge.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    # The server still serves everyone else.
    with httpx2.Client(base_url=quick_server.base, timeout=WAIT_S) as http:
        assert http.post("/review/login", data={"token": quick_server.write_token}).status_code == 303


@pytest.mark.parametrize("token", [None, "not-a-token-of-this-server"], ids=["no token", "wrong token"])
def test_an_mcp_post_without_a_valid_token_is_refused_before_its_body(
    http_server: HttpServer, token: str | None
) -> None:
    started = time.monotonic()
    unsigned = mcp_post(http_server, 100_000, b'{"jsonrpc"', token)
    answer = answer_of(unsigned)  # until the server closes the connection
    unsigned.close()
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert b"connection: close" in answer.lower() and time.monotonic() - started < WAIT_S / 3


def test_an_mcp_body_that_never_ends_or_is_too_big_is_refused(quick_server: HttpServer) -> None:
    slow = mcp_post(quick_server, 150, b'{"jsonrpc"', quick_server.write_token)
    answer = answer_of(slow)
    slow.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]

    huge = mcp_post(quick_server, 100_000_000, b'{"jsonrpc"', quick_server.write_token)
    answer = answer_of(huge)
    huge.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {quick_server.write_token}"}
    with httpx2.Client(base_url=quick_server.base, timeout=WAIT_S) as http:
        assert http.post("/mcp", json=INITIALIZE, headers=bearer).status_code == 200


def test_wrong_tokens_are_throttled_per_address_and_others_still_sign_in(own_http_server: HttpServer) -> None:
    with httpx2.Client(base_url=own_http_server.base, timeout=WAIT_S) as guesser:
        answers = [guesser.post("/review/login", data={"token": f"guess-{n}"}) for n in range(40)]
        codes = [answer.status_code for answer in answers]
        assert 429 in codes, codes
        first = codes.index(429)
        assert first >= 3 and set(codes[:first]) == {401} and set(codes[first:]) == {429}, codes
        assert 1 <= int(answers[first].headers["retry-after"]) <= 3600
        # While throttled, even the right token is refused from this address: guesses learn nothing.
        assert guesser.post("/review/login", data={"token": own_http_server.write_token}).status_code == 429

    elsewhere = httpx2.HTTPTransport(local_address="127.0.0.2")
    with httpx2.Client(base_url=own_http_server.base, timeout=WAIT_S, transport=elsewhere) as other:
        assert other.post("/review/login", data={"token": own_http_server.write_token}).status_code == 303


def test_a_foreign_host_is_refused_everywhere_and_redirects_never_name_it(
    http_server: HttpServer,
) -> None:
    port = port_of(http_server)
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {http_server.write_token}"}
    with httpx2.Client(base_url=http_server.base, timeout=WAIT_S) as http:
        login = http.post("/review/login", data={"token": http_server.write_token}, headers=evil)
        assert login.status_code == 421 and "reverie_review" not in login.cookies
        assert http.get("/review/", headers={"Host": "evil.example"}).status_code == 421
        mcp = http.post("/mcp", json=INITIALIZE, headers={**bearer, "Host": "evil.example"})
        assert mcp.status_code == 421

        slash = http.get("/review/", headers={"Host": f"localhost:{port}"})
        assert slash.status_code in {307, 308} and slash.headers["location"] == "/review"

        other_site = http.post(
            "/review/login",
            data={"token": http_server.write_token},
            headers={"Origin": "http://evil.example"},
        )
        assert other_site.status_code == 403
        own = f"localhost:{port}"
        loopback_name = http.post(
            "/review/login",
            data={"token": http_server.write_token},
            headers={"Host": own, "Origin": f"http://{own}"},
        )
        assert loopback_name.status_code == 303 and loopback_name.headers["location"] == "/review"


def test_host_names_are_case_insensitive_for_mcp_and_the_page_alike(http_server: HttpServer) -> None:
    shouted = {"Host": f"LOCALHOST:{port_of(http_server)}"}
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {http_server.write_token}"}
    with httpx2.Client(base_url=http_server.base, timeout=WAIT_S) as http:
        assert http.post("/mcp", json=INITIALIZE, headers={**bearer, **shouted}).status_code == 200
        assert http.get("/review/login", headers=shouted).status_code == 200
        login = http.post("/review/login", data={"token": http_server.write_token}, headers=shouted)
        assert login.status_code == 303 and login.headers["location"] == "/review"


def test_the_search_box_takes_as_many_characters_as_the_server(http_server: HttpServer) -> None:
    cookie, _ = signed_in(http_server)
    with httpx2.Client(base_url=http_server.base, timeout=WAIT_S, cookies={"reverie_review": cookie}) as http:
        page = http.get("/review/memory").text
    box = re.search(r'<input id="q"[^>]*maxlength="(\d+)"', page)
    assert box is not None and int(box.group(1)) == MAX_QUERY_CHARS
