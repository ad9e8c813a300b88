"""The composition root: builds the MCP server and opens the graph once per process.

Only this module (and the CLI that calls it) reads settings; tools get what they need from the
`AppContext` the lifespan yields.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from importlib.metadata import version
from typing import Any

import anyio
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, GetPromptResult, InputRequiredResult
from starlette.applications import Starlette
from starlette.routing import Route

from graph.access import GraphStore
from graph.dreams.watch import SchedulerKind
from graph.embedding.encoder import Embedder
from graph.embedding.healer import RETRY_AFTER_S, VectorHealer
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from graph.errors import DATABASE_FAILURES, GraphUnavailableError
from graph.models.endpoint import EndpointModel
from graph.recall.signals import signalling
from scheduler.nightly import NightlyScheduler
from server.connectors.discovery import metadata_routes, revocation_route
from server.connectors.metadata_documents import MetadataDocuments
from server.connectors.provider import ConnectorProvider
from server.connectors.scopes import SCOPES
from server.context import AppContext, LiveApp, Transport
from server.models import unattended_generator
from server.prompts import register as register_prompts
from server.review import mount_review
from server.settings import ReverieSettings
from server.stdio_frames import answer_bad_frames
from server.stores import endpoint_of, opened_store, resolve_connection
from server.token_registry import TokenRegistry
from server.tools import reverie_tools

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Reverie keeps a long-term memory of one person and lets it dream. Use `remember` to store what
the person said (with the claims you extracted), `recall_memory` before answering questions
about them, and treat `related_dreams` in recall results as hypotheses to ask the person
about, never as facts. Review dreams with `list_dreams` / `get_dream` and record the person's
answer with `resolve_dream_feedback`. You can dream yourself: `list_dream_candidates`, then
`write_dream` in your own words (the prompts review_dreams and dream_now say how). When the
person asks you to forget something, find it with `recall_memory` and erase it with
`forget_memory` (`retract_memory` keeps the words).
"""


class ReverieServer(MCPServer[AppContext]):
    """The SDK's server, except that an unknown prompt or prompt argument is the caller's mistake
    (invalid params), not an internal error with a logged traceback. Its tools come built
    (`server.tools.reverie_tools`)."""

    stopped_by_signal = False
    # Routes matched before the SDK's own (the authorization server's metadata, see
    # `server.connectors.discovery`).
    leading_routes: list[Route] = []  # noqa: RUF012 - replaced per server, never mutated

    def streamable_http_app(self, **options: Any) -> Starlette:
        app = super().streamable_http_app(**options)
        app.router.routes[:0] = self.leading_routes
        return app

    async def run_stdio_async(self) -> None:
        """The SDK's stdio server, with unreadable lines answered (see `server.stdio_frames`)."""
        async with stdio_server() as (incoming, outgoing):
            good, messages = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as group:
                group.start_soon(answer_bad_frames, incoming, outgoing.send, good)
                group.start_soon(self._stop_on_sigterm, group.cancel_scope)
                # The low-level server is the SDK's own runner; MCPServer.run_stdio_async uses it alike.
                lowlevel = self._lowlevel_server
                await lowlevel.run(messages, outgoing, lowlevel.create_initialization_options())
                group.cancel_scope.cancel()
            if self.stopped_by_signal:
                # Closed cleanly (the lifespan has ended), but the SDK reads stdin in a worker
                # thread that only a new line or EOF wakes, and leaving `stdio_server` waits for it.
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(0)

    async def _stop_on_sigterm(self, scope: anyio.CancelScope) -> None:
        """A SIGTERM (a host closing its window, a service manager) is a clean stop: the server's
        work is cancelled and its lifespan closes (queued vectors written, the graph closed)."""
        if sys.platform == "win32":  # no POSIX signals to receive there
            return
        with anyio.open_signal_receiver(signal.SIGTERM) as signals:
            async for _ in signals:
                self.stopped_by_signal = True
                scope.cancel()
                return

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[AppContext, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        prompts = {prompt.name: prompt for prompt in await self.list_prompts()}
        if name not in prompts:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown prompt {name[:100]!r}; the prompts are: {', '.join(sorted(prompts))}.",
            )
        # An argument the prompt does not take would reach its function, and the SDK would report
        # the TypeError as an internal error (code 0) with a logged traceback.
        takes = sorted(argument.name for argument in prompts[name].arguments or [])
        unknown = sorted(set(arguments or {}) - set(takes))
        if unknown:
            named = ", ".join(repr(argument[:100]) for argument in unknown[:5])
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"The prompt {name} takes no argument {named}; its arguments: {', '.join(takes)}.",
            )
        return await super().get_prompt(name, arguments, context)


