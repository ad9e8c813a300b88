"""Suite-wide fixtures: one real Neo4j for the session and a fresh profile for every test.

The suite runs its own managed instance ('test') beside the user's, starting it when needed and
stopping it at the end only if this run started it. Under pytest-xdist the controlling process
starts it before the workers exist and stops it after they are gone; a worker only connects.
Set REVERIE_TEST_NEO4J_URI (with NEO4J_USERNAME / NEO4J_PASSWORD) to run against another server
instead.

Lanes: a test that uses the database (`neo4j_settings`, directly or through another fixture) is
marked `neo4j`, and one that loads the embedding model `model`, by its fixtures, so no such test
can go unmarked; `unit` is declared by pure test modules, and a `unit` test that asks for the
database or the model stops the collection.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import NoReturn

import pytest
from neo4j import AsyncGraphDatabase

from graph.access import ConnectionSettings, GraphStore, ProfileGraph
from graph.embedding.catalog import DEFAULT_MODEL
from graph.embedding.encoder import Embedder
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from graph.localdb import LocalNeo4j
from graph.schema import DROP_VECTOR_INDEX, ensure_schema
from tests.longest_first import keep_durations, last_durations, longest_first

TEST_INSTANCE = "test"
_DATABASE_FIXTURE = "neo4j_settings"
_MODEL_FIXTURE = "embedder"
# Set in the controlling process when it started the test instance itself.
_STARTED_BY_THIS_RUN = "_reverie_started_test_neo4j"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if _DATABASE_FIXTURE in fixtures:
            item.add_marker(pytest.mark.neo4j)
        if _MODEL_FIXTURE in fixtures:
            item.add_marker(pytest.mark.model)
        if item.get_closest_marker("unit") and fixtures & {_DATABASE_FIXTURE, _MODEL_FIXTURE}:
            raise pytest.UsageError(f"{item.nodeid} is marked unit but uses the database or the model")
    longest_first(items, last_durations())


# This run's reports, kept by the process that sees them all: the controller under xdist (a
# worker has PYTEST_XDIST_WORKER set and leaves the keeping to it).
_REPORTS: list[pytest.TestReport] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _REPORTS.append(report)


def not_provisioned(reason: str) -> NoReturn:
    """A tool `make test` installs (the Inspector, the MCPB CLI, the conformance suite) is not
    configured: the test skips on a developer's machine, but fails on CI (CI=true), where a skip
    would pass by proving nothing."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the tests it serves must run)")
    pytest.skip(reason)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _local_instance() -> LocalNeo4j:
    return LocalNeo4j(LocalNeo4j.default_home(), instance=TEST_INSTANCE)


def _wants_database(config: pytest.Config) -> bool:
    # Only the unit lane alone needs no database; "not unit" (the database lane) does.
    return not os.environ.get("REVERIE_TEST_NEO4J_URI") and (config.option.markexpr or "").strip() != "unit"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if _is_worker(config) or not config.pluginmanager.hasplugin("xdist") or not _wants_database(config):
        return
    if getattr(config.option, "numprocesses", None):
        local = _local_instance()
        if not local.status().running:
            local.start()
            setattr(config, _STARTED_BY_THIS_RUN, True)
        credentials = local.credentials()
        settings = ConnectionSettings(credentials.uri, credentials.username, credentials.password)
        asyncio.run(_fresh_vector_indexes(settings))


async def _fresh_vector_indexes(settings: ConnectionSettings) -> None:
    """The test database lives on from run to run, and so do its vector indexes' segments of
    every vector ever written and deleted; merging those held writers up past their 15 s
    deadline (a review page test's confirmation). Each run starts with new, empty indexes
    (`_prepare` makes them again), before any worker writes."""
    auth = (settings.username, settings.password)
    async with (
        AsyncGraphDatabase.driver(settings.uri, auth=auth) as driver,
        driver.session(database=settings.database) as session,
    ):
        for statement in DROP_VECTOR_INDEX.values():
            await (await session.run(statement)).consume()
    await _prepare(settings)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _REPORTS:
        keep_durations(_REPORTS)
    if getattr(session.config, _STARTED_BY_THIS_RUN, False):
        _local_instance().stop()


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


