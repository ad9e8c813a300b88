"""A client as the authorization server knows it, however it became known."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull
from pydantic import AnyUrl

from server.connectors.scopes import SCOPES

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _without_loopback_port(url: str) -> str:
    """A loopback redirect URI with its port left out: RFC 8252 lets a native client pick any
    port at run time, so only the rest of the URI must match what it registered."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK:
        return url
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


class ConnectorClient(OAuthClientInformationFull):
    """A registered client, with redirect URIs matched exactly (loopback at any port) and the
    scopes of this server, whatever the registration said."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is None:
            return super().validate_redirect_uri(None)
        wanted = _without_loopback_port(str(redirect_uri))
        if not any(_without_loopback_port(str(known)) == wanted for known in self.redirect_uris or []):
            raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' is not registered for this client")
        return redirect_uri

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        """The scopes of this server among those asked; others are left out rather than refused
        (RFC 6749 lets a server grant less than asked, and apps send their own names: Claude.ai
        has been seen asking for `claudeai`). Nothing known asked reads as nothing asked."""
        known = [scope for scope in (requested_scope or "").split() if scope in SCOPES]
        return known or None

    @property
    def shown_name(self) -> str:
        return self.client_name or self.client_id
