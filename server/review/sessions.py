"""Signed-in browser sessions of the review page, kept in Neo4j (`graph.connectors.sessions`).

A person signs in once with the same bearer token an MCP host uses; the page then holds an
opaque random session id in an HttpOnly, SameSite=Strict cookie. The graph keeps only the id's
digest, so every server process of a deployment knows the session (a sign-in through one works
through another behind the same proxy) and a restart no longer signs anyone out. Every
state-changing form carries the session's CSRF token, derived from its id, so nothing about it
is stored. A session keeps its token's digest and follows the token file: revoking the token
ends it, changing its scopes changes what it may do. Erasing the profile erases its sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from graph.access import ProfileGraph
from graph.clock import utcnow
from graph.connectors import lookup
from graph.connectors import sessions as stored
from server.auth import token_digest
from server.context import LiveApp
from server.token_registry import TokenRegistry

SESSION_COOKIE = "reverie_review"
SESSION_LIFETIME = timedelta(hours=8)


def _csrf_of(session_id: str) -> str:
    # A one-way function of the cookie's id: a page of another site knows neither.
    return hashlib.sha256(f"reverie-review-csrf:{session_id}".encode()).hexdigest()


@dataclass(frozen=True)
class ReviewSession:
    id: str
    profile: str
    can_write: bool
    expires_at: datetime
    token_digest: str
    notice: str | None = None

    @property
    def csrf_token(self) -> str:
        return _csrf_of(self.id)

    @property
    def digest(self) -> str:
        return token_digest(self.id)

    def accepts(self, csrf_token: str) -> bool:
        return hmac.compare_digest(self.csrf_token.encode(), csrf_token.encode())


@dataclass
class SessionStore:
    live: LiveApp
    tokens: TokenRegistry
    lifetime: timedelta = SESSION_LIFETIME

    async def _graph(self, profile_id: str) -> ProfileGraph:
        return await self.live.get().graph_of(profile_id)

    async def sign_in(self, token: str) -> ReviewSession | None:
        """A new session for a valid token with the read scope; None for anything else."""
        digest = token_digest(token.strip())
        granted = self.tokens.grant_by_digest(digest)
        if granted is None or "read" not in granted.scopes:
            return None
        session = ReviewSession(
            id=secrets.token_urlsafe(32),
            profile=granted.profile,
            can_write="write" in granted.scopes,
            expires_at=utcnow() + self.lifetime,
            token_digest=digest,
        )
        graph = await self._graph(session.profile)
        await stored.open_session(graph, session.digest, digest, session.expires_at)
        return session

    async def find(self, session_id: str | None) -> ReviewSession | None:
        """The live session with this id, as its token's grant stands now; None once either ended."""
        if not session_id:
            return None
        app = self.live.get()
        await app.ensure_ready()
        found = await lookup.find_session(app.store, token_digest(session_id))
        if found is None or found.expires_at <= utcnow():
            return None
        session = ReviewSession(
            id=session_id,
            profile=found.profile_id,
            can_write=False,
            expires_at=found.expires_at,
            token_digest=found.token_digest,
            notice=found.notice,
        )
        granted = self.tokens.grant_by_digest(found.token_digest)
        if granted is None or granted.profile != found.profile_id or "read" not in granted.scopes:
            await self.sign_out(session)
            return None
        return replace(session, can_write="write" in granted.scopes)

    async def sign_out(self, session: ReviewSession) -> None:
        await stored.end_session(await self._graph(session.profile), session.digest)

    async def leave_notice(self, session: ReviewSession, text: str) -> None:
        await stored.leave_notice(await self._graph(session.profile), session.digest, text)

    async def take_notice(self, session: ReviewSession) -> str | None:
        """The notice left for this page, read once; no write when there is none."""
        if session.notice is None:
            return None
        return await stored.take_notice(await self._graph(session.profile), session.digest)
