"""Review-page sessions kept in the graph, so a sign-in made through one server process holds
on every other process of the deployment.

A session is stored under its id's digest (the id lives only in the person's cookie), with the
digest of the static token it was signed in with; the server checks that token against its
token file on every page. Lookups by cookie go through `graph.connectors.lookup`.
"""

from __future__ import annotations

from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.connectors import queries as q


async def _open(tx: ProfileTx, digest: str, token_digest: str, expires_at: datetime) -> None:
    await tx.run(q.PURGE_EXPIRED, now=utcnow())
    await tx.one(q.CREATE_SESSION, digest=digest, token_digest=token_digest, expires_at=expires_at)


async def open_session(graph: ProfileGraph, digest: str, token_digest: str, expires_at: datetime) -> None:
    await graph.write(_open, digest, token_digest, expires_at)


async def _end(tx: ProfileTx, digest: str) -> None:
    await tx.run(q.END_SESSION, digest=digest)


async def end_session(graph: ProfileGraph, digest: str) -> None:
    await graph.write(_end, digest)


async def _leave(tx: ProfileTx, digest: str, text: str) -> None:
    await tx.run(q.LEAVE_NOTICE, digest=digest, text=text)


async def leave_notice(graph: ProfileGraph, digest: str, text: str) -> None:
    await graph.write(_leave, digest, text)


async def _take(tx: ProfileTx, digest: str) -> str | None:
    row = await tx.single(q.TAKE_NOTICE, digest=digest)
    return None if row is None else row["notice"]


async def take_notice(graph: ProfileGraph, digest: str) -> str | None:
    return await graph.write(_take, digest)
