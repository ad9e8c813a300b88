"""A profile's grants: consent, the code's one use, refresh rotation, revocation, listing.

Every secret is passed in as its digest (the server makes the secrets and shows them once).
Rules that concern theft are kept here, in the graph, so every server process applies them alike:
a code is used once, a refresh token once; presenting either again revokes the whole grant,
since one of the two presenters is not the client it was issued to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.connectors import queries as q
from graph.connectors.records import Grant, TokenKind
from graph.rows import count_of

CODE_LIFETIME: Final = timedelta(minutes=2)
ACCESS_LIFETIME: Final = timedelta(hours=1)
REFRESH_LIFETIME: Final = timedelta(days=30)
# How stale a grant's "last used" may get before a call writes it again.
LAST_USE_PRECISION: Final = timedelta(minutes=1)


@dataclass(frozen=True)
class Consent:
    """What the person allowed on the consent page, and the code that carries it to the client."""

    grant_id: str
    client_id: str
    client_name: str
    scopes: Sequence[str]
    resource: str
    code_digest: str
    redirect_uri: str
    redirect_explicit: bool
    code_challenge: str


@dataclass(frozen=True)
class TokenPair:
    """Digests of a new access and refresh token, with when each lapses."""

    access_digest: str
    refresh_digest: str
    access_expires_at: datetime
    refresh_expires_at: datetime

    @classmethod
    def starting(cls, access_digest: str, refresh_digest: str, now: datetime) -> TokenPair:
        return cls(access_digest, refresh_digest, now + ACCESS_LIFETIME, now + REFRESH_LIFETIME)

    def rows(self) -> list[dict[str, object]]:
        return [
            {
                "digest": self.access_digest,
                "kind": TokenKind.ACCESS.value,
                "expires_at": self.access_expires_at,
            },
            {
                "digest": self.refresh_digest,
                "kind": TokenKind.REFRESH.value,
                "expires_at": self.refresh_expires_at,
            },
        ]


async def _consent(tx: ProfileTx, consent: Consent, now: datetime) -> None:
    await tx.run(q.PURGE_EXPIRED, now=now)
    await tx.one(
        q.CREATE_GRANT,
        grant_id=consent.grant_id,
        client_id=consent.client_id,
        client_name=consent.client_name,
        scopes=list(consent.scopes),
        resource=consent.resource,
        code_digest=consent.code_digest,
        redirect_uri=consent.redirect_uri,
        redirect_explicit=consent.redirect_explicit,
        code_challenge=consent.code_challenge,
        code_expires_at=now + CODE_LIFETIME,
        now=now,
    )


async def grant_consent(graph: ProfileGraph, consent: Consent) -> datetime:
    """Write the grant and its code; returns when the code lapses."""
    now = utcnow()
    await graph.write(_consent, consent, now)
    return now + CODE_LIFETIME


async def _redeem(tx: ProfileTx, code_digest: str, pair: TokenPair, now: datetime) -> bool:
    row = await tx.single(q.REDEEM_CODE, code_digest=code_digest, tokens=pair.rows(), now=now)
    return count_of(row) == 2


async def redeem_code(graph: ProfileGraph, code_digest: str, pair: TokenPair) -> bool:
    """Use the code once for the grant's first tokens; False (nothing written) when it was used,
    has lapsed or does not exist."""
    return await graph.write(_redeem, code_digest, pair, utcnow())


async def _rotate(tx: ProfileTx, refresh_digest: str, pair: TokenPair, now: datetime) -> bool:
    row = await tx.single(q.ROTATE_REFRESH, refresh_digest=refresh_digest, tokens=pair.rows(), now=now)
    return count_of(row) == 2


async def rotate_refresh(graph: ProfileGraph, refresh_digest: str, pair: TokenPair) -> bool:
    """Use a refresh token once for the grant's next pair; False (nothing written) when it was
    used, has lapsed or does not exist."""
    return await graph.write(_rotate, refresh_digest, pair, utcnow())


async def _revoke(tx: ProfileTx, grant_id: str) -> bool:
    return count_of(await tx.single(q.REVOKE_GRANT, grant_id=grant_id)) > 0


async def revoke_grant(graph: ProfileGraph, grant_id: str) -> bool:
    """Delete the grant with every code and token of its family; False when it did not exist."""
    return await graph.write(_revoke, grant_id)


async def _touch(tx: ProfileTx, grant_id: str, now: datetime) -> None:
    await tx.run(q.TOUCH_GRANT, grant_id=grant_id, now=now, stale=now - LAST_USE_PRECISION)


async def note_use(graph: ProfileGraph, grant_id: str, last_used_at: datetime | None) -> None:
    """Record that the grant was used now, unless it already was within `LAST_USE_PRECISION`."""
    now = utcnow()
    if last_used_at is None or last_used_at < now - LAST_USE_PRECISION:
        await graph.write(_touch, grant_id, now)


async def _list(tx: ProfileTx) -> list[Grant]:
    return [Grant.from_row(row) for row in await tx.run(q.LIST_GRANTS)]


async def list_grants(graph: ProfileGraph) -> list[Grant]:
    """The profile's connected clients, oldest first."""
    return await graph.read(_list)
