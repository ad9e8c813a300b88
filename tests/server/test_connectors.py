"""Reverie as an OAuth authorization server for remote connectors, against a real
`reverie serve --transport http` with REVERIE_PUBLIC_URL: discovery, registration, consent in a
browser, the code exchange, tool calls, refresh and revocation; and every refusal, each with a
clear error and nothing granted."""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from graph.access import ConnectionSettings, GraphStore
from graph.clock import utcnow
from graph.connectors import grants
from graph.connectors.records import Grant
from server.auth import token_digest
from tests.server.browser import browser, open_consent, screenshot
from tests.server.conftest import HttpServer, http_mcp, http_serving, reverie, reverie_in_process, structured
from tests.server.connector_support import (
    CSRF,
    Callback,
    Connector,
    callback_server,
    env,
    https_document,
    profile,
    query_of,
    self_signed_certificate,
)

pytestmark = pytest.mark.anyio
__all__ = ["browser", "env", "profile"]  # shared fixtures, imported so that pytest finds them


@pytest.fixture(scope="module")
def server(
    env: dict[str, str], profile: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """One server for the module: its tests each register their own client."""
    with http_serving(env, profile, tmp_path_factory.mktemp("connectors"), public=True) as running:
        yield running


@pytest.fixture
async def http(server: HttpServer) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=server.base, timeout=30) as client:
        yield client


@pytest.fixture
async def connector(http: httpx2.AsyncClient, server: HttpServer) -> Connector:
    return await Connector(http, server, f"http://127.0.0.1:{40000 + secrets.randbelow(20000)}/cb").register()


async def granted(store: GraphStore, profile: str, client_id: str) -> list[Grant]:
    return [
        grant for grant in await grants.list_grants(store.profile(profile)) if grant.client_id == client_id
    ]


# --- the whole flow, as a person and a connector go through it --------------------------------


