"""Signed-in browser sessions of the review page.

A person signs in once with the same bearer token an MCP host uses; the page then holds an
opaque random session id in an HttpOnly, SameSite=Strict cookie. Sessions live in this
process's memory only: a restart signs everyone out, which is the safe direction to fail.
Every state-changing form carries the session's own CSRF token. A session keeps its token's
digest and follows the token file: revoking the token ends it, changing its scopes changes what
it may do.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from graph.clock import utcnow
from server.auth import token_digest
from server.token_registry import TokenRegistry

SESSION_COOKIE = "reverie_review"
SESSION_LIFETIME = timedelta(hours=8)


@dataclass(frozen=True)
class ReviewSession:
    id: str
    profile: str
    can_write: bool
    csrf_token: str
    expires_at: datetime
    token_digest: str

    def accepts(self, csrf_token: str) -> bool:
        return hmac.compare_digest(self.csrf_token.encode(), csrf_token.encode())


@dataclass
class SessionStore:
    tokens: TokenRegistry
    lifetime: timedelta = SESSION_LIFETIME
    _sessions: dict[str, ReviewSession] = field(default_factory=dict)
    # One message to show on the next page a session sees (after a redirect).
    _notices: dict[str, str] = field(default_factory=dict)

    def sign_in(self, token: str) -> ReviewSession | None:
        """A new session for a valid token with the read scope; None for anything else."""
        digest = token_digest(token.strip())
        granted = self.tokens.grant_by_digest(digest)
        if granted is None or "read" not in granted.scopes:
            return None
        self._forget_expired()
        session = ReviewSession(
            id=secrets.token_urlsafe(32),
            profile=granted.profile,
            can_write="write" in granted.scopes,
            csrf_token=secrets.token_urlsafe(32),
            expires_at=utcnow() + self.lifetime,
            token_digest=digest,
        )
        self._sessions[session.id] = session
        return session

    def find(self, session_id: str | None) -> ReviewSession | None:
        """The live session with this id, as its token's grant stands now; None once either ended."""
        session = self._sessions.get(session_id or "")
        if session is None or session.expires_at <= utcnow():
            return None
        granted = self.tokens.grant_by_digest(session.token_digest)
        if granted is None or granted.profile != session.profile or "read" not in granted.scopes:
            self.sign_out(session.id)
            return None
        return replace(session, can_write="write" in granted.scopes)

    def sign_out(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        self._notices.pop(session_id, None)

    def leave_notice(self, session: ReviewSession, text: str) -> None:
        self._notices[session.id] = text

    def take_notice(self, session: ReviewSession) -> str | None:
        return self._notices.pop(session.id, None)

    def _forget_expired(self) -> None:
        now = utcnow()
        for expired in [key for key, session in self._sessions.items() if session.expires_at <= now]:
            self.sign_out(expired)