async def heal_when_ready(context: AppContext, healer: VectorHealer, served: Sequence[str]) -> None:
    """The background backfill (`graph.embedding.healer`), once the graph can be reached."""
    while True:
        try:
            await context.ensure_ready()
            break
        except DATABASE_FAILURES:
            await anyio.sleep(RETRY_AFTER_S)
    await healer.heal(context.store, served)


def make_lifespan(
    settings: ReverieSettings,
    transport: Transport,
    run_scheduler: bool,
    embedder: Embedder | None,
    live: LiveApp,
    served: Callable[[], list[str]],
) -> Callable[[MCPServer[AppContext]], AbstractAsyncContextManager[AppContext]]:
    @asynccontextmanager
    async def lifespan(_: MCPServer[AppContext]) -> AsyncIterator[AppContext]:
        # Undone in reverse: the page and tools let go, the background backfill and the
        # scheduler stop, the recall signals and the vectors still queued are written, and only
        # then does the driver close.
        async with AsyncExitStack() as stack:
            store = GraphStore.connect(await resolve_connection(settings))
            stack.push_async_callback(store.close)
            vectors = await stack.enter_async_context(keeping(embedder))
            endpoint = await stack.enter_async_context(endpoint_of(settings))
            signals = await stack.enter_async_context(signalling())
            context = AppContext(
                settings=settings,
                store=store,
                transport=transport,
                vectors=vectors,
                endpoint=endpoint,
                signals=signals,
            )
            healing = served()
            planned_through: str | None = (healing or [settings.reverie_profile])[0]
            try:
                await context.ensure_ready()
            except GraphUnavailableError as error:
                # Trigger: Neo4j down at start. Why: a host should still see the tools and get a
                # clear error per call. Outcome: schema is retried on the first call that connects.
                log.warning("Starting without a graph: %s", error)
                planned_through = None
            background = await stack.enter_async_context(anyio.create_task_group())
            # What the background leaves undone at a stop, the next server's backfill does.
            stack.callback(background.cancel_scope.cancel)
            background.start_soon(context.plan_recall, planned_through)
            if embedder is not None and healing:
                context.healer = VectorHealer(embedder)
                background.start_soon(heal_when_ready, context, context.healer, healing)
            if run_scheduler:
                # Started only after the grace (`STARTUP_GRACE_S`): the host's first calls go first.
                scheduler = nightly_scheduler(
                    store, settings, vectors, endpoint, served, SchedulerKind(transport)
                )
                scheduler.start()
                stack.push_async_callback(scheduler.stop)
                context.scheduler_kind = scheduler.kind
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
) -> ReverieServer:
    """The MCP server with every tool registered; HTTP servers also get bearer auth from `tokens`.

    The embedding model is loaded here, before anything serves, so a model that cannot be loaded
    stops the start with its reason instead of failing the first recall."""
    if (transport == "http") != (tokens is not None):
        raise ValueError("an HTTP server takes the token registry, and only an HTTP server does")
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    live = LiveApp()

    def served() -> list[str]:
        """The profiles this server serves, as its tokens say now: their pending vectors are
        embedded in the background after it starts, and its scheduler dreams for them alone."""
        return [settings.reverie_profile] if tokens is None else sorted({g.profile for g in tokens.grants()})

    auth_kwargs: dict[str, object] = {}
    provider: ConnectorProvider | None = None
    if tokens is not None and settings.reverie_public_url:
        documents = (
            MetadataDocuments(allow_loopback=settings.reverie_dev_loopback_metadata)
            if settings.reverie_client_metadata_documents
            else None
        )
        provider = ConnectorProvider(live, tokens, settings.reverie_public_url, documents)
        auth_kwargs = {"auth_server_provider": provider, "auth": connector_auth(settings)}
    elif tokens is not None:
        auth_kwargs = {"token_verifier": tokens, "auth": bearer_only(public_url)}
    if settings.reverie_request_state_key is not None:
        # Without it, the SDK seals a round's state with a key of this process alone: the
        # client's retry would be refused by any other process of the deployment.
        key = settings.reverie_request_state_key.get_secret_value()
        auth_kwargs["request_state_security"] = RequestStateSecurity(keys=[key])
    server = ReverieServer(
        name="reverie",
        title="Reverie",
        version=version("reverie"),
        instructions=INSTRUCTIONS,
        lifespan=make_lifespan(settings, transport, run_scheduler, embedder, live, served),
        tools=list(reverie_tools()),
        **auth_kwargs,  # type: ignore[arg-type]
    )
    register_prompts(server)
    if tokens is not None:
        mount_review(server, live, tokens, provider)
    if provider is not None and server.settings.auth is not None:
        server.leading_routes = [
            *metadata_routes(server.settings.auth, metadata_documents=provider.documents is not None),
            revocation_route(provider),
        ]
    return server


