"""The deliberate cross-profile reads of this package: which profile a presented secret belongs to,
and, for the operator's `reverie connectors list`, which profiles have connected apps.

A bearer token, an authorization code or a review-session cookie arrives before anyone knows its
profile, so it is looked up by its digest alone (a unique index seek). Each read returns the one
node the secret names, with its profile id; everything after that (using, rotating, revoking)
goes through that profile's `ProfileGraph`. A digest cannot be turned back into the secret, and
only the holder of the secret can name it, so these reads reveal nothing of another profile.
"""

from __future__ import annotations

from typing import Final, LiteralString

from graph.access import GraphStore
from graph.connectors.records import StoredCode, StoredSession, StoredToken
from graph.rows import Row

_FIND_CODE: Final[LiteralString] = (
    "MATCH (c:OAuthCode {digest: $digest}) "
    "RETURN c.profile_id AS profile_id, c.grant_id AS grant_id, c.client_id AS client_id, "
    "c.redirect_uri AS redirect_uri, c.redirect_explicit AS redirect_explicit, "
    "c.code_challenge AS code_challenge, c.resource AS resource, c.scopes AS scopes, "
    "toString(c.expires_at) AS expires_at, c.used AS used"
)
_FIND_TOKEN: Final[LiteralString] = (
    "MATCH (t:OAuthToken {digest: $digest}) "
    "OPTIONAL MATCH (g:OAuthGrant {profile_id: t.profile_id, id: t.grant_id}) "
    "RETURN t.profile_id AS profile_id, t.grant_id AS grant_id, t.kind AS kind, t.client_id AS client_id, "
    "t.scopes AS scopes, t.resource AS resource, toString(t.expires_at) AS expires_at, "
    "t.rotated AS rotated, toString(g.last_used_at) AS grant_last_used_at"
)
_FIND_SESSION: Final[LiteralString] = (
    "MATCH (s:ReviewSession {digest: $digest}) "
    "RETURN s.profile_id AS profile_id, s.token_digest AS token_digest, "
    "toString(s.expires_at) AS expires_at, s.notice AS notice"
)


# Profile ids only, for the operator who runs the command; each one's grants are then read
# through its own `ProfileGraph`. A grant needs no Profile node: consent can be a profile's first.
_GRANTED_PROFILES: Final[LiteralString] = (
    "MATCH (g:OAuthGrant) WHERE g.profile_id IS NOT NULL "
    "RETURN DISTINCT g.profile_id AS profile_id ORDER BY profile_id"
)


async def granted_profiles(store: GraphStore) -> list[str]:
    """Every profile with at least one connected app."""
    async with store.session() as session:
        result = await session.run(_GRANTED_PROFILES)
        return [str(record["profile_id"]) async for record in result]


async def _one(store: GraphStore, query: LiteralString, digest: str) -> Row | None:
    async with store.session() as session:
        return await (await session.run(query, digest=digest)).single()


async def find_code(store: GraphStore, digest: str) -> StoredCode | None:
    row = await _one(store, _FIND_CODE, digest)
    return None if row is None else StoredCode.from_row(row)


async def find_token(store: GraphStore, digest: str) -> StoredToken | None:
    row = await _one(store, _FIND_TOKEN, digest)
    return None if row is None else StoredToken.from_row(row)


async def find_session(store: GraphStore, digest: str) -> StoredSession | None:
    row = await _one(store, _FIND_SESSION, digest)
    return None if row is None else StoredSession.from_row(row)
