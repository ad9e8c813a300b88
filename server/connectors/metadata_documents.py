"""Client ID Metadata Documents: a client whose id is an https URL, naming itself in the JSON there.

A public server fetches whatever URL a stranger gives it, so the fetch is guarded:
- the URL is https, with a path, and no user, fragment or odd port;
- its host is resolved here, every address it resolves to must be a public one (no loopback,
  private, link-local, shared, reserved or multicast address), and the connection goes to the
  address that was checked (the name is kept for TLS), so a second DNS answer cannot swap in a
  private address;
- no redirect is followed; the answer must come within `TIMEOUT_S` and be at most `MAX_BYTES`;
- the document's `client_id` must be the URL itself, it must name redirect URIs, and a client
  authenticating with a secret or a key is refused (Reverie's clients are public: PKCE proves them);
- a good document is cached for what its Cache-Control allows, within `MIN_CACHE`..`MAX_CACHE`,
  at most `CACHE_ENTRIES` documents, the least recently used dropped first.

`allow_loopback` (REVERIE_DEV_LOOPBACK_METADATA) lets loopback addresses through, for development
and tests on a machine without public internet; nothing else about the rules changes.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

import anyio
import httpx2
from pydantic import ValidationError

from graph.errors import ReverieError
from server.connectors.client import ConnectorClient

MAX_BYTES: Final = 64 * 1024
TIMEOUT_S: Final = 5.0
MIN_CACHE_S: Final = 60
DEFAULT_CACHE_S: Final = 3600
MAX_CACHE_S: Final = 24 * 3600
CACHE_ENTRIES: Final = 256
_MAX_AGE = re.compile(r"max-age=(\d+)")


class MetadataDocumentError(ReverieError):
    """A client id URL that cannot be used; the message says why."""


def is_metadata_document_id(client_id: str) -> bool:
    return client_id.startswith("https://")


def check_url(url: str) -> tuple[str, int]:
    """The host and port of an acceptable client id URL."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname or parts.path in ("", "/"):
        raise MetadataDocumentError(
            "A client id URL must be https with a path, such as https://app.example/client.json; "
            f"got {url[:200]!r}."
        )
    if parts.username or parts.password or parts.fragment:
        raise MetadataDocumentError("A client id URL must carry no user, password or fragment.")
    return parts.hostname, parts.port or 443


def check_address(address: str, allow_loopback: bool = False) -> None:
    """Refuse any address that is not on the public internet."""
    ip = ipaddress.ip_address(address.split("%", maxsplit=1)[0])
    if allow_loopback and ip.is_loopback:
        return
    if not ip.is_global or ip.is_multicast:
        raise MetadataDocumentError(
            f"The client id URL's host resolves to {ip}, which is not a public address; "
            "a client metadata document must be served from the public internet."
        )


def read_document(url: str, body: bytes) -> ConnectorClient:
    """The client a fetched document names, checked against the rules above."""
    if len(body) > MAX_BYTES:
        raise MetadataDocumentError(f"The client metadata document is larger than {MAX_BYTES} bytes.")
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MetadataDocumentError("The client metadata document is not JSON.") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise MetadataDocumentError(
            "The client metadata document's client_id is not the URL it was fetched from."
        )
    if document.get("token_endpoint_auth_method", "none") != "none" or "client_secret" in document:
        raise MetadataDocumentError("Only public clients (token_endpoint_auth_method 'none') may connect.")
    if not document.get("redirect_uris"):
        raise MetadataDocumentError("The client metadata document names no redirect_uris.")
    try:
        return ConnectorClient.model_validate({**document, "token_endpoint_auth_method": "none"})
    except ValidationError as error:
        raise MetadataDocumentError(
            f"The client metadata document is not valid: {error.error_count()} problem(s)."
        ) from None


def cache_seconds(cache_control: str | None) -> int:
    """How long to keep a document, as its Cache-Control says, within the bounds."""
    if cache_control and ("no-store" in cache_control or "no-cache" in cache_control):
        return MIN_CACHE_S
    found = _MAX_AGE.search(cache_control or "")
    wanted = int(found.group(1)) if found else DEFAULT_CACHE_S
    return max(MIN_CACHE_S, min(MAX_CACHE_S, wanted))


@dataclass
class MetadataDocuments:
    allow_loopback: bool = False
    transport: httpx2.AsyncBaseTransport | None = None
    _cache: OrderedDict[str, tuple[ConnectorClient, float]] = field(default_factory=OrderedDict)

    async def client(self, url: str) -> ConnectorClient:
        cached = self._cache.get(url)
        if cached is not None and cached[1] > time.monotonic():
            self._cache.move_to_end(url)
            return cached[0]
        client, keep_s = await self._fetch(url)
        self._cache[url] = (client, time.monotonic() + keep_s)
        self._cache.move_to_end(url)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        return client

    async def _address(self, host: str, port: int) -> str:
        try:
            found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise MetadataDocumentError(f"The client id URL's host {host!r} does not resolve.") from None
        addresses = [str(entry[4][0]) for entry in found]
        for address in addresses:
            check_address(address, self.allow_loopback)
        return addresses[0]

    async def _fetch(self, url: str) -> tuple[ConnectorClient, int]:
        host, port = check_url(url)
        address = await self._address(host, port)
        parts = urlsplit(url)
        pinned = parts._replace(
            netloc=f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        ).geturl()
        headers = {"Host": parts.netloc, "Accept": "application/json"}
        try:
            async with (
                httpx2.AsyncClient(
                    transport=self.transport, timeout=TIMEOUT_S, follow_redirects=False
                ) as http,
                http.stream("GET", pinned, headers=headers, extensions={"sni_hostname": host}) as answer,
            ):
                if answer.is_redirect or answer.status_code != 200:
                    raise MetadataDocumentError(
                        f"The client id URL answered {answer.status_code}, not the document "
                        "(no redirect is followed)."
                    )
                body = b""
                async for chunk in answer.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_BYTES:
                        break
                return read_document(url, body), cache_seconds(answer.headers.get("cache-control"))
        except httpx2.HTTPError as error:
            raise MetadataDocumentError(
                f"The client metadata document could not be fetched ({type(error).__name__})."
            ) from None
