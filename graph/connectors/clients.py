"""The deployment's OAuth clients and pending authorization requests: read and written across
profiles on purpose, like `graph.directory`.

A client is a registration (its name, redirect URIs, the scopes it asked for), not anything a
person told Reverie: it belongs to no profile. A pending request is what a client asked for
before the person answered on the consent page; it names no profile until they pick one, and
lapses after `REQUEST_LIFETIME`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final, LiteralString

from graph.access import GraphStore
from graph.clock import utcnow
from graph.connectors.records import ClientKind, PendingRequest, StoredClient

REQUEST_LIFETIME: Final = timedelta(minutes=10)

_SAVE_CLIENT: Final[LiteralString] = (
    "MERGE (c:OAuthClient {client_id: $client_id}) "
    "ON CREATE SET c.registered_at = $now "
    "SET c.kind = $kind, c.document = $document"
)
_FIND_CLIENT: Final[LiteralString] = (
    "MATCH (c:OAuthClient {client_id: $client_id}) "
    "RETURN c.client_id AS client_id, c.kind AS kind, c.document AS document, "
    "toString(c.registered_at) AS registered_at"
)
_SAVE_REQUEST: Final[LiteralString] = (
    "MATCH (old:OAuthRequest) WHERE old.expires_at < $now DETACH DELETE old "
    "WITH count(*) AS purged "
    "CREATE (r:OAuthRequest {id: $id, client_id: $client_id, params: $params, expires_at: $expires_at})"
)
_FIND_REQUEST: Final[LiteralString] = (
    "MATCH (r:OAuthRequest {id: $id}) WHERE r.expires_at > $now "
    "RETURN r.id AS id, r.client_id AS client_id, r.params AS params, toString(r.expires_at) AS expires_at"
)
# Answered once: the request is deleted by the answer that reads it.
_TAKE_REQUEST: Final[LiteralString] = (
    "MATCH (r:OAuthRequest {id: $id}) WHERE r.expires_at > $now "
    "WITH r, r {.*} AS kept DETACH DELETE r "
    "RETURN kept.id AS id, kept.client_id AS client_id, kept.params AS params, "
    "toString(kept.expires_at) AS expires_at"
)


async def save_client(store: GraphStore, client_id: str, kind: ClientKind, document: str) -> None:
    async with store.session() as session:
        await (
            await session.run(
                _SAVE_CLIENT, client_id=client_id, kind=kind.value, document=document, now=utcnow()
            )
        ).consume()


async def find_client(store: GraphStore, client_id: str) -> StoredClient | None:
    async with store.session() as session:
        row = await (await session.run(_FIND_CLIENT, client_id=client_id)).single()
    return None if row is None else StoredClient.from_row(row)


async def save_request(store: GraphStore, request_id: str, client_id: str, params: str) -> datetime:
    """Keep a pending request (and drop lapsed ones); returns when it lapses."""
    now = utcnow()
    expires_at = now + REQUEST_LIFETIME
    async with store.session() as session:
        await (
            await session.run(
                _SAVE_REQUEST,
                id=request_id,
                client_id=client_id,
                params=params,
                expires_at=expires_at,
                now=now,
            )
        ).consume()
    return expires_at


async def find_request(store: GraphStore, request_id: str) -> PendingRequest | None:
    async with store.session() as session:
        row = await (await session.run(_FIND_REQUEST, id=request_id, now=utcnow())).single()
    return None if row is None else PendingRequest.from_row(row)


async def take_request(store: GraphStore, request_id: str) -> PendingRequest | None:
    """The pending request, deleted as it is read: a consent is answered once."""
    async with store.session() as session:
        row = await (await session.run(_TAKE_REQUEST, id=request_id, now=utcnow())).single()
    return None if row is None else PendingRequest.from_row(row)
