"""A routing URI (`neo4j://`, what Aura and clusters give) is served, and reads go out as reads.

Only a single server runs here, which answers a routing driver as its own cluster: writes and
reads reach it through the routing table. A read sent in read mode is refused by the server if
it tries to write, which is how a cluster tells a reader's work from the leader's; so a write
tried through each of Reverie's read paths must fail, proving those paths are declared reads.
"""

from __future__ import annotations

import dataclasses

import pytest
from mcp import Client
from neo4j.exceptions import ClientError

from graph.access import ConnectionSettings, GraphStore, ProfileTx
from graph.scope import ScopedQuery
from server.app import build_server
from tests.server.conftest import settings_for, structured

pytestmark = pytest.mark.anyio

_WRITE = ScopedQuery("test_write_in_a_read", "CREATE (p:Profile {profile_id: $profile_id, note: 'x'})")


def _routing(settings: ConnectionSettings) -> ConnectionSettings:
    assert settings.uri.startswith("bolt://")
    return dataclasses.replace(settings, uri="neo4j://" + settings.uri.removeprefix("bolt://"))


async def test_a_routing_uri_serves_remember_and_recall(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    async with Client(build_server(settings_for(_routing(neo4j_settings), profile_id), "stdio")) as client:
        stored = structured(
            await client.call_tool("remember", {"content": "My cello teacher is called Ilse."})
        )
        found = structured(await client.call_tool("recall_memory", {"query": "cello teacher"}))
    assert stored["fragment"]["id"] in {item["id"] for item in found["results"]}


async def test_reads_are_sent_as_reads(neo4j_settings: ConnectionSettings, profile_id: str) -> None:
    store = GraphStore.connect(_routing(neo4j_settings))
    graph = store.profile(profile_id)

    async def write(tx: ProfileTx) -> None:
        await tx.run(_WRITE)

    try:
        for read in (graph.read, graph.read_alone):
            with pytest.raises(ClientError, match="read access mode"):
                await read(write)
    finally:
        await store.close()
