"""Typed records of the connector nodes, one parser per node kind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from graph.rows import Row, time_of


def _moment(value: datetime | str) -> datetime:
    """A time from a scoped query (a datetime) or a cross-profile one (`toString(t)`)."""
    return time_of(value) if isinstance(value, str) else value


def _maybe_moment(value: datetime | str | None) -> datetime | None:
    return None if value is None else _moment(value)


class TokenKind(StrEnum):
    ACCESS = "access"
    REFRESH = "refresh"


class ClientKind(StrEnum):
    """How a client became known: registered by itself (RFC 7591), or named by its own https
    metadata document (a Client ID Metadata Document)."""

    REGISTERED = "registered"
    METADATA_DOCUMENT = "metadata_document"


@dataclass(frozen=True)
class StoredClient:
    """A client as the deployment knows it; `document` is its metadata as JSON, which the
    server's OAuth layer parses (the domain never reads OAuth's own types)."""

    client_id: str
    kind: ClientKind
    document: str
    registered_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> StoredClient:
        return cls(
            client_id=str(row["client_id"]),
            kind=ClientKind(row["kind"]),
            document=str(row["document"]),
            registered_at=_moment(row["registered_at"]),
        )


@dataclass(frozen=True)
class PendingRequest:
    """An authorization request waiting for the person's answer on the consent page."""

    id: str
    client_id: str
    params: str
    expires_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> PendingRequest:
        return cls(
            id=str(row["id"]),
            client_id=str(row["client_id"]),
            params=str(row["params"]),
            expires_at=_moment(row["expires_at"]),
        )


@dataclass(frozen=True)
class Grant:
    """One consent: a client may act for this profile with these scopes until it is revoked.
    Its codes and tokens form one family, revoked together."""

    id: str
    profile_id: str
    client_id: str
    client_name: str
    scopes: tuple[str, ...]
    resource: str
    created_at: datetime
    last_used_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> Grant:
        return cls(
            id=str(row["id"]),
            profile_id=str(row["profile_id"]),
            client_id=str(row["client_id"]),
            client_name=str(row["client_name"]),
            scopes=tuple(row["scopes"]),
            resource=str(row["resource"]),
            created_at=_moment(row["created_at"]),
            last_used_at=_maybe_moment(row["last_used_at"]),
        )


@dataclass(frozen=True)
class StoredCode:
    """An authorization code, bound to its client, redirect URI, resource and PKCE challenge."""

    profile_id: str
    grant_id: str
    client_id: str
    redirect_uri: str
    redirect_explicit: bool
    code_challenge: str
    resource: str
    scopes: tuple[str, ...]
    expires_at: datetime
    used: bool

    @classmethod
    def from_row(cls, row: Row) -> StoredCode:
        return cls(
            profile_id=str(row["profile_id"]),
            grant_id=str(row["grant_id"]),
            client_id=str(row["client_id"]),
            redirect_uri=str(row["redirect_uri"]),
            redirect_explicit=bool(row["redirect_explicit"]),
            code_challenge=str(row["code_challenge"]),
            resource=str(row["resource"]),
            scopes=tuple(row["scopes"]),
            expires_at=_moment(row["expires_at"]),
            used=bool(row["used"]),
        )


@dataclass(frozen=True)
class StoredToken:
    """An access or refresh token of a grant; `rotated` marks a refresh token already used."""

    profile_id: str
    grant_id: str
    kind: TokenKind
    client_id: str
    scopes: tuple[str, ...]
    resource: str
    expires_at: datetime
    rotated: bool
    grant_last_used_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> StoredToken:
        return cls(
            profile_id=str(row["profile_id"]),
            grant_id=str(row["grant_id"]),
            kind=TokenKind(row["kind"]),
            client_id=str(row["client_id"]),
            scopes=tuple(row["scopes"]),
            resource=str(row["resource"]),
            expires_at=_moment(row["expires_at"]),
            rotated=bool(row["rotated"]),
            grant_last_used_at=_maybe_moment(row["grant_last_used_at"]),
        )


@dataclass(frozen=True)
class StoredSession:
    """A signed-in review-page session: the static token's digest it follows, and the one
    notice waiting for its next page."""

    profile_id: str
    token_digest: str
    expires_at: datetime
    notice: str | None

    @classmethod
    def from_row(cls, row: Row) -> StoredSession:
        return cls(
            profile_id=str(row["profile_id"]),
            token_digest=str(row["token_digest"]),
            expires_at=_moment(row["expires_at"]),
            notice=row["notice"],
        )