# Every test profile's id starts with this run's own prefix, so the run can remove what it made
# (the test database does not grow run after run, and a shared database keeps only its real
# profiles) without touching the profiles of another run going on at the same time.
TEST_PROFILE_PREFIX = f"t-{uuid.uuid4().hex[:6]}-"


async def _remove_test_profiles(settings: ConnectionSettings) -> None:
    # Cross-profile on purpose, so written with the plain driver: ProfileTx refuses such queries.
    auth = (settings.username, settings.password)
    async with (
        AsyncGraphDatabase.driver(settings.uri, auth=auth) as driver,
        driver.session(database=settings.database) as session,
    ):
        result = await session.run(
            "MATCH (n) WHERE n.profile_id STARTS WITH $prefix "
            "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS",
            prefix=TEST_PROFILE_PREFIX,
        )
        await result.consume()


async def _prepare(settings: ConnectionSettings) -> None:
    store = GraphStore.connect(settings)
    try:
        await store.verify()
        await ensure_schema(store.driver, settings.database)
    finally:
        await store.close()


@pytest.fixture(scope="session")
def neo4j_settings(request: pytest.FixtureRequest) -> Iterator[ConnectionSettings]:
    external = os.environ.get("REVERIE_TEST_NEO4J_URI")
    local = _local_instance()
    started_here = False
    if external:
        settings = ConnectionSettings(
            uri=external,
            username=os.environ.get("NEO4J_USERNAME", "neo4j"),
            password=os.environ.get("NEO4J_PASSWORD", ""),
        )
    else:
        # A worker leaves stopping to the controlling process, which outlives every worker.
        started_here = not local.status().running and not _is_worker(request.config)
        local.start()
        credentials = local.credentials()
        settings = ConnectionSettings(credentials.uri, credentials.username, credentials.password)
    asyncio.run(_prepare(settings))
    yield settings
    asyncio.run(_remove_test_profiles(settings))
    if started_here:
        local.stop()


def server_environment(neo4j_settings: ConnectionSettings, profile_id: str) -> dict[str, str]:
    """Environment for a Reverie server process pointed at the suite's Neo4j and `profile_id`."""
    return {
        **os.environ,
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USERNAME": neo4j_settings.username,
        "NEO4J_PASSWORD": neo4j_settings.password,
        "REVERIE_PROFILE": profile_id,
    }


@pytest.fixture
def server_env(neo4j_settings: ConnectionSettings, profile_id: str) -> dict[str, str]:
    """Environment for a Reverie server process pointed at the suite's Neo4j and this test's profile."""
    return server_environment(neo4j_settings, profile_id)


@pytest.fixture
async def store(neo4j_settings: ConnectionSettings) -> AsyncIterator[GraphStore]:
    graph_store = GraphStore.connect(neo4j_settings)
    yield graph_store
    await graph_store.close()


@pytest.fixture
def profile_id() -> str:
    return f"{TEST_PROFILE_PREFIX}{uuid.uuid4().hex[:12]}"


@pytest.fixture
def graph(store: GraphStore, profile_id: str) -> ProfileGraph:
    return store.profile(profile_id)


@pytest.fixture
def other_graph(store: GraphStore) -> ProfileGraph:
    return store.profile(f"{TEST_PROFILE_PREFIX}{uuid.uuid4().hex[:12]}")


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real default model, as `make test` provisions it (loaded once per process)."""
    model = load_embedder(LocalNeo4j.default_home(), DEFAULT_MODEL)
    assert model is not None
    return model


@pytest.fixture
async def vectors(embedder: Embedder) -> AsyncIterator[VectorKeeper]:
    """The model as the server holds it: a remember's vectors are written after its commit."""
    async with keeping(embedder) as keeper:
        assert keeper is not None
        yield keeper
