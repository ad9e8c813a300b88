"""The live set of bearer tokens: the token file, read again whenever it changes.

Each lookup stats the file (cheap next to a request), so a token added to or revoked from the
file works or stops on the next request, for MCP and the review page alike, without a restart.
A file that turns malformed or disappears keeps the last good tokens and says so in the log:
silently granting or refusing everyone would be worse than a stale set until it is fixed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mcp.server.auth.provider import AccessToken

from server.auth import TokenFileError, TokenGrant, load_token_file, loose_permissions_warning, token_digest

log = logging.getLogger(__name__)

# What changes when the file is rewritten: an atomic replace gives a new inode, an edit in
# place a new size or modification time.
FileStamp = tuple[int, int, int, int]


def _stamp(path: Path) -> FileStamp | None:
    try:
        seen = path.stat()
    except OSError:
        return None
    return seen.st_dev, seen.st_ino, seen.st_size, seen.st_mtime_ns


def _by_digest(grants: list[TokenGrant]) -> dict[str, TokenGrant]:
    # Looked up by the token's digest, not the token: a lookup's timing then tells an attacker
    # nothing about any token, as a digest cannot be turned back into one.
    return {token_digest(grant.token): grant for grant in grants}


def _difference(before: dict[str, TokenGrant], after: dict[str, TokenGrant]) -> str:
    """Which grants a change added, revoked or changed, by label: the log line an operator audits."""
    kept = after.keys() & before.keys()
    parts = [
        ("added", [after[digest] for digest in after.keys() - before.keys()]),
        ("revoked", [before[digest] for digest in before.keys() - after.keys()]),
        ("changed", [after[digest] for digest in kept if after[digest] != before[digest]]),
    ]
    said = [f"{what} {', '.join(grant.label for grant in grants)}" for what, grants in parts if grants]
    return "; ".join(said) or "no grant changed"


class TokenRegistry:
    """The token file's grants, always as the file is now (or as it last was, if it broke)."""

    def __init__(self, path: Path) -> None:
        """Read the file; one that cannot be used stops the start with TokenFileError."""
        self.path = path
        self._stamp = _stamp(path)
        self._grants = _by_digest(load_token_file(path).tokens)
        warning = loose_permissions_warning(path)
        if warning:
            log.warning(warning)

    def grants(self) -> list[TokenGrant]:
        self._refresh()
        return list(self._grants.values())

    def grant_for(self, token: str) -> TokenGrant | None:
        return self.grant_by_digest(token_digest(token))

    def grant_by_digest(self, digest: str) -> TokenGrant | None:
        self._refresh()
        return self._grants.get(digest)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's TokenVerifier: a grant's profile travels in `AccessToken.subject` to the tools."""
        grant = self.grant_for(token)
        if grant is None:
            return None
        return AccessToken(
            token=token,
            client_id=grant.name or grant.profile,
            scopes=list(grant.scopes),
            subject=grant.profile,
        )

    def _refresh(self) -> None:
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        # Taken before reading: a write racing this read changes the stamp again, and the next
        # lookup reads once more.
        self._stamp = stamp
        try:
            grants = _by_digest(load_token_file(self.path).tokens)
        except TokenFileError as error:
            log.warning("%s Still serving the %d tokens read before it changed.", error, len(self._grants))
            return
        log.info("Token file %s changed: %s.", self.path, _difference(self._grants, grants))
        self._grants = grants
        if not grants:
            log.warning(
                "Token file %s holds no tokens: every request is refused until one is added.", self.path
            )
