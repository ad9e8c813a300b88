"""The composition root: builds the MCP server and opens the graph once per process.

Only this module (and the CLI that calls it) reads settings; tools get what they need from the
`AppContext` the lifespan yields.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from importlib.metadata import version
from typing import Any

import anyio
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, GetPromptResult, InputRequiredResult, ToolAnnotations

from graph.access import ConnectionSettings, GraphStore
from graph.embedding.encoder import Embedder
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from graph.errors import GraphUnavailableError
from graph.localdb import LocalNeo4j
from graph.recall.signals import signalling
from graph.schema import ensure_schema
from graph.upgrade import upgrade_graph
from scheduler.nightly import NightlyScheduler
from server.context import AppContext, LiveApp, Transport
from server.review import mount_review
from server.settings import ReverieSettings
from server.stdio_frames import answer_bad_frames
from server.token_registry import TokenRegistry
from server.tools import register_all
from server.tools.schemas import compact_schemas

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Reverie keeps a long-term memory of one person and lets it dream. Use `remember` to store what
the person said (with the claims you extracted), `recall_memory` before answering questions
about them, and treat `related_dreams` in recall results as hypotheses to ask the person
about, never as facts. Review dreams with `list_dreams` / `get_dream` and record the person's
answer with `resolve_dream_feedback`. When the person asks you to forget something, find it with
`recall_memory` and erase it with `forget_memory` (`retract_memory` keeps the words).
"""


class ReverieServer(MCPServer[AppContext]):
    """The SDK's server, except that an unknown prompt is the caller's mistake (invalid params),
    not an internal error with a logged traceback, and that every tool gets a title, its
    docstring without the source's indentation and compacted schemas (`server.tools.schemas`):
    a host pays for every character of them."""

    def add_tool(  # type: ignore[override]
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
    ) -> None:
        tool_name = name or fn.__name__
        # MCPServer.add_tool only forwards to its manager, whose add_tool returns the tool.
        tool = self._tool_manager.add_tool(
            fn,
            name=tool_name,
            title=title or tool_name.replace("_", " ").capitalize(),
            description=description or inspect.cleandoc(fn.__doc__ or ""),
            annotations=annotations,
        )
        compact_schemas(tool)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio server, with unreadable lines answered (see `server.stdio_frames`)."""
        async with stdio_server() as (incoming, outgoing):
            good, messages = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as group:
                group.start_soon(answer_bad_frames, incoming, outgoing, good)
                # The low-level server is the SDK's own runner; MCPServer.run_stdio_async uses it alike.
                lowlevel = self._lowlevel_server
                await lowlevel.run(messages, outgoing, lowlevel.create_initialization_options())
                group.cancel_scope.cancel()

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[AppContext, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        if name not in {prompt.name for prompt in await self.list_prompts()}:
            raise MCPError(
                code=INVALID_PARAMS, message=f"Unknown prompt {name[:100]!r}: prompts/list names them."
            )
        return await super().get_prompt(name, arguments, context)


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
    local = LocalNeo4j(settings.reverie_home)
    await anyio.to_thread.run_sync(local.start)
    credentials = local.credentials()
    return ConnectionSettings(
        uri=credentials.uri,
        username=credentials.username,
        password=credentials.password,
        database=settings.neo4j_database,
        call_timeout_s=settings.neo4j_timeout,
    )


def make_lifespan(
    settings: ReverieSettings,
    transport: Transport,
    run_scheduler: bool,
    embedder: Embedder | None,
    live: LiveApp,
) -> Callable[[MCPServer[AppContext]], AbstractAsyncContextManager[AppContext]]:
    @asynccontextmanager
    async def lifespan(_: MCPServer[AppContext]) -> AsyncIterator[AppContext]:
        # Undone in reverse: the page and tools let go, the scheduler stops, the recall signals and
        # the vectors still queued are written, and only then does the driver close.
        async with AsyncExitStack() as stack:
            store = GraphStore.connect(await resolve_connection(settings))
            stack.push_async_callback(store.close)
            vectors = await stack.enter_async_context(keeping(embedder))
            signals = await stack.enter_async_context(signalling())
            context = AppContext(
                settings=settings, store=store, transport=transport, vectors=vectors, signals=signals
            )
            try:
                await context.ensure_ready()
            except GraphUnavailableError as error:
                # Trigger: Neo4j down at start. Why: a host should still see the tools and get a
                # clear error per call. Outcome: schema is retried on the first call that connects.
                log.warning("Starting without a graph: %s", error)
            if run_scheduler:
                scheduler = nightly_scheduler(store, settings, vectors)
                scheduler.start()
                stack.push_async_callback(scheduler.stop)
            live.current = context
            stack.callback(setattr, live, "current", None)
            yield context

    return lifespan


def build_server(
    settings: ReverieSettings,
    transport: Transport = "stdio",
    tokens: TokenRegistry | None = None,
    public_url: str = "http://127.0.0.1:8765",
    run_scheduler: bool = False,
) -> MCPServer[AppContext]:
    """The MCP server with every tool registered; HTTP servers also get bearer auth from `tokens`.

    The embedding model is loaded here, before anything serves, so a model that cannot be loaded
    stops the start with its reason instead of failing the first recall."""
    if (transport == "http") != (tokens is not None):
        raise ValueError("an HTTP server takes the token registry, and only an HTTP server does")
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    live = LiveApp()
    auth_kwargs: dict[str, object] = {}
    if tokens is not None:
        auth_kwargs = {"token_verifier": tokens, "auth": bearer_only(public_url)}
    server = ReverieServer(
        name="reverie",
        title="Reverie",
        version=version("reverie"),
        instructions=INSTRUCTIONS,
        lifespan=make_lifespan(settings, transport, run_scheduler, embedder, live),
        **auth_kwargs,  # type: ignore[arg-type]
    )
    register_all(server)
    if tokens is not None:
        mount_review(server, live, tokens)
    return server


def bearer_only(public_url: str) -> AuthSettings:
    """Plain bearer tokens, with no OAuth advertised.

    Without a resource_server_url the SDK serves no protected-resource metadata and leaves
    `resource_metadata` out of its 401s; advertising it sent clients such as the MCP Inspector
    looking for an authorization server (and Dynamic Client Registration) that does not exist.
    The SDK requires an issuer_url; without a resource_server_url or an OAuth provider it is never shown."""
    return AuthSettings(
        issuer_url=public_url,  # type: ignore[arg-type]
        resource_server_url=None,
        required_scopes=["read"],
    )


def nightly_scheduler(
    store: GraphStore, settings: ReverieSettings, vectors: VectorKeeper | None
) -> NightlyScheduler:
    return NightlyScheduler(
        store, settings.dreaming_defaults(), settings.dreaming_concurrency, vectors=vectors
    )


async def check_graph(settings: ReverieSettings) -> None:
    """Before serving: a graph that cannot be reached is only a warning (each call retries),
    but a setting that can never work (a database that does not exist) stops the start."""
    store = GraphStore.connect(await resolve_connection(settings))
    try:
        await store.verify()
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
        await ensure_schema(store.driver, store.settings.database)
        await upgrade_graph(store)
        yield store
    finally:
        await store.close()


async def run_scheduler_forever(settings: ReverieSettings) -> None:
    """`reverie scheduler`: the nightly scheduler alone, for stdio-only installations."""
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    async with opened_store(settings) as store, keeping(embedder) as vectors:
        scheduler = nightly_scheduler(store, settings, vectors)
        scheduler.start()
        try:
            log.info("Nightly dreaming scheduler running; Ctrl-C stops it.")
            await anyio.sleep_forever()
        finally:
            await scheduler.stop()
