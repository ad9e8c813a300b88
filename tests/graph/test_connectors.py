"""Connector grants and review sessions in the graph: each secret used once, a family revoked
whole, a profile's erasure taking its grants, and no lane reaching another profile's grants."""

from __future__ import annotations

import secrets
import uuid

import pytest

from graph.access import GraphStore, ProfileGraph
from graph.clock import utcnow
from graph.connectors import clients, grants, lookup, sessions
from graph.connectors.records import ClientKind, TokenKind
from graph.forgetting.profile import erase_profile
from server.auth import token_digest

pytestmark = pytest.mark.anyio
RESOURCE = "https://memory.example.org/mcp"


def consent(code: str) -> grants.Consent:
    return grants.Consent(
        grant_id=uuid.uuid4().hex,
        client_id="client-1",
        client_name="Test client",
        scopes=["read", "write"],
        resource=RESOURCE,
        code_digest=token_digest(code),
        redirect_uri="http://127.0.0.1:3000/callback",
        redirect_explicit=True,
        code_challenge="challenge",
    )


def pair() -> tuple[str, str, grants.TokenPair]:
    access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    return access, refresh, grants.TokenPair.starting(token_digest(access), token_digest(refresh), utcnow())


async def granted(graph: ProfileGraph) -> tuple[grants.Consent, str, str]:
    """A consent whose code was redeemed: the consent, its access and its refresh token."""
    code = secrets.token_urlsafe(32)
    given = consent(code)
    await grants.grant_consent(graph, given)
    access, refresh, tokens = pair()
    assert await grants.redeem_code(graph, given.code_digest, tokens)
    return given, access, refresh


async def test_a_code_is_redeemed_once_and_its_tokens_name_their_profile(
    store: GraphStore, graph: ProfileGraph
) -> None:
    given, access, _ = await granted(graph)
    found = await lookup.find_token(store, token_digest(access))
    assert found is not None and (found.profile_id, found.kind) == (graph.profile_id, TokenKind.ACCESS)
    assert (found.resource, found.scopes, found.grant_id) == (RESOURCE, ("read", "write"), given.grant_id)
    code = await lookup.find_code(store, given.code_digest)
    assert code is not None and code.used
    _, _, again = pair()
    assert not await grants.redeem_code(graph, given.code_digest, again)
    assert await lookup.find_token(store, again.access_digest) is None


async def test_a_refresh_token_rotates_once_and_revoking_takes_the_family(
    store: GraphStore, graph: ProfileGraph
) -> None:
    given, access, refresh = await granted(graph)
    new_access, _, rotated = pair()
    assert await grants.rotate_refresh(graph, token_digest(refresh), rotated)
    assert not await grants.rotate_refresh(graph, token_digest(refresh), pair()[2])
    old = await lookup.find_token(store, token_digest(refresh))
    assert old is not None and old.rotated
    assert await grants.revoke_grant(graph, given.grant_id)
    for token in (access, refresh, new_access):
        assert await lookup.find_token(store, token_digest(token)) is None
    assert await lookup.find_code(store, given.code_digest) is None
    assert await grants.list_grants(graph) == []


async def test_last_use_is_written_at_most_once_a_minute(graph: ProfileGraph) -> None:
    given, _, _ = await granted(graph)
    [before] = await grants.list_grants(graph)
    assert before.last_used_at is None
    await grants.note_use(graph, given.grant_id, None)
    [used] = await grants.list_grants(graph)
    assert used.last_used_at is not None
    await grants.note_use(graph, given.grant_id, None)
    [again] = await grants.list_grants(graph)
    assert again.last_used_at == used.last_used_at


async def test_erasing_a_profile_erases_its_grants_and_sessions(
    store: GraphStore, graph: ProfileGraph
) -> None:
    given, access, _ = await granted(graph)
    session_digest = token_digest(secrets.token_urlsafe(32))
    await sessions.open_session(graph, session_digest, "token-digest", utcnow() + grants.ACCESS_LIFETIME)
    assert await lookup.find_session(store, session_digest) is not None
    await erase_profile(graph)
    assert await lookup.find_token(store, token_digest(access)) is None
    assert await lookup.find_code(store, given.code_digest) is None
    assert await lookup.find_session(store, session_digest) is None


async def test_another_profile_can_neither_see_nor_use_nor_revoke_a_grant(
    store: GraphStore, graph: ProfileGraph, other_graph: ProfileGraph
) -> None:
    given, access, refresh = await granted(graph)
    assert await grants.list_grants(other_graph) == []
    assert not await grants.revoke_grant(other_graph, given.grant_id)
    assert not await grants.rotate_refresh(other_graph, token_digest(refresh), pair()[2])
    code = secrets.token_urlsafe(32)
    theirs = consent(code)
    await grants.grant_consent(graph, theirs)
    assert not await grants.redeem_code(other_graph, theirs.code_digest, pair()[2])
    session_digest = token_digest(secrets.token_urlsafe(32))
    await sessions.open_session(graph, session_digest, "token-digest", utcnow() + grants.ACCESS_LIFETIME)
    await sessions.leave_notice(other_graph, session_digest, "not theirs")
    await sessions.end_session(other_graph, session_digest)
    kept = await lookup.find_session(store, session_digest)
    assert kept is not None and kept.notice is None
    assert [g.id for g in await grants.list_grants(graph)] == [given.grant_id, theirs.grant_id]
    assert await lookup.find_token(store, token_digest(access)) is not None


async def test_a_session_notice_is_taken_once(store: GraphStore, graph: ProfileGraph) -> None:
    digest = token_digest(secrets.token_urlsafe(32))
    await sessions.open_session(graph, digest, "token-digest", utcnow() + grants.ACCESS_LIFETIME)
    await sessions.leave_notice(graph, digest, "Recorded.")
    assert await sessions.take_notice(graph, digest) == "Recorded."
    assert await sessions.take_notice(graph, digest) is None
    await sessions.end_session(graph, digest)
    assert await lookup.find_session(store, digest) is None


async def test_a_pending_request_is_answered_once(store: GraphStore) -> None:
    await clients.save_client(store, "client-x", ClientKind.REGISTERED, '{"client_id": "client-x"}')
    stored = await clients.find_client(store, "client-x")
    assert stored is not None and stored.kind is ClientKind.REGISTERED
    request_id = secrets.token_urlsafe(16)
    await clients.save_request(store, request_id, "client-x", "{}")
    assert await clients.find_request(store, request_id) is not None
    assert await clients.take_request(store, request_id) is not None
    assert await clients.take_request(store, request_id) is None
