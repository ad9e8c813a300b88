"""The one door to Neo4j: every query runs inside one profile.

`GraphStore` owns the driver. `GraphStore.profile(profile_id)` hands out a `ProfileGraph`, whose
transactions accept only `ScopedQuery` objects and supply `$profile_id` (and the fulltext
`$profile_key`) themselves; a caller that passes either parameter is refused. Cross-profile
work (listing profiles for the scheduler, schema setup) lives in `graph.directory` and
`graph.schema` and never goes through here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Concatenate, Final, NoReturn, ParamSpec, TypeVar

import anyio
from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
)
from neo4j.exceptions import (
    AuthError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from neo4j.graph import Node
from neo4j.time import DateTime as Neo4jDateTime
from neo4j.vector import Vector

from graph.errors import (
    GraphBusyError,
    GraphCredentialsError,
    GraphTimeoutError,
    GraphUnavailableError,
    InvalidInputError,
    MissingDatabaseError,
    MissingRowError,
    ProfileOverrideError,
    shown_uri,
)
from graph.group_commit import GroupCommit
from graph.priority import Priority
from graph.scope import ScopedQuery
from graph.text import profile_key

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

PROFILE_ID_RULE = "1 to 64 characters: letters, digits, '.', '_', '-' or '@', starting with a letter or digit"
_PROFILE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_INJECTED_PARAMS = frozenset({"profile_id", "profile_key"})

# Short timeouts so that an unreachable server fails a tool call in seconds instead of after the
# driver's default 30-second retry budget; transient conflicts still get a few retries.
_CONNECTION_TIMEOUT_S = 3.0
_ACQUISITION_TIMEOUT_S = 5.0
_RETRY_BUDGET_S = 4.0
# A server that accepts connections but never answers (stopped with SIGSTOP, swapping, a network
# that drops packets) is not noticed by the driver for about two minutes, so every unit of work
# has its own deadline. Reverie's largest transaction (a dream phase on 100,000 memories) takes
# under 5 s on a two-core machine. `run_batched` (whole-profile deletes and upgrades) gets longer.
DEFAULT_CALL_TIMEOUT_S = 15.0
_BATCHED_TIMEOUT_FACTOR = 40
_READ_ALONE_ATTEMPTS = 3
_DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"
# Neo4j's refusals of the user or what it may do: a wrong password, a user locked out after
# several, expired credentials, a missing privilege.
_SECURITY_CODES = "Neo.ClientError.Security."


def validate_profile_id(profile_id: str) -> str:
    if not _PROFILE_ID.fullmatch(profile_id):
        raise InvalidInputError(f"Invalid profile id {profile_id!r}: use {PROFILE_ID_RULE}.")
    return profile_id


@dataclass(frozen=True)
class ConnectionSettings:
    uri: str
    username: str
    # Kept out of the repr, which tracebacks and test reports print.
    password: str = field(repr=False)
    database: str | None = None
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S


def _refuse_overrides(params: Mapping[str, Any]) -> None:
    for name, value in params.items():
        if name in _INJECTED_PARAMS:
            raise ProfileOverrideError(
                f"parameter {name!r} is supplied by the profile graph itself; do not pass it"
            )
        if _is_vector(value):
            continue
        rows = value if isinstance(value, list) else [value]
        for row in rows:
            if isinstance(row, Mapping) and _INJECTED_PARAMS & set(row):
                raise ProfileOverrideError(f"parameter {name!r} carries a profile id; do not pass one")


# A vector packed for the wire, as recall's queries take the question's.
PackedVector = Vector


def packed(vector: Sequence[float]) -> PackedVector:
    """A vector as a query parameter: packed 32-bit floats (Bolt 6), the precision the models
    give. Passed as a list, the driver checks, logs and packs it number by number: about 0.2 ms
    of this process's time a query here, two or three queries a recall."""
    return Vector(vector, "f32")


def _is_vector(value: Any) -> bool:
    """A list of floats: an embedding (hundreds of numbers), passed or read as it is, since going
    through it item by item costs more than the query it is for."""
    return isinstance(value, list) and bool(value) and type(value[0]) is float


# Values the driver hands over as they are: most of what a row holds (ids, texts, scores), so
# they are let through before any other test.
_PLAIN: Final = frozenset({str, int, float, bool, type(None)})


