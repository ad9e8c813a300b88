"""Routes matched before the SDK's own: the authorization server's metadata, at its RFC 8414
address and the OpenID discovery alias, and revocation for public clients; and the scopes in the
401 challenge.

The SDK serves RFC 8414 metadata itself, but cannot say `client_id_metadata_document_supported`;
these routes, matched before the SDK's, answer the same metadata with that member. Some clients
look for /.well-known/openid-configuration first (the MCP authorization spec tells clients to
try both). Reverie is no OpenID provider (it issues no ID tokens): the alias holds the same
OAuth metadata, no more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.connectors.provider import ConnectorProvider
from server.connectors.scopes import SCOPES

PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


def metadata_routes(auth: AuthSettings, *, metadata_documents: bool) -> list[Route]:
    metadata = build_metadata(
        auth.issuer_url,
        auth.service_documentation_url,
        auth.client_registration_options or ClientRegistrationOptions(),
        auth.revocation_options or RevocationOptions(),
    )
    metadata.client_id_metadata_document_supported = metadata_documents
    # Every client is public (`ConnectorProvider.register_client`): PKCE, not a secret, proves it.
    metadata.token_endpoint_auth_methods_supported = ["none"]
    metadata.revocation_endpoint_auth_methods_supported = ["none"]
    body = metadata.model_dump(mode="json", exclude_none=True)

    async def answer(request: Request) -> Response:
        return JSONResponse(body, headers={"Cache-Control": "public, max-age=3600"})

    endpoint = cors_middleware(answer, ["GET", "OPTIONS"])
    return [Route(path, endpoint=endpoint, methods=["GET", "OPTIONS"]) for path in PATHS]


class _Revocation(BaseModel):
    token: str
    token_type_hint: Literal["access_token", "refresh_token"] | None = None
    client_id: str


def revocation_route(provider: ConnectorProvider) -> Route:
    """RFC 7009 revocation for public clients. The SDK's own handler (mcp 2.3.0) requires a
    client_secret field, which a public client has none to send (and an empty form field never
    reaches it), so it refused every revocation of Reverie's clients with a 400."""
    authenticator = ClientAuthenticator(provider)

    async def revoke(request: Request) -> Response:
        try:
            client = await authenticator.authenticate_request(request)
            asked = _Revocation.model_validate(dict(await request.form()))
        except AuthenticationError as error:
            return JSONResponse({"error": "unauthorized_client", "error_description": error.message}, 401)
        except ValidationError as error:
            return JSONResponse(
                {"error": "invalid_request", "error_description": stringify_pydantic_error(error)}, 400
            )
        # An unknown token, or one of another client, is answered like a revoked one (RFC 7009 §2.2).
        found = await provider.load_access_token(asked.token) or await provider.load_refresh_token(
            client, asked.token
        )
        if found is not None and found.client_id == client.client_id:
            await provider.revoke_token(found)
        return Response(status_code=200, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    return Route(
        "/revoke", endpoint=cors_middleware(revoke, ["POST", "OPTIONS"]), methods=["POST", "OPTIONS"]
    )


@dataclass(frozen=True)
class ScopeChallenge:
    """ASGI middleware: a 401 from /mcp names the scopes a connector should ask for
    (`scope="read write"` in WWW-Authenticate), which the MCP authorization spec has clients
    read first; the SDK's own challenge names only the resource metadata."""

    app: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                headers = [
                    (
                        key,
                        value + _SCOPES
                        if key.lower() == b"www-authenticate" and b"scope=" not in value
                        else value,
                    )
                    for key, value in message.get("headers", [])
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


_SCOPES = f', scope="{" ".join(SCOPES)}"'.encode()
