"""What a tool call can reach: the graph store and the caller's resolved profile."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from graph.access import GraphStore, ProfileGraph
from graph.dreams.watch import SchedulerKind
from graph.embedding.encoder import Embedder
from graph.embedding.healer import VectorHealer
from graph.embedding.keeper import VectorKeeper
from graph.models.endpoint import EndpointModel
from graph.recall.signals import RecallSignals
from graph.recall.warmup import warm_up
from graph.schema import ensure_schema
from graph.upgrade import upgrade_graph
from server.settings import ReverieSettings

Transport = Literal["stdio", "http"]

log = logging.getLogger(__name__)


@dataclass
class AppContext:
    settings: ReverieSettings
    store: GraphStore
    transport: Transport
    # None when the semantic lane is off (REVERIE_EMBEDDING_MODEL=off).
    vectors: VectorKeeper | None = None
    # The model endpoint of the person's choosing (REVERIE_MODEL_URL), None when unset.
    endpoint: EndpointModel | None = None
    # The background backfill of what the profiles served were owed at start (None when off).
    healer: VectorHealer | None = None
    # What recalls returned, written in the background; None outside a running server.
    signals: RecallSignals | None = None
    # The nightly scheduler this process runs for the profiles it serves; None when it runs none.
    scheduler_kind: SchedulerKind | None = None
    _schema_ready: bool = False
    _schema_lock: anyio.Lock = field(default_factory=anyio.Lock)
    # Set when recall's query plans are made (`plan_recall`), or when none are being made.
    _recall_planned: anyio.Event = field(default_factory=anyio.Event)

    @property
    def embedder(self) -> Embedder | None:
        return self.vectors.embedder if self.vectors is not None else None

    async def ensure_ready(self) -> None:
        """Create the schema and upgrade old profiles once; retried on the next call if Neo4j was down."""
        if self._schema_ready:
            return
        async with self._schema_lock:
            if not self._schema_ready:
                await self.store.verify()
                await ensure_schema(self.store.driver, self.store.settings.database)
                await upgrade_graph(self.store)
                self._schema_ready = True

    async def plan_recall(self, profile_id: str | None) -> None:
        """Recall's query plans, made in the background at the start (`graph.recall.warmup`)
        through `profile_id`'s graph; None, or a failure, leaves them to the first recall."""
        try:
            if profile_id is not None:
                started = anyio.current_time()
                await warm_up(self.store.profile(profile_id), self.vectors)
                log.info("recall's queries planned in %.1f s", anyio.current_time() - started)
        except Exception:
            # Why not raised: the plans only save time, and the first recall makes them anyway.
            log.warning("recall's query plans were not made ahead of the first recall", exc_info=True)
        finally:
            self._recall_planned.set()

    async def recall_planned(self) -> None:
        """Wait, at most one call's deadline, for the plans being made at the start: a recall
        run beside them would plan the same queries again on the same cores."""
        with anyio.move_on_after(self.store.settings.call_timeout_s):
            await self._recall_planned.wait()

    def caller_profile(self, *, write: bool) -> str:
        if self.transport == "stdio":
            return self.settings.reverie_profile
        token = get_access_token()
        if token is None or token.subject is None:
            raise ToolError("This request carries no bearer token; send `Authorization: Bearer <token>`.")
        if write and "write" not in token.scopes:
            raise ToolError(
                "This token has read access only; the tool changes memory and needs the 'write' scope. "
                "Use a token created with `reverie token create --scopes read,write`."
            )
        return token.subject

    async def graph_for(self, *, write: bool) -> ProfileGraph:
        return await self.graph_of(self.caller_profile(write=write))

    async def graph_of(self, profile_id: str) -> ProfileGraph:
        """The graph of a profile the caller has already been granted."""
        await self.ensure_ready()
        return self.store.profile(profile_id)


@dataclass
class LiveApp:
    """The running server's `AppContext`, for HTTP routes outside MCP (the review page).

    MCP tools receive the context from the lifespan; plain routes are built before the lifespan
    runs, so they hold this slot, which the lifespan fills while the server runs."""

    current: AppContext | None = None

    def get(self) -> AppContext:
        if self.current is None:
            raise RuntimeError("The server has not started (or has stopped); its graph is not open.")
        return self.current


Ctx = Context[AppContext, Any]


def app_of(ctx: Ctx) -> AppContext:
    """The server's shared state, as the lifespan made it, from a tool's request context."""
    return ctx.request_context.lifespan_context


def delivery_of(ctx: Ctx) -> str | None:
    """A digest naming this delivery of the request, which a balancer's retry of it repeats
    exactly: the bearer token (so two clients, each with its own token, that both number a
    request 1 are told apart), the MCP session when there is one (two handshake sessions sharing
    a token), the JSON-RPC id and the call's params (the tool, its arguments and `_meta`). None
    over stdio, where no balancer retries, and for a request without an id."""
    request_id = ctx.request_context.request_id
    token = get_access_token()
    if app_of(ctx).transport == "stdio" or request_id is None or token is None:
        return None
    session = (ctx.headers or {}).get("mcp-session-id")
    credential = hashlib.sha256(token.token.encode()).hexdigest()
    parts = [credential, session, request_id, ctx.request_context.params]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
