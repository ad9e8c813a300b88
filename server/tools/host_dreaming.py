"""Dreaming by the host's own model through ordinary tools (no MCP sampling needed): read the
links the dream phase would draw, then write, reword or judge them (`graph/dreams/host.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp_types import CLIENT_INFO_META_KEY, InitializeRequestParams, ToolAnnotations
from pydantic import Field, WithJsonSchema

from graph.dreams import host
from graph.dreams.models import CandidateList, HostDreamResult
from graph.memory.models import ClaimInput
from server.context import Ctx, app_of
from server.errors import mapped_errors
from server.tools.shelf import ToolShelf

# Each text's schema states the limit the domain applies to it (`host.TEXT_LIMITS`).
Hypothesis = Annotated[
    str | None,
    Field(
        max_length=host.TEXT_LIMITS["hypothesis"],
        description="One sentence the person can answer yes or no",
    ),
]
Why = Annotated[str | None, Field(max_length=host.TEXT_LIMITS["why"], description="The evidence, one line")]
WhatIf = Annotated[str | None, Field(max_length=host.TEXT_LIMITS["what_if"])]
PossibleOutcome = Annotated[str | None, Field(max_length=host.TEXT_LIMITS["possible_outcome"])]


def client_name(ctx: Ctx) -> str | None:
    """The name the MCP client gave itself: from the handshake, or on protocol 2026-07-28 from
    the request's own `_meta` (where the SDK also builds `client_params` from it)."""
    params: InitializeRequestParams | None = ctx.request_context.session.client_params
    if params is not None:
        return params.client_info.name
    info: Any = (ctx.request_context.meta or {}).get(CLIENT_INFO_META_KEY)
    name: Any = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


@mapped_errors
async def list_dream_candidates(
    ctx: Ctx, limit: Annotated[int, Field(ge=1, le=host.MAX_CANDIDATES)] = 5
) -> CandidateList:
    """Links between the person's memories the dream phase would propose now, with the evidence
    Reverie sees; writes nothing. Judge each: write_dream in your own words, or verdict=empty."""
    app = app_of(ctx)
    graph = await app.graph_for(write=False)
    return await host.list_candidates(graph, limit, app.vectors)


@mapped_errors
async def write_dream(
    ctx: Ctx,
    source_ids: Annotated[
        list[str] | None, Field(max_length=host.MAX_SOURCES, description="2 to 4 memory ids to link")
    ] = None,
    hypothesis: Hypothesis = None,
    why: Why = None,
    what_if: WhatIf = None,
    possible_outcome: PossibleOutcome = None,
    statement: Annotated[
        ClaimInput | None,
        WithJsonSchema({"type": ["object", "null"], "description": "A claim as in remember's claims"}),
    ] = None,
    dream_id: Annotated[str | None, Field(max_length=64, description="Reword this open dream")] = None,
    verdict: Literal["dream", "empty"] = "dream",
) -> HostDreamResult:
    """Write a dream in your own words linking memories (source_ids), or reword an open one
    (dream_id; old words stay in its history), or judge two memories empty (verdict=empty).
    Say only what the memories say. statement: what the person could confirm, used by
    promote_candidate when sent no claims. Scores are Reverie's."""
    app = app_of(ctx)
    graph = await app.graph_for(write=True)
    words = host.DreamWords(hypothesis, why, what_if, possible_outcome, statement)
    request = host.HostRequest(
        host.writer_name(client_name(ctx)), words, source_ids or (), dream_id, verdict == "empty"
    )
    return await host.apply(graph, request, app.vectors)


def register(server: ToolShelf) -> None:
    server.add_tool(
        list_dream_candidates, annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True)
    )
    server.add_tool(
        write_dream,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
