"""Bearer tokens for the HTTP transport: each token maps to one profile and its scopes.

The token file is JSON: {"tokens": [{"token": "...", "profile": "alice", "scopes": ["read", "write"]}]}.
It is read at start; a token's profile travels in `AccessToken.subject` to the tools.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from mcp.server.auth.provider import AccessToken
from pydantic import BaseModel, Field, ValidationError, field_validator

from graph.access import validate_profile_id
from graph.errors import InvalidInputError

Scope = Literal["read", "write"]


class TokenGrant(BaseModel):
    token: str = Field(min_length=16)
    profile: str
    scopes: list[Scope] = Field(default=["read", "write"], min_length=1)
    name: str | None = None

    @field_validator("profile")
    @classmethod
    def _profile_is_valid(cls, value: str) -> str:
        try:
            return validate_profile_id(value)
        except InvalidInputError as error:
            raise ValueError(str(error)) from None


class TokenFile(BaseModel):
    tokens: list[TokenGrant] = Field(default_factory=list)


class TokenFileError(Exception):
    pass


def load_token_file(path: Path) -> TokenFile:
    try:
        return TokenFile.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TokenFileError(
            f"Token file {path} does not exist. Create one with `reverie token create`."
        ) from None
    except ValidationError as error:
        raise TokenFileError(f"Token file {path} is malformed: {error.errors()[0]['msg']}") from None
    except UnicodeDecodeError:
        raise TokenFileError(
            f"Token file {path} is not UTF-8 JSON; point REVERIE_TOKENS_FILE at the file "
            "`reverie token create` writes."
        ) from None
    except OSError as error:
        raise TokenFileError(
            f"Token file {path} cannot be read ({error.strerror}); REVERIE_TOKENS_FILE must name a "
            "readable file, e.g. the one `reverie token create` writes."
        ) from None


def add_token(path: Path, profile: str, scopes: Iterable[Scope], name: str | None = None) -> TokenGrant:
    """Append a new random token to the file (created 0600 if missing) and return it."""
    current = load_token_file(path) if path.exists() else TokenFile()
    grant = TokenGrant(token=secrets.token_urlsafe(32), profile=profile, scopes=list(scopes), name=name)
    current.tokens.append(grant)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(current.model_dump(exclude_none=True), indent=2))
    temporary.replace(path)
    return grant


class StaticTokenVerifier:
    """Checks bearer tokens against the token file's grants in constant time."""

    def __init__(self, grants: Iterable[TokenGrant]) -> None:
        self._grants = list(grants)

    async def verify_token(self, token: str) -> AccessToken | None:
        for grant in self._grants:
            if hmac.compare_digest(grant.token.encode(), token.encode()):
                return AccessToken(
                    token=token,
                    client_id=grant.name or grant.profile,
                    scopes=list(grant.scopes),
                    subject=grant.profile,
                )
        return None
