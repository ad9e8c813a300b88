"""The SDK's `OAuthAuthorizationServerProvider`, answered from the grants kept in Neo4j.

The SDK's handlers check the request's shape, PKCE (S256 only), the redirect URI and expiry;
this provider keeps the state, so that every server process of a deployment accepts what any
other issued. Access tokens are opaque random strings looked up by their digest on each request
(one unique-index seek), so a revocation bites on the very next request, in every process.
Static tokens from the token file are accepted too, as they always were.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl, BaseModel

from graph.access import GraphStore
from graph.clock import utcnow
from graph.connectors import clients, grants, lookup
from graph.connectors.records import ClientKind, StoredToken, TokenKind
from server.auth import token_digest
from server.connectors.client import LOOPBACK, ConnectorClient
from server.connectors.metadata_documents import (
    MetadataDocumentError,
    MetadataDocuments,
    is_metadata_document_id,
)
from server.connectors.scopes import SCOPES, widened
from server.context import LiveApp
from server.token_registry import TokenRegistry

log = logging.getLogger(__name__)

CONSENT_PATH = "/review/connect"


class PendingAuthorization(BaseModel):
    """An authorization request waiting on the consent page, as it is kept in the graph."""

    client_id: str
    client_name: str
    redirect_uri: str
    redirect_explicit: bool
    code_challenge: str
    state: str | None
    scopes: list[str]
    resource: str

    @property
    def redirect_host(self) -> str:
        return urlsplit(self.redirect_uri).netloc


class ConnectorCode(AuthorizationCode):
    profile_id: str
    grant_id: str


class ConnectorRefreshToken(RefreshToken):
    profile_id: str
    grant_id: str


class ConnectorAccessToken(AccessToken):
    """`grant_id` is None for a static token, which the token file alone revokes."""

    grant_id: str | None = None


def _redirect_registered(info: OAuthClientInformationFull) -> None:
    for uri in info.redirect_uris or []:
        parts = urlsplit(str(uri))
        if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in LOOPBACK):
            raise RegistrationError(
                "invalid_redirect_uri",
                f"Redirect URI {uri} is neither https nor a loopback http address; register one that is.",
            )


@dataclass
class ConnectorProvider:
    live: LiveApp
    tokens: TokenRegistry
    public_url: str
    # None: https client ids are not accepted (REVERIE_CLIENT_METADATA_DOCUMENTS=false).
    documents: MetadataDocuments | None = None

    @property
    def resource(self) -> str:
        return f"{self.public_url}/mcp"

    async def _store(self) -> GraphStore:
        app = self.live.get()
        await app.ensure_ready()
        return app.store

    # --- clients ---------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> ConnectorClient | None:
        if self.documents is not None and is_metadata_document_id(client_id):
            try:
                return await self.documents.client(client_id)
            except MetadataDocumentError as error:
                # The SDK answers a client it cannot find with "not found"; the reason is logged.
                log.warning("Client %s refused: %s", client_id[:200], error)
                return None
        stored = await clients.find_client(await self._store(), client_id)
        return None if stored is None else ConnectorClient.model_validate_json(stored.document)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Every client is registered as a public client: no secret is issued, PKCE is its proof
        (RFC 7591 lets the server replace what a client asked for; the SDK answers with this
        object, so the changes below are what the client is told)."""
        _redirect_registered(client_info)
        client_info.client_secret = None
        client_info.client_secret_expires_at = None
        client_info.token_endpoint_auth_method = "none"
        client_info.scope = " ".join(SCOPES)
        document = client_info.model_dump_json(exclude_none=True)
        await clients.save_client(await self._store(), client_info.client_id, ClientKind.REGISTERED, document)

    # --- the authorization request and the person's answer --------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        resource = self._checked_resource(params.resource)
        pending = PendingAuthorization(
            client_id=client.client_id,
            client_name=client.client_name or client.client_id,
            redirect_uri=str(params.redirect_uri),
            redirect_explicit=params.redirect_uri_provided_explicitly,
            code_challenge=params.code_challenge,
            state=params.state,
            scopes=widened(params.scopes),
            resource=resource,
        )
        request_id = secrets.token_urlsafe(32)
        await clients.save_request(
            await self._store(), request_id, client.client_id, pending.model_dump_json()
        )
        return construct_redirect_uri(f"{self.public_url}{CONSENT_PATH}", request=request_id)

    def _checked_resource(self, resource: str | None) -> str:
        """RFC 8707: a token is for this server's /mcp only; asking for any other audience is refused."""
        if resource is None or resource.rstrip("/") == self.resource:
            return self.resource
        raise AuthorizeError(
            "invalid_target", f"This server issues tokens for {self.resource} only, not {resource}."
        )

    async def pending(self, request_id: str) -> PendingAuthorization | None:
        found = await clients.find_request(await self._store(), request_id)
        return None if found is None else PendingAuthorization.model_validate_json(found.params)

    async def approve(self, request_id: str, profile_id: str, allowed: list[str]) -> str | None:
        """Answer a pending request with a code for `profile_id`; the redirect to send the browser
        to, or None when the request has lapsed or was answered already."""
        store = await self._store()
        found = await clients.take_request(store, request_id)
        if found is None:
            return None
        pending = PendingAuthorization.model_validate_json(found.params)
        code = secrets.token_urlsafe(32)
        consent = grants.Consent(
            grant_id=uuid.uuid4().hex,
            client_id=pending.client_id,
            client_name=pending.client_name,
            scopes=[scope for scope in pending.scopes if scope in allowed] or ["read"],
            resource=pending.resource,
            code_digest=token_digest(code),
            redirect_uri=pending.redirect_uri,
            redirect_explicit=pending.redirect_explicit,
            code_challenge=pending.code_challenge,
        )
        await grants.grant_consent(store.profile(profile_id), consent)
        return construct_redirect_uri(
            pending.redirect_uri, code=code, state=pending.state, iss=self.public_url
        )

    async def deny(self, request_id: str) -> str | None:
        found = await clients.take_request(await self._store(), request_id)
        if found is None:
            return None
        pending = PendingAuthorization.model_validate_json(found.params)
        return construct_redirect_uri(
            pending.redirect_uri,
            error="access_denied",
            error_description="The person declined to connect this client.",
            state=pending.state,
        )

    # --- codes and tokens --------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> ConnectorCode | None:
        store = await self._store()
        found = await lookup.find_code(store, token_digest(authorization_code))
        if found is None or found.client_id != client.client_id:
            return None
        if found.used:
            await _presented_again(store, found.profile_id, found.grant_id, "An authorization code")
            return None
        return ConnectorCode(
            code=authorization_code,
            scopes=list(found.scopes),
            expires_at=found.expires_at.timestamp(),
            client_id=found.client_id,
            code_challenge=found.code_challenge,
            redirect_uri=AnyUrl(found.redirect_uri),
            redirect_uri_provided_explicitly=found.redirect_explicit,
            resource=found.resource,
            subject=found.profile_id,
            profile_id=found.profile_id,
            grant_id=found.grant_id,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: ConnectorCode
    ) -> OAuthToken:
        access, refresh, pair = _new_pair()
        graph = (await self._store()).profile(authorization_code.profile_id)
        if not await grants.redeem_code(graph, token_digest(authorization_code.code), pair):
            raise TokenError("invalid_grant", "This authorization code was already used or has expired.")
        return _answer(access, refresh, pair, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> ConnectorRefreshToken | None:
        store = await self._store()
        found = await lookup.find_token(store, token_digest(refresh_token))
        if found is None or found.kind is not TokenKind.REFRESH or found.client_id != client.client_id:
            return None
        if found.rotated:
            await _presented_again(store, found.profile_id, found.grant_id, "A rotated refresh token")
            return None
        return ConnectorRefreshToken(**_token_fields(refresh_token, found), profile_id=found.profile_id)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: ConnectorRefreshToken, scopes: list[str]
    ) -> OAuthToken:
        access, refresh, pair = _new_pair()
        graph = (await self._store()).profile(refresh_token.profile_id)
        if not await grants.rotate_refresh(graph, token_digest(refresh_token.token), pair):
            raise TokenError("invalid_grant", "This refresh token was already used or has expired.")
        # A refresh keeps the grant's scopes: narrowing per token would need a grant per scope set.
        return _answer(access, refresh, pair, refresh_token.scopes)

    async def load_access_token(self, token: str) -> ConnectorAccessToken | None:
        static = await self.tokens.verify_token(token)
        if static is not None:
            # Issued by this server for its own /mcp: the same audience as a connector's token.
            return ConnectorAccessToken(**static.model_dump(exclude={"resource"}), resource=self.resource)
        store = await self._store()
        found = await lookup.find_token(store, token_digest(token))
        if found is None or found.kind is not TokenKind.ACCESS or found.expires_at <= utcnow():
            return None
        await grants.note_use(store.profile(found.profile_id), found.grant_id, found.grant_last_used_at)
        return ConnectorAccessToken(**_token_fields(token, found))

    async def revoke_token(self, token: ConnectorAccessToken | ConnectorRefreshToken) -> None:
        """RFC 7009: a connector's token is revoked with its whole grant; a static token is not
        revocable here (the token file is its only authority)."""
        if token.grant_id is None or token.subject is None:
            return
        await grants.revoke_grant((await self._store()).profile(token.subject), token.grant_id)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        """Enterprise identity assertions (SEP-990) are not accepted: a person consents here."""
        raise TokenError("unsupported_grant_type", "This server grants access only through its consent page.")


