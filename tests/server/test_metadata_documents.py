"""Client ID Metadata Documents: the guards a public server needs before it fetches a URL a
stranger names, and the rules a fetched document must meet.

The remote site is played by an httpx transport in this process (these machines have no public
internet): it sees the request exactly as the guard sends it, to the checked address with the
URL's own name in the Host header."""

from __future__ import annotations

import json

import httpx2
import pytest

from server.connectors.metadata_documents import (
    MAX_BYTES,
    MAX_CACHE_S,
    MIN_CACHE_S,
    MetadataDocumentError,
    MetadataDocuments,
    cache_seconds,
    check_address,
    check_url,
    read_document,
)

pytestmark = [pytest.mark.anyio, pytest.mark.unit]
URL = "https://127.0.0.1/oauth/client.json"


def document(**changes: object) -> bytes:
    return json.dumps(
        {
            "client_id": URL,
            "client_name": "Notes app",
            "redirect_uris": ["https://notes.example/cb"],
            **changes,
        }
    ).encode()


@pytest.mark.parametrize(
    "url",
    [
        "http://app.example/client.json",
        "https://app.example",
        "https://app.example/",
        "https://u:p@app.example/c",
        "https://app.example/c#x",
    ],
)
def test_a_client_id_url_must_be_https_with_a_path(url: str) -> None:
    with pytest.raises(MetadataDocumentError, match="client id URL"):
        check_url(url)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.10",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "::1",
        "fc00::1",
        "fe80::1",
        "224.0.0.1",
    ],
)
def test_a_private_loopback_or_link_local_address_is_refused(address: str) -> None:
    with pytest.raises(MetadataDocumentError, match="not a public address"):
        check_address(address)


def test_a_public_address_passes_and_loopback_only_with_the_development_setting() -> None:
    check_address("8.8.8.8")
    check_address("2606:4700:4700::1111")
    check_address("127.0.0.1", allow_loopback=True)
    with pytest.raises(MetadataDocumentError):
        check_address("10.0.0.1", allow_loopback=True)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b" " * (MAX_BYTES + 1), "larger than"),
        (b"not json", "not JSON"),
        (document(client_id="https://other.example/client.json"), "client_id is not the URL"),
        (document(token_endpoint_auth_method="client_secret_basic"), "public clients"),
        (document(redirect_uris=[]), "no redirect_uris"),
    ],
    ids=["too-large", "not-json", "other-client-id", "secret-client", "no-redirects"],
)
def test_a_document_breaking_a_rule_is_refused(body: bytes, problem: str) -> None:
    with pytest.raises(MetadataDocumentError, match=problem):
        read_document(URL, body)


def test_cache_lifetimes_follow_the_headers_within_bounds() -> None:
    assert cache_seconds("max-age=5") == MIN_CACHE_S
    assert cache_seconds("public, max-age=600") == 600
    assert cache_seconds("max-age=99999999") == MAX_CACHE_S
    assert cache_seconds("no-store") == MIN_CACHE_S


class Site:
    """The remote site: one answer, and the requests it saw."""

    def __init__(self, answer: httpx2.Response) -> None:
        self.answer = answer
        self.seen: list[httpx2.Request] = []

    def transport(self) -> httpx2.MockTransport:
        def handle(request: httpx2.Request) -> httpx2.Response:
            self.seen.append(request)
            return self.answer

        return httpx2.MockTransport(handle)


async def test_a_good_document_is_fetched_from_the_checked_address_once_and_cached() -> None:
    site = Site(httpx2.Response(200, content=document(), headers={"Cache-Control": "max-age=600"}))
    documents = MetadataDocuments(allow_loopback=True, transport=site.transport())
    client = await documents.client(URL)
    assert (client.client_id, client.client_name, client.token_endpoint_auth_method) == (
        URL,
        "Notes app",
        "none",
    )
    assert (await documents.client(URL)).client_name == "Notes app"
    [request] = site.seen
    assert (request.url.host, request.headers["host"]) == ("127.0.0.1", "127.0.0.1")


@pytest.mark.parametrize(
    "answer",
    [
        httpx2.Response(302, headers={"Location": "https://10.0.0.1/client.json"}),
        httpx2.Response(404),
        httpx2.Response(200, content=b"x" * (MAX_BYTES + 10)),
    ],
    ids=["redirect", "missing", "too-large"],
)
async def test_a_redirect_a_missing_or_a_large_document_is_refused(answer: httpx2.Response) -> None:
    documents = MetadataDocuments(allow_loopback=True, transport=Site(answer).transport())
    with pytest.raises(MetadataDocumentError):
        await documents.client(URL)


async def test_a_name_that_resolves_to_loopback_is_refused_without_the_development_setting() -> None:
    site = Site(httpx2.Response(200, content=document(client_id="https://localhost/client.json")))
    with pytest.raises(MetadataDocumentError, match="not a public address"):
        await MetadataDocuments(transport=site.transport()).client("https://localhost/client.json")
    assert site.seen == []
