"""Typed errors of the graph layer.

Each carries what a caller needs to act (ids, allowed values) so `server/` can turn it into a
clear tool error without ever matching on message text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import ValidationError


class ReverieError(Exception):
    """An error whose message is written for the person or model that made the request."""


class InvalidInputError(ReverieError):
    """The request itself is wrong; nothing was changed."""


class NotFoundError(ReverieError):
    def __init__(self, kind: str, item_id: str) -> None:
        super().__init__(
            f"No {kind} with id {item_id!r} exists in this profile. "
            f"Check the id (list or recall to find valid ones)."
        )
        self.kind = kind
        self.item_id = item_id


class IdempotencyConflictError(ReverieError):
    """A key sent again with other content: neither a retry (same content) nor a new memory."""

    def __init__(self, key: str, fragment_id: str) -> None:
        super().__init__(
            f"idempotency_key {key[:200]!r} was already used for different content (fragment "
            f"{fragment_id}); nothing was stored. A retry must send the same content; new content "
            "needs a new key."
        )


class ForgottenKeyError(ReverieError):
    """A key that belonged to a fragment the person asked to forget: a replay must not bring it back."""

    def __init__(self, key: str, fragment_id: str) -> None:
        super().__init__(
            f"idempotency_key {key[:200]!r} belonged to fragment {fragment_id}, which the person asked "
            "to forget; nothing was stored. If they say it again, remember it under a new key."
        )


class MissingRowError(ReverieError):
    """A query that must return a row (a write that creates or updates a node it just matched)
    returned none: the graph changed under the transaction, which was rolled back."""

    def __init__(self, query_name: str) -> None:
        super().__init__(
            f"Reverie's query {query_name!r} found nothing where it must find a row; the memory "
            "changed at the same moment and nothing was saved. Try the request again."
        )
        self.query_name = query_name


class InvalidTransitionError(ReverieError):
    def __init__(self, kind: str, item_id: str, current: str, requested: str, allowed: Iterable[str]) -> None:
        allowed_list = sorted(allowed)
        choices = ", ".join(allowed_list) if allowed_list else "none: this status is final"
        super().__init__(
            f"{kind} {item_id!r} is {current}; {requested!r} is not allowed from there "
            f"(allowed: {choices}). Nothing was changed."
        )
        self.current = current
        self.requested = requested
        self.allowed = tuple(allowed_list)


class CycleAlreadyRunningError(ReverieError):
    def __init__(self, run_id: str, lease_expires_at: str) -> None:
        super().__init__(
            f"A dreaming cycle is already running for this profile (run {run_id}, lease until "
            f"{lease_expires_at}). Wait for it to finish and check it with dreaming_status."
        )
        self.run_id = run_id


class AlreadyDreamedError(ReverieError):
    def __init__(self, run_id: str, scheduled_date: str) -> None:
        super().__init__(f"The scheduled cycle for {scheduled_date} already ran (run {run_id}).")
        self.run_id = run_id


def shown_uri(uri: str) -> str:
    """`uri` as it may be shown or logged: a user and password in it are replaced by `***`.

    Everything between the scheme and the last '@' counts as theirs: a password pasted unencoded
    may hold '/', '?', '#' or '@', and a URI parser would end the user part at the first of them."""
    scheme, separator, rest = uri.partition("://")
    if not separator:
        scheme, rest = "", uri
    _, at, address = rest.rpartition("@")
    return f"{scheme}{separator}***@{address}" if at else uri


class GraphUnavailableError(ReverieError):
    """Neo4j cannot be used at all: it does not answer, or (the subclass) refuses the credentials."""

    def __init__(self, uri: str, detail: str) -> None:
        self.uri = shown_uri(uri)
        super().__init__(self.explain(detail))

    def explain(self, detail: str) -> str:
        return (
            f"Neo4j at {self.uri} cannot be reached ({detail}). Start it (for the managed local "
            "server: `reverie neo4j start`) or fix NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD, then retry."
        )


# What Neo4j's refusals mean, by code; any other Neo.ClientError.Security.* code is named as it is.
_REFUSALS = {
    "Neo.ClientError.Security.Unauthorized": "no such user, or a wrong password",
    "Neo.ClientError.Security.AuthenticationRateLimit": (
        "too many wrong attempts in a row, so Neo4j refuses this user for a few seconds, "
        "even with the right password"
    ),
    "Neo.ClientError.Security.CredentialsExpired": "the password has expired and must be changed first",
    "Neo.ClientError.Security.TokenExpired": "the credentials have expired",
    "Neo.ClientError.Security.Forbidden": (
        "the user may not do what Reverie asked: it needs to read, write and create indexes"
    ),
}


class GraphCredentialsError(GraphUnavailableError):
    """Neo4j answered but refused the user and password (or what the user may do). A subclass of
    GraphUnavailableError, since the server is as unusable to Reverie until they are fixed."""

    def __init__(self, uri: str, code: str) -> None:
        super().__init__(uri, code)
        self.code = code

    def explain(self, code: str) -> str:  # the detail is Neo4j's code
        reason = _REFUSALS.get(code)
        named = f"{reason} ({code})" if reason else code
        return (
            f"Neo4j at {self.uri} refused the credentials: {named}. "
            "Check NEO4J_USERNAME / NEO4J_PASSWORD, then retry."
        )


class GraphTimeoutError(ReverieError):
    """Neo4j took a connection but did not answer in time: paused, overloaded or cut off."""

    def __init__(self, uri: str, waited_s: float) -> None:
        self.uri = shown_uri(uri)
        super().__init__(
            f"Neo4j at {self.uri} did not answer within {waited_s:.0f} s (paused, overloaded, or the "
            "network drops its replies), so this call was abandoned; a write may or may not have "
            "been saved (a `remember` sent again is recognised if it was). Check the server "
            "(`reverie neo4j status` for the managed one), or raise NEO4J_TIMEOUT if it is only slow."
        )


class GraphBusyError(ReverieError):
    """A transaction kept meeting concurrent writers (a deadlock or lock timeout) past its retries."""

    def __init__(self) -> None:
        super().__init__(
            "Neo4j was busy with concurrent writes to the same memories and the retries ran out; "
            "nothing was saved. Try again in a moment."
        )


class MissingDatabaseError(ReverieError):
    def __init__(self, uri: str, database: str | None) -> None:
        super().__init__(
            f"Neo4j at {shown_uri(uri)} has no database {database!r}: create it (CREATE DATABASE "
            f"{database}) or unset NEO4J_DATABASE to use the server's default database."
        )


# Failures of the database itself rather than of one call's input: whatever the call was, the
# next one would meet the same.
DATABASE_FAILURES = (GraphUnavailableError, GraphTimeoutError, GraphBusyError, MissingDatabaseError)


class UnscopedQueryError(ReverieError):
    """A query that could read or write outside its profile. Raised when the query is defined."""


class ProfileOverrideError(ReverieError):
    """A caller tried to pass its own profile id into a profile-scoped query."""


def validation_problems(error: ValidationError, name: Callable[[str], str] = str) -> str:
    """Pydantic's findings as one line a person can act on: "field: problem; field: problem"."""
    return "; ".join(
        f"{name('.'.join(str(part) for part in item['loc'])) or 'value'}: {item['msg']}"
        for item in error.errors()
    )