async def _presented_again(store: GraphStore, profile_id: str, grant_id: str, what: str) -> None:
    """A secret meant for one use came back: one of its two presenters is not the client it was
    issued to, so nothing the grant gave is safe any more."""
    log.warning("%s was presented again; its grant is revoked.", what)
    await grants.revoke_grant(store.profile(profile_id), grant_id)


def _new_pair() -> tuple[str, str, grants.TokenPair]:
    """A new access and refresh token, and their digests as the graph keeps them."""
    access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    return access, refresh, grants.TokenPair.starting(token_digest(access), token_digest(refresh), utcnow())


def _token_fields(token: str, found: StoredToken) -> dict[str, Any]:
    """What the SDK's access and refresh token models hold, from a stored token."""
    return {
        "token": token,
        "client_id": found.client_id,
        "scopes": list(found.scopes),
        "expires_at": int(found.expires_at.timestamp()),
        "resource": found.resource,
        "subject": found.profile_id,
        "grant_id": found.grant_id,
    }


def _answer(access: str, refresh: str, pair: grants.TokenPair, scopes: list[str]) -> OAuthToken:
    return OAuthToken(
        access_token=access,
        token_type="Bearer",
        expires_in=int(grants.ACCESS_LIFETIME.total_seconds()),
        scope=" ".join(scopes),
        refresh_token=refresh,
    )
