"""The token file of the HTTP transport: each bearer token maps to one profile and its scopes.

The file is JSON: {"tokens": [{"token": "...", "profile": "alice", "scopes": ["read", "write"]}]}.
Writes replace it atomically (a reader never sees half a file) and go through a symlink at its
path to the link's target. Listings and logs show a token only by its fingerprint; the token
itself is printed only to a person who asks at a terminal (`reverie token create` and `show`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from filelock import FileLock, Timeout
from pydantic import BaseModel, Field, ValidationError, field_validator

from graph.access import validate_profile_id
from graph.errors import InvalidInputError, validation_problems
from graph.text import log_safe

Scope = Literal["read", "write"]
MAX_TOKEN_NAME_CHARS = 64
# How long a token command waits for another one changing the same file.
_LOCK_WAIT_S = 10


def token_digest(token: str) -> str:
    """The SHA-256 of a token: safe to keep, compare and log, as it cannot be turned back."""
    return hashlib.sha256(token.encode()).hexdigest()


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

    @field_validator("scopes")
    @classmethod
    def _write_implies_read(cls, value: list[Scope]) -> list[Scope]:
        # Every tool and page that writes also reads first, so a write-only grant would open
        # nothing; the grant is widened to what it can only mean instead of being refused.
        return ["read", "write"] if "write" in value else ["read"]

    @property
    def shown_name(self) -> str | None:
        """The name as logs and listings show it: one line, whatever a hand-edited file holds."""
        return log_safe(self.name) if self.name is not None else None

    @property
    def fingerprint(self) -> str:
        """A short public name of the token: the start of its digest, never of the token."""
        return token_digest(self.token)[:12]

    @property
    def label(self) -> str:
        return f"{self.shown_name or 'unnamed'} ({self.fingerprint}, profile {self.profile})"


class TokenFile(BaseModel):
    tokens: list[TokenGrant] = Field(default_factory=list)


class TokenFileError(Exception):
    pass


def load_token_file(path: Path) -> TokenFile:
    """The file's grants; a file that cannot be read, parsed or trusted is a TokenFileError."""
    try:
        loaded = TokenFile.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TokenFileError(
            f"Token file {path} does not exist. Create one with `reverie token create`."
        ) from None
    except ValidationError as error:
        raise TokenFileError(f"Token file {path} is malformed: {validation_problems(error)}") from None
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
    _refuse_shared_tokens(path, loaded)
    return loaded


def _refuse_shared_tokens(path: Path, loaded: TokenFile) -> None:
    # One token in two grants would open whichever comes first: the file is refused instead.
    first_by_token: dict[str, TokenGrant] = {}
    for grant in loaded.tokens:
        first = first_by_token.setdefault(grant.token, grant)
        if first is not grant:
            raise TokenFileError(
                f"Token file {path} grants the same token twice, as {first.label} and as {grant.label}; "
                "give each grant its own token (`reverie token create`)."
            )


def loose_permissions_warning(path: Path) -> str | None:
    """A warning when others than the owner may read the file, else None."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & 0o077:
        return None
    return (
        f"Token file {path} can be read by other users (mode {mode:o}); anyone who reads it can use "
        f"its tokens. Run `chmod 600 {path}`."
    )


def add_token(path: Path, profile: str, scopes: Iterable[Scope], name: str | None = None) -> TokenGrant:
    """Append a new random token to the file (created 0600 if missing) and return it."""
    if name is not None:
        check_token_name(name)
    grant = TokenGrant(token=secrets.token_urlsafe(32), profile=profile, scopes=list(scopes), name=name)
    with _edited(path, missing_ok=True) as current:
        current.tokens.append(grant)
    return grant


def check_token_name(name: str) -> None:
    """A new token's name is one short printable line: it is shown in logs and listings.

    Checked when a token is created, not when the file is read: a file written by hand with an
    odd name keeps working, and its name is shown escaped (`shown_name`)."""
    if not name.strip() or len(name) > MAX_TOKEN_NAME_CHARS or not name.isprintable():
        raise InvalidInputError(
            f"A token name is one line of up to {MAX_TOKEN_NAME_CHARS} printable characters, with no "
            f"control characters (newlines, tabs, escapes); got {log_safe(name[:80])}. Choose another --name."
        )


def _the_one(path: Path, grants: list[TokenGrant], name_or_fingerprint: str) -> TokenGrant:
    """The one grant with this name or fingerprint; none or several is an error."""
    chosen = [grant for grant in grants if name_or_fingerprint in (grant.name, grant.fingerprint)]
    if not chosen:
        raise TokenFileError(
            f"No token in {path} is named or fingerprinted {name_or_fingerprint!r}; "
            "`reverie token list` shows them."
        )
    if len(chosen) > 1:
        labels = ", ".join(grant.label for grant in chosen)
        raise TokenFileError(
            f"{len(chosen)} tokens in {path} match {name_or_fingerprint!r}: {labels}. Nothing was "
            "done; name one by its fingerprint."
        )
    return chosen[0]


def find_token(path: Path, name_or_fingerprint: str) -> TokenGrant:
    """The one token with this name or fingerprint (see `_the_one`)."""
    return _the_one(path, load_token_file(path).tokens, name_or_fingerprint)


def revoke_token(path: Path, name_or_fingerprint: str) -> TokenGrant:
    """Remove the one token with this name or fingerprint; none or several is an error and changes nothing."""
    with _edited(path, missing_ok=False) as current:
        chosen = _the_one(path, current.tokens, name_or_fingerprint)
        current.tokens.remove(chosen)
    return chosen


@contextmanager
def _edited(path: Path, *, missing_ok: bool) -> Iterator[TokenFile]:
    """The token file, read and written back under a lock beside it, so that two commands
    changing it at once cannot lose one's change; nothing is written when the block raises."""
    target = _write_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(target.with_name(f".{target.name}.lock"), timeout=_LOCK_WAIT_S):
            current = TokenFile() if missing_ok and not target.exists() else load_token_file(target)
            yield current
            _replace(target, current)
    except Timeout:
        raise TokenFileError(
            f"Another command is changing {path} (its lock was held for {_LOCK_WAIT_S} s); try again."
        ) from None


def _write_target(path: Path) -> Path:
    """The file a write changes: the path itself, or the target of a symlink there.

    Replacing a link with a regular file would leave the file it points to (the one the operator
    manages) unchanged, so a dangling link is an error rather than something to paper over."""
    if not path.is_symlink():
        return path
    target = path.resolve()
    if not target.exists():
        raise TokenFileError(
            f"Token file {path} is a symlink to {target}, which does not exist; create {target} "
            f"or remove the link. Nothing was written."
        )
    return target


def _replace(target: Path, content: TokenFile) -> None:
    """Write beside the target (mode 0600) and rename over it, so readers see old or new, never half."""
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(content.model_dump(exclude_none=True), indent=2))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
