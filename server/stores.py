"""The graph and the model endpoint as one process opens them: a command-line process, a server's
start, the lone scheduler. Free of the MCP SDK and the web stack, so that `reverie` commands
that only read or write the graph start without loading them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from graph.access import ConnectionSettings, GraphStore
from graph.errors import GraphUnavailableError
from graph.models.endpoint import EndpointModel
from graph.schema import check_server, ensure_schema
from graph.upgrade import upgrade_graph
from server.models import open_endpoint
from server.settings import ReverieSettings

log = logging.getLogger(__name__)


async def resolve_connection(settings: ReverieSettings) -> ConnectionSettings:
    """NEO4J_URI when set; otherwise the managed local server, started if it is not running."""
    if settings.neo4j_uri:
        return ConnectionSettings(
            uri=settings.neo4j_uri,
            username=settings.neo4j_username,
            password=settings.neo4j_password or "",
            database=settings.neo4j_database or None,
            call_timeout_s=settings.neo4j_timeout,
        )
    local = settings.local_neo4j()
    credentials = await anyio.to_thread.run_sync(local.use, settings.neo4j_stop_when_idle())
    return ConnectionSettings(
        uri=credentials.uri,
        username=credentials.username,
        password=credentials.password,
        database=settings.neo4j_database,
        call_timeout_s=settings.neo4j_timeout,
    )


@asynccontextmanager
async def endpoint_of(settings: ReverieSettings) -> AsyncIterator[EndpointModel | None]:
    """The configured model endpoint for the process's lifetime (None when there is none)."""
    endpoint = open_endpoint(settings)
    try:
        yield endpoint
    finally:
        if endpoint is not None:
            await endpoint.aclose()


async def check_graph(settings: ReverieSettings) -> None:
    """Before serving: a graph that cannot be reached is only a warning (each call retries),
    but a setting that can never work (a database that does not exist, a Neo4j too old) stops
    the start."""
    store = GraphStore.connect(await resolve_connection(settings))
    try:
        await store.verify()
        async with store.session() as session:
            await check_server(session)
    except GraphUnavailableError as error:
        log.warning("Starting without a graph: %s", error)
    finally:
        await store.close()


@asynccontextmanager
async def opened_store(settings: ReverieSettings) -> AsyncIterator[GraphStore]:
    """The graph for a command-line process: connected, schema ensured, closed on exit.

    Unlike the server's lifespan, a failure to reach Neo4j here ends the command."""
    store = GraphStore.connect(await resolve_connection(settings))
    try:
        # First, so that a server that does not answer or refuses the credentials ends the
        # command with its typed error rather than the driver's traceback from ensure_schema.
        await store.verify()
        await ensure_schema(store.driver, store.settings.database)
        await upgrade_graph(store)
        yield store
    finally:
        await store.close()