class Remembered:
    """The SDK client's token storage, kept in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def consent_hooks(
    browser: WebDriver, server: HttpServer, callback: Callback
) -> tuple[Callable[[str], Awaitable[None]], Callable[[], Awaitable[AuthorizationCodeResult]]]:
    """The SDK's OAuth client's two hooks, for a person who allows in the browser: open the
    consent page it redirects to, then hand back what the callback page received."""

    async def redirect(url: str) -> None:
        await anyio.to_thread.run_sync(consent_in_browser, browser, url, server, callback)

    async def came_back() -> AuthorizationCodeResult:
        query = callback.wait()
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    return redirect, came_back


@asynccontextmanager
async def signed_in(server: HttpServer, auth: OAuthClientProvider) -> AsyncIterator[Client]:
    """An MCP client of `server` whose requests `auth` signs (signing in first when it must)."""
    async with (
        httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30, read=120)) as signed,
        Client(streamable_http_client(server.url, http_client=signed)) as client,
    ):
        yield client


def consent_in_browser(page: WebDriver, url: str, server: HttpServer, callback: Callback) -> None:
    """What the person does: sign in on the way, read what the app asks for at phone width, allow."""
    page.delete_all_cookies()
    page.set_window_size(390, 844)
    open_consent(page, url, server.write_token)
    shown = page.find_element(By.TAG_NAME, "main").text
    host = callback.url.split("/")[2]
    assert "Phone notes" in shown and host in shown and "Add to, correct and forget" in shown, shown
    assert page.execute_script("return document.documentElement.scrollWidth") <= 390
    # Kept where the review page's screenshots go when asked for (docs/screens holds the reviewed ones).
    screenshot(page, Path(os.environ.get("REVERIE_SCREENSHOTS", tempfile.gettempdir())), "consent-phone")
    page.find_element(By.CSS_SELECTOR, "button[value=allow]").click()
    callback.wait()


async def test_a_connector_discovers_registers_is_allowed_calls_refreshes_and_is_revoked(
    browser: WebDriver, server: HttpServer, http: httpx2.AsyncClient, store: GraphStore, profile: str
) -> None:
    storage = Remembered()
    with callback_server() as callback:
        redirect, came_back = consent_hooks(browser, server, callback)
        metadata = OAuthClientMetadata(
            client_name="Phone notes",
            redirect_uris=[callback.url],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
        )
        auth = OAuthClientProvider(server.url, metadata, storage, redirect, came_back)
        async with signed_in(server, auth) as client:
            stored = structured(await client.call_tool("remember", {"content": "I keep bees on the roof."}))
            assert stored["fragment"]["id"]
    assert storage.tokens is not None and storage.client is not None
    [grant] = await granted(store, profile, storage.client.client_id)
    assert (grant.client_name, grant.scopes, grant.last_used_at is not None) == (
        "Phone notes",
        ("read", "write"),
        True,
    )

    connector = Connector(http, server, callback.url, client_id=storage.client.client_id)
    refreshed = await connector.refresh(storage.tokens.refresh_token or "")
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()
    async with http_mcp(server, fresh["access_token"]) as client:
        found = structured(await client.call_tool("recall_memory", {"query": "bees roof"}))
        assert found["results"]

    revoked = await http.post(
        "/revoke", data={"token": fresh["access_token"], "client_id": connector.client_id}
    )
    assert revoked.status_code == 200, revoked.text
    assert await connector.mcp_status(fresh["access_token"]) == 401
    assert (await connector.refresh(fresh["refresh_token"])).json()["error"] == "invalid_grant"
    assert await granted(store, profile, connector.client_id) == []


async def test_a_connector_known_by_its_metadata_document_over_tls_is_allowed_and_calls(
    browser: WebDriver, env: dict[str, str], profile: str, store: GraphStore, tmp_path: Path
) -> None:
    """A Client ID Metadata Document end to end: the SDK's client names itself by an https URL,
    Reverie fetches the document over real TLS (a certificate for "localhost", trusted through
    SSL_CERT_FILE; loopback allowed only by the development setting), the person allows, the
    connector calls a tool. No registration is made."""
    storage = Remembered()
    certificate = self_signed_certificate(tmp_path)
    with (
        callback_server() as callback,
        https_document(
            certificate,
            {
                "client_name": "Phone notes by URL",
                "redirect_uris": [callback.url],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            },
        ) as document_url,
        http_serving(
            env,
            profile,
            tmp_path,
            name="cimd",
            public=True,
            REVERIE_DEV_LOOPBACK_METADATA="true",
            SSL_CERT_FILE=str(certificate[0]),
        ) as server,
    ):
        redirect, came_back = consent_hooks(browser, server, callback)
        metadata = OAuthClientMetadata(
            redirect_uris=[callback.url],  # type: ignore[list-item]
            token_endpoint_auth_method="none",
        )
        auth = OAuthClientProvider(
            server.url, metadata, storage, redirect, came_back, client_metadata_url=document_url
        )
        async with signed_in(server, auth) as client:
            stored = structured(await client.call_tool("remember", {"content": "Swim on Thursdays."}))
            assert stored["fragment"]["id"]
    assert storage.client is not None and storage.client.client_id == document_url
    [grant] = await granted(store, profile, document_url)
    assert grant.client_name == "Phone notes by URL" and grant.last_used_at is not None


async def test_connected_apps_are_listed_and_revoked_on_the_page_and_the_command_line(
    connector: Connector, server: HttpServer, env: dict[str, str], profile: str
) -> None:
    first = await connector.tokens(server.write_token, profile)
    second = await connector.tokens(server.write_token, profile)
    page = await connector.http.get("/review/connectors")
    assert page.status_code == 200 and page.text.count("Test connector") >= 2
    listed = await reverie_in_process(env, "connectors", "list", "--profile", profile, "--json")
    everyone = await reverie_in_process(env, "connectors", "list", "--json")
    assert {grant["profile"] for grant in json.loads(everyone.stdout)} >= {profile}
    assert listed.returncode == 0, listed.stderr
    mine = [grant for grant in json.loads(listed.stdout) if grant["client_id"] == connector.client_id]
    assert [grant["scopes"] for grant in mine] == [["read", "write"]] * 2
    assert all(grant["last_used_at"] is None for grant in mine)

    csrf = CSRF.search(page.text)
    assert csrf is not None
    on_page = await connector.http.post(
        f"/review/connectors/{mine[0]['id']}/revoke", data={"csrf_token": csrf.group(1)}
    )
    assert on_page.status_code == 303
    assert await connector.mcp_status(first["access_token"]) == 401
    revoked = await reverie(env, "connectors", "revoke", mine[1]["id"])
    assert revoked.returncode == 0 and "Disconnected Test connector" in revoked.stdout, revoked.stderr
    assert await connector.mcp_status(second["access_token"]) == 401
    again = await reverie(env, "connectors", "revoke", mine[1]["id"])
    assert again.returncode != 0 and "No connected app has grant id" in again.stderr


async def test_a_second_server_process_shares_sign_ins_consents_and_tokens(
    server: HttpServer, env: dict[str, str], profile: str, tmp_path: Path
) -> None:
    """Two processes of one deployment (one public URL, one token file, one Neo4j): a sign-in on
    one answers a consent on the other, and a token issued by one works and is revoked on both."""
    with http_serving(
        env, profile, tmp_path, REVERIE_PUBLIC_URL=server.base, REVERIE_TOKENS_FILE=str(server.tokens_file)
    ) as second:
        async with (
            httpx2.AsyncClient(base_url=server.base, timeout=30) as one,
            httpx2.AsyncClient(base_url=second.base, timeout=30) as other,
        ):
            first = await Connector(one, server, "http://127.0.0.1:7000/cb").register()
            through_second = Connector(
                other, server, first.redirect_uri, first.client_id, first.verifier, first.challenge
            )
            asked = await through_second.authorize()
            request_id = query_of(asked.headers["location"])["request"]
            signed = await one.post(
                "/review/login", data={"token": server.write_token, "connect": request_id}
            )
            assert signed.status_code == 303
            # The browser's one site behind the balancer: the cookie set by one goes to the other.
            other.cookies = one.cookies
            page = await other.get("/review/connect", params={"request": request_id})
            csrf = CSRF.search(page.text)
            assert page.status_code == 200 and csrf is not None, page.text
            form = {
                "request": request_id,
                "csrf_token": csrf.group(1),
                "profile": profile,
                "decision": "allow",
            }
            answer = await other.post("/review/connect", data=form)
            code = query_of(answer.headers["location"])["code"]
            tokens = (await first.exchange(code)).json()
            assert await through_second.mcp_status(tokens["access_token"]) == 200
            form = {"token": tokens["access_token"], "client_id": first.client_id}
            assert (await one.post("/revoke", data=form)).status_code == 200
            assert await through_second.mcp_status(tokens["access_token"]) == 401


# --- discovery ---------------------------------------------------------------------------------


async def test_discovery_names_this_server_and_what_it_accepts(
    http: httpx2.AsyncClient, server: HttpServer
) -> None:
    refused = await http.post("/mcp", json={})
    challenge = refused.headers["www-authenticate"]
    assert refused.status_code == 401
    assert f'resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert challenge.endswith('scope="read write"')
    resource = (await http.get("/.well-known/oauth-protected-resource/mcp")).json()
    assert (resource["resource"], resource["authorization_servers"]) == (server.url, [server.base])
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
        metadata = (await http.get(path)).json()
        assert metadata["issuer"] == server.base
        assert metadata["code_challenge_methods_supported"] == ["S256"]
        assert metadata["registration_endpoint"] == f"{server.base}/register"
        assert metadata["token_endpoint_auth_methods_supported"] == ["none"]
        assert "client_id_metadata_document_supported" in metadata


async def test_static_tokens_keep_working_beside_connectors(server: HttpServer) -> None:
    async with http_mcp(server, server.read_token) as client:
        assert structured(await client.call_tool("reflect_memories", {}))["counts"] is not None


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"code_challenge": None}, "code_challenge"),
        ({"code_challenge_method": "plain"}, "code_challenge_method"),
        ({"response_type": "token"}, "unsupported_response_type"),
    ],
    ids=["pkce-missing", "pkce-plain", "implicit"],
)
async def test_a_request_without_pkce_s256_is_refused_and_nothing_granted(
    connector: Connector, store: GraphStore, profile: str, changes: dict[str, str | None], expected: str
) -> None:
    answer = await connector.authorize(**changes)
    assert answer.status_code == 302
    back = query_of(answer.headers["location"])
    assert back["error"] in ("invalid_request", "unsupported_response_type")
    assert expected in back["error"] + back.get("error_description", "")
    assert answer.headers["location"].startswith(connector.redirect_uri)
    assert await granted(store, profile, connector.client_id) == []


async def test_an_unregistered_redirect_uri_is_refused_without_redirecting(
    connector: Connector, store: GraphStore, profile: str
) -> None:
    answer = await connector.authorize(redirect_uri="https://evil.example/cb")
    assert answer.status_code == 400
    assert "not registered" in answer.json()["error_description"]
    other_port = await connector.authorize(redirect_uri=connector.redirect_uri.replace("/cb", "/other"))
    assert other_port.status_code == 400
    assert await granted(store, profile, connector.client_id) == []


async def test_a_client_metadata_document_on_a_private_address_is_refused(
    http: httpx2.AsyncClient, server: HttpServer
) -> None:
    connector = Connector(http, server, "https://notes.example/cb", client_id="https://10.0.0.7/client.json")
    connector.verifier, connector.challenge = "v", "c" * 43
    answer = await connector.authorize()
    assert answer.status_code == 400 and "not found" in answer.json()["error_description"]
    assert "10.0.0.7, which is not a public address" in server.log.read_text(encoding="utf-8")


async def test_a_loopback_redirect_may_use_any_port(connector: Connector) -> None:
    answer = await connector.authorize(redirect_uri="http://127.0.0.1:1234/cb")
    assert answer.status_code == 302 and "/review/connect" in answer.headers["location"]


async def test_a_request_for_another_resource_is_refused(
    connector: Connector, store: GraphStore, profile: str
) -> None:
    answer = await connector.authorize(resource="https://other.example/mcp")
    back = query_of(answer.headers["location"])
    assert back["error"] == "invalid_target" and "only" in back["error_description"]
    assert await granted(store, profile, connector.client_id) == []


async def test_a_token_issued_for_another_resource_is_not_accepted(
    connector: Connector, store: GraphStore, profile: str
) -> None:
    code, access, refresh = (secrets.token_urlsafe(32) for _ in range(3))
    consent = grants.Consent(
        grant_id=uuid.uuid4().hex,
        client_id=connector.client_id,
        client_name="elsewhere",
        scopes=["read"],
        resource="https://other.example/mcp",
        code_digest=token_digest(code),
        redirect_uri=connector.redirect_uri,
        redirect_explicit=True,
        code_challenge=connector.challenge,
    )
    graph = store.profile(profile)
    await grants.grant_consent(graph, consent)
    pair = grants.TokenPair.starting(token_digest(access), token_digest(refresh), utcnow())
    assert await grants.redeem_code(graph, consent.code_digest, pair)
    assert await connector.mcp_status(access) == 401


async def test_a_code_used_twice_revokes_what_it_gave(
    connector: Connector, server: HttpServer, store: GraphStore, profile: str
) -> None:
    code = await connector.code(server.write_token, profile)
    first = await connector.exchange(code)
    assert first.status_code == 200, first.text
    assert await connector.mcp_status(first.json()["access_token"]) == 200
    again = await connector.exchange(code)
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")
    assert await connector.mcp_status(first.json()["access_token"]) == 401
    assert await granted(store, profile, connector.client_id) == []


async def test_a_code_for_another_redirect_or_verifier_is_refused(
    connector: Connector, server: HttpServer, store: GraphStore, profile: str
) -> None:
    code = await connector.code(server.write_token, profile)
    wrong_redirect = await connector.exchange(code, redirect_uri="http://127.0.0.1:9/elsewhere")
    assert "redirect_uri" in wrong_redirect.json()["error_description"]
    wrong_verifier = await connector.exchange(code, code_verifier=secrets.token_urlsafe(48))
    assert wrong_verifier.json()["error_description"] == "incorrect code_verifier"
    [grant] = await granted(store, profile, connector.client_id)
    assert grant.last_used_at is None


async def test_an_expired_code_is_refused(
    connector: Connector,
    server: HttpServer,
    store: GraphStore,
    profile: str,
    neo4j_settings: ConnectionSettings,
) -> None:
    code = await connector.code(server.write_token, profile)
    # Two minutes are too long for a test to wait: the code's time is moved back instead.
    async with store.session() as session:
        await session.run(
            "MATCH (c:OAuthCode {digest: $digest}) SET c.expires_at = datetime() - duration('PT1S')",
            digest=token_digest(code),
        )
    answer = await connector.exchange(code)
    assert (answer.status_code, answer.json()["error_description"]) == (400, "authorization code has expired")


async def test_a_replayed_refresh_token_revokes_the_family(
    connector: Connector, server: HttpServer, store: GraphStore, profile: str
) -> None:
    first = await connector.tokens(server.write_token, profile)
    rotated = await connector.refresh(first["refresh_token"])
    assert rotated.status_code == 200
    replayed = await connector.refresh(first["refresh_token"])
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")
    assert await connector.mcp_status(rotated.json()["access_token"]) == 401
    assert (await connector.refresh(rotated.json()["refresh_token"])).status_code == 400
    assert await granted(store, profile, connector.client_id) == []


async def test_a_connector_token_reaches_its_own_profile_only(
    connector: Connector, server: HttpServer, profile: str
) -> None:
    async with http_mcp(server, server.other_profile_token) as other:
        await other.call_tool("remember", {"content": "My locker code is 4417."})
    tokens = await connector.tokens(server.write_token, profile)
    async with http_mcp(server, tokens["access_token"]) as client:
        found = structured(await client.call_tool("recall_memory", {"query": "locker code 4417"}))
    assert (found["results"], found["clarifications"]) == ([], [])


async def test_scopes_of_other_servers_are_left_out_not_refused(connector: Connector) -> None:
    request_id = query_of((await connector.authorize(scope="claudeai")).headers["location"])["request"]
    assert request_id
    narrowed = await connector.authorize(scope="read offline_access")
    assert narrowed.status_code == 302 and "/review/connect" in narrowed.headers["location"]


async def test_a_read_only_sign_in_grants_read_only(
    connector: Connector, server: HttpServer, profile: str
) -> None:
    tokens = await connector.tokens(server.read_token, profile)
    assert tokens["scope"] == "read"
    async with http_mcp(server, tokens["access_token"]) as client:
        refused = await client.call_tool("remember", {"content": "I sing in a choir."})
    assert refused.is_error and "'write' scope" in str(refused.content)


async def test_a_consent_post_without_its_csrf_token_changes_nothing(
    connector: Connector, server: HttpServer, store: GraphStore, profile: str
) -> None:
    request_id, csrf = await connector.consent_page(server.write_token)
    form: dict[str, Any] = {"request": request_id, "profile": profile, "decision": "allow"}
    missing = await connector.http.post("/review/connect", data=form)
    assert missing.status_code == 403 and "did not come from this page" in missing.text
    wrong = await connector.http.post("/review/connect", data={**form, "csrf_token": "x" * 43})
    assert wrong.status_code == 403
    another_site = await connector.http.post(
        "/review/connect", data={**form, "csrf_token": csrf}, headers={"Origin": "https://evil.example"}
    )
    assert another_site.status_code == 403
    another_profile = await connector.http.post(
        "/review/connect", data={**form, "csrf_token": csrf, "profile": f"{profile}-other"}
    )
    assert another_profile.status_code == 400
    assert await granted(store, profile, connector.client_id) == []
    # The request is still pending: the real form may still answer it.
    allowed = await connector.http.post("/review/connect", data={**form, "csrf_token": csrf})
    assert allowed.status_code == 303 and "code=" in allowed.headers["location"]


async def test_a_denied_consent_tells_the_app_and_grants_nothing(
    connector: Connector, server: HttpServer, store: GraphStore, profile: str
) -> None:
    request_id, csrf = await connector.consent_page(server.write_token)
    form = {"request": request_id, "profile": profile, "decision": "deny", "csrf_token": csrf}
    answer = await connector.http.post("/review/connect", data=form)
    assert query_of(answer.headers["location"])["error"] == "access_denied"
    assert await granted(store, profile, connector.client_id) == []
    again = await connector.http.post("/review/connect", data={**form, "decision": "allow"})
    assert again.status_code == 400 and "lapsed" in again.text


async def test_an_unknown_consent_request_is_refused(connector: Connector, server: HttpServer) -> None:
    await connector.consent_page(server.write_token)
    answer = await connector.http.get("/review/connect", params={"request": "n" * 43})
    assert answer.status_code == 400 and "lapsed" in answer.text