def connector_auth(settings: ReverieSettings) -> AuthSettings:
    """Reverie as its own authorization server at the public URL, and /mcp as its one resource.

    No scope is required of every request (each tool checks read or write itself), so the
    protected-resource metadata lists none and clients ask for the scopes the authorization
    server lists: read and write. Registration can be turned off; revocation is always on."""
    public_url = settings.reverie_public_url or ""
    return AuthSettings(
        issuer_url=public_url,  # type: ignore[arg-type]
        resource_server_url=f"{public_url}/mcp",  # type: ignore[arg-type]
        validate_token_resource=True,
        client_registration_options=ClientRegistrationOptions(
            enabled=settings.reverie_client_registration,
            valid_scopes=list(SCOPES),
            default_scopes=list(SCOPES),
        ),
        revocation_options=RevocationOptions(enabled=True),
    )


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
    store: GraphStore,
    settings: ReverieSettings,
    vectors: VectorKeeper | None,
    endpoint: EndpointModel | None = None,
    profiles: Callable[[], Collection[str]] | None = None,
    kind: SchedulerKind = SchedulerKind.SERVICE,
) -> NightlyScheduler:
    """The scheduler of a server (`profiles` its own, first ticking after the grace) or, with
    the defaults, of `reverie scheduler` (every profile, at once)."""
    return NightlyScheduler(
        store,
        settings.dreaming_defaults(),
        settings.dreaming_concurrency,
        vectors=vectors,
        generator=unattended_generator(settings, endpoint),
        profiles=profiles,
        lease=settings.cycle_lease(),
        kind=kind,
        first_tick_after_s=0.0 if kind is SchedulerKind.SERVICE else settings.reverie_scheduler_grace_seconds,
        tick_s=settings.reverie_scheduler_tick_seconds,
    )


async def run_scheduler_forever(settings: ReverieSettings) -> None:
    """`reverie scheduler`: the nightly scheduler alone, for stdio-only installations."""
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    async with (
        opened_store(settings) as store,
        keeping(embedder) as vectors,
        endpoint_of(settings) as endpoint,
    ):
        scheduler = nightly_scheduler(store, settings, vectors, endpoint)
        scheduler.start()
        try:
            log.info("Nightly dreaming scheduler running; Ctrl-C stops it.")
            await anyio.sleep_forever()
        finally:
            await scheduler.stop()
