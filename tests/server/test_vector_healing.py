"""Vectors heal themselves: a server embeds in the background what a dead one left pending (for
the profiles it serves, and only those), and a dream erased by forgetting is owed no vector."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings, GraphStore
from graph.embedding.encoder import Embedder
from graph.embedding.status import semantic_status
from server.app import build_server
from tests.server.conftest import CallTool, settings_for, structured
from tests.server.support import MEMORIES, first_dream, remember_all

pytestmark = pytest.mark.anyio


async def backfill_finished(client: Client) -> dict[str, Any]:
    """`dreaming_status`'s semantic part once the background backfill is done (or two minutes)."""
    with anyio.move_on_after(120):
        while True:
            semantic = structured(await client.call_tool("dreaming_status", {}))["semantic"]
            if semantic["backfill"] in ("done", "failed"):
                break
            await anyio.sleep(0.5)
    return semantic  # type: ignore[no-any-return]


async def test_a_server_embeds_what_a_dead_one_left_pending(
    neo4j_settings: ConnectionSettings, profile_id: str, store: GraphStore, embedder: Embedder
) -> None:
    settings = settings_for(neo4j_settings, profile_id)
    stranger = settings_for(neo4j_settings, profile_id + "-other")
    # A server without the model stores memories as one killed before their vectors would: with
    # no vector, for the next server to find.
    for served in (settings, stranger):
        off = served.model_copy(update={"reverie_embedding_model": "off"})
        async with Client(build_server(off, "stdio")) as client:
            for text in MEMORIES[:6]:
                structured(await client.call_tool("remember", {"content": text}))

    async with Client(build_server(settings, "stdio")) as client:
        semantic = await backfill_finished(client)

    assert (semantic["backfill"], semantic["backfilled"], semantic["pending"]) == ("done", 6, 0)
    # Another profile in the same database is not this server's to embed.
    assert (await semantic_status(store.profile(stranger.reverie_profile), embedder)).pending == 6


async def test_a_dream_erased_by_forgetting_is_not_pending(call: CallTool) -> None:
    await remember_all(call)
    dream = await first_dream(call, max_outputs=1)
    before = (await call("dreaming_status"))["semantic"]

    await call("forget_memory", ids=[dream["sources"][0]["id"]])
    after = (await call("dreaming_status"))["semantic"]

    assert before["pending_by_kind"]["dream"] == 0
    assert after["pending_by_kind"]["dream"] == 0 and after["pending"] == 0