def _native(value: Any) -> Any:
    """Nodes become their properties and Neo4j temporal values stdlib datetimes, so models above
    never see driver types."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        return {key: _native(item) for key, item in value.items()}
    if _is_vector(value):
        return value
    if isinstance(value, list):
        return [_native(item) for item in value]
    if isinstance(value, Node):
        return _native(dict(value))
    if isinstance(value, Neo4jDateTime):
        return value.to_native()
    return value


class ProfileTx:
    """A transaction bound to one profile. Query modules take it as their first argument.

    Under `ProfileGraph.read_alone` it wraps a session instead, and each query is a transaction
    of its own."""

    def __init__(self, tx: AsyncManagedTransaction | AsyncSession, profile_id: str) -> None:
        self._tx = tx
        self.profile_id = profile_id
        self._scope = {"profile_id": profile_id, "profile_key": profile_key(profile_id)}

    async def run(self, query: ScopedQuery, /, **params: Any) -> list[dict[str, Any]]:
        if not isinstance(query, ScopedQuery):
            raise TypeError("ProfileTx.run accepts only ScopedQuery objects, never raw Cypher")
        _refuse_overrides(params)
        result = await self._tx.run(query.text, {**params, **self._scope})
        return [_native(dict(record)) async for record in result]

    async def single(self, query: ScopedQuery, /, **params: Any) -> dict[str, Any] | None:
        rows = await self.run(query, **params)
        return rows[0] if rows else None

    async def one(self, query: ScopedQuery, /, **params: Any) -> dict[str, Any]:
        """The first row of a query that must return one; none raises MissingRowError, which
        rolls the transaction back."""
        row = await self.single(query, **params)
        if row is None:
            raise MissingRowError(query.name)
        return row


class ProfileGraph:
    """Reads and writes of one profile, each unit of work in one managed transaction."""

    def __init__(
        self, store: GraphStore, profile_id: str, timeout_factor: float = 1, background: bool = False
    ) -> None:
        self._store = store
        self.profile_id = validate_profile_id(profile_id)
        self._timeout_factor = timeout_factor
        self._background = background

    def patient(self, timeout_factor: float) -> ProfileGraph:
        """The same profile with `read`, `read_alone` and `write` given `timeout_factor` times
        the call's deadline: for work in the background, which no caller waits on."""
        return ProfileGraph(self._store, self.profile_id, timeout_factor, self._background)

    def in_background(self) -> ProfileGraph:
        """The same profile for work no host waits on (a cycle): each transaction waits for a
        moment when no interactive one runs, at most a bound (`graph.priority`)."""
        return ProfileGraph(self._store, self.profile_id, self._timeout_factor, background=True)

    def cycle_turn(self) -> AbstractAsyncContextManager[None]:
        """The process's turn to compute a cycle (`graph.priority`)."""
        return self._store.priority.cycle_turn()

    async def read(
        self, work: Callable[Concatenate[ProfileTx, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`work(tx, *args, **kwargs)` in one managed read transaction (retried on transient errors)."""
        async with self._session(WRITE_ACCESS, self._timeout_factor) as session:
            return await session.execute_read(self._bind(work), *args, **kwargs)

    async def read_alone(
        self, work: Callable[Concatenate[ProfileTx, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`work(tx, *args, **kwargs)` with each of its queries a read of its own (auto-commit):
        no round trip to open or commit a transaction, about 1.5 ms a search here. For reads
        that need no transaction around them, such as recall's searches. The driver retries no
        auto-commit query, since a write may have half happened; a read has not, so `work` is run
        again, like a managed read, when the driver deems the failure retryable (a connection
        that died in the pool, a leader that moved)."""
        attempt = 1
        async with self._session(READ_ACCESS, self._timeout_factor) as session:
            while True:
                try:
                    return await work(ProfileTx(session, self.profile_id), *args, **kwargs)
                except (DriverError, Neo4jError) as error:
                    if attempt == _READ_ALONE_ATTEMPTS or not error.is_retryable():
                        raise
                    log.info("read failed (%s); running it again", type(error).__name__)
                    attempt += 1

    async def write(
        self, work: Callable[Concatenate[ProfileTx, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`work(tx, *args, **kwargs)` in one managed write transaction (retried on transient errors)."""
        async with self._session(WRITE_ACCESS, self._timeout_factor) as session:
            return await session.execute_write(self._bind(work), *args, **kwargs)

    async def write_grouped(
        self, work: Callable[Concatenate[ProfileTx, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Like `write`, but sharing one transaction with this profile's writes that arrive while
        another of its transactions runs (`graph.group_commit`); each still gets its own outcome."""

        async def bound(tx: ProfileTx) -> T:
            return await work(tx, *args, **kwargs)

        return await self._store.group_commit.write(self, bound, self._store.settings)

    async def run_batched(self, query: ScopedQuery, /, **params: Any) -> list[dict[str, Any]]:
        """One auto-commit query, for work too large for one transaction (`CALL { ... } IN
        TRANSACTIONS` commits batch by batch, so a failure part-way keeps the batches done and
        the query can simply run again). Scoped like every other query."""
        if not isinstance(query, ScopedQuery):
            raise TypeError("ProfileGraph.run_batched accepts only ScopedQuery objects, never raw Cypher")
        _refuse_overrides(params)
        scope = {"profile_id": self.profile_id, "profile_key": profile_key(self.profile_id)}
        async with self._session(WRITE_ACCESS, _BATCHED_TIMEOUT_FACTOR) as session:
            result = await session.run(query.text, {**params, **scope})
            return [_native(dict(record)) async for record in result]

    @asynccontextmanager
    async def _session(self, access_mode: str, timeout_factor: float) -> AsyncIterator[AsyncSession]:
        """A store session counted as interactive, or, for background work, opened once no
        interactive one runs (at most the priority's patience later); either way within the
        process's transactions in flight (`graph.admission`), its deadline starting once let in."""
        priority = self._store.priority
        if self._background:
            await priority.background_turn()
        with nullcontext() if self._background else priority.interactive():
            async with (
                priority.admission.slot(self._background),
                self._store.session(access_mode, timeout_factor) as session,
            ):
                yield session

    def _bind(
        self, work: Callable[Concatenate[ProfileTx, P], Awaitable[T]]
    ) -> Callable[Concatenate[AsyncManagedTransaction, P], Awaitable[T]]:
        async def bound(tx: AsyncManagedTransaction, /, *args: P.args, **kwargs: P.kwargs) -> T:
            return await work(ProfileTx(tx, self.profile_id), *args, **kwargs)

        return bound


class GraphStore:
    """Owns the driver; created once by the composition root and closed on shutdown."""

    def __init__(self, driver: AsyncDriver, settings: ConnectionSettings) -> None:
        self.driver = driver
        self.settings = settings
        # The URI for log lines; the typed errors redact the one they are given themselves.
        self.shown_uri = shown_uri(settings.uri)
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()
        self.group_commit: GroupCommit[ProfileTx] = GroupCommit()
        self.priority = Priority()

    @classmethod
    def connect(cls, settings: ConnectionSettings) -> GraphStore:
        driver = AsyncGraphDatabase.driver(
            settings.uri,
            auth=(settings.username, settings.password),
            connection_timeout=_CONNECTION_TIMEOUT_S,
            connection_acquisition_timeout=_ACQUISITION_TIMEOUT_S,
            max_transaction_retry_time=_RETRY_BUDGET_S,
            notifications_min_severity="OFF",
        )
        return cls(driver, settings)

    def profile(self, profile_id: str) -> ProfileGraph:
        return ProfileGraph(self, profile_id)

    @asynccontextmanager
    async def session(
        self, access_mode: str = WRITE_ACCESS, timeout_factor: float = 1
    ) -> AsyncIterator[AsyncSession]:
        """A session whose connection failures surface as GraphUnavailableError (its subclass
        GraphCredentialsError when Neo4j refuses the credentials), and which is abandoned (its
        connections dropped) when the call's deadline passes. `access_mode` is what its
        auto-commit queries do (a cluster sends reads to a reader)."""
        deadline_s = self.settings.call_timeout_s * timeout_factor
        try:
            with anyio.fail_after(deadline_s):
                async with self.driver.session(
                    database=self.settings.database,
                    bookmark_manager=self._bookmarks,
                    default_access_mode=access_mode,
                ) as session:
                    yield session
        except TimeoutError as error:
            log.warning("Neo4j at %s did not answer within %.0f s", self.shown_uri, deadline_s)
            raise GraphTimeoutError(self.settings.uri, deadline_s) from error
        except (ServiceUnavailable, SessionExpired) as error:
            log.warning("Neo4j unreachable at %s: %s", self.shown_uri, error)
            raise GraphUnavailableError(self.settings.uri, "no answer on Bolt") from error
        except Neo4jError as error:
            self._raise_typed(error)

    def _raise_typed(self, error: Neo4jError) -> NoReturn:
        """`error` as Reverie's typed error when it is one the caller can act on, else as it is.

        Refusals are recognised by their code, not the driver's class: the driver has a class for
        a wrong password (AuthError) but none for a user locked out after wrong passwords
        (`Neo.ClientError.Security.AuthenticationRateLimit`, a plain ClientError)."""
        code = error.code or ""
        if isinstance(error, AuthError) or code.startswith(_SECURITY_CODES):
            # Not logged here: each caller reports it in one line (the SDK a failed tool call, the
            # start and the scheduler their warning, a command its error).
            raise GraphCredentialsError(self.settings.uri, code) from error
        if isinstance(error, TransientError):
            # The driver already retried within its budget (deadlocks, lock timeouts).
            log.warning("Neo4j transaction still conflicting after retries: %s", code)
            raise GraphBusyError() from error
        if code == _DATABASE_NOT_FOUND:
            raise MissingDatabaseError(self.settings.uri, self.settings.database) from None
        raise error

    async def verify(self) -> None:
        """The server answers, the credentials hold, and the configured database exists."""
        try:
            await self.driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, OSError) as error:
            raise GraphUnavailableError(self.settings.uri, "no answer on Bolt") from error
        except Neo4jError as error:
            self._raise_typed(error)
        async with self.session() as session:
            await (await session.run("RETURN 1")).consume()

    async def close(self) -> None:
        await self.driver.close()
