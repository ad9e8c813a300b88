"""A store written by the last Reverie on Neo4j 5.26 opens in today's server with nothing lost.

The fixture (`tests/fixtures/make_legacy_store.py` says how it was made) holds one of every node
kind: memories with vectors, claims and facts, a clarification, dreams with feedback and a
revision, a pair judged empty, a forgotten memory's tombstone. Starting it backs the store up
first, the server upgrades it in place, the vector indexes are rebuilt with the profile filter,
and the profile then exports exactly as the old version exported it, but for its format mark.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings
from graph.localdb import LocalNeo4j
from graph.localdb.config import NEO4J_VERSION
from graph.schema import GRAPH_FORMAT
from server.app import build_server
from tests.server.conftest import reverie, settings_for, structured
from tests.server.support import database

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures"
LEGACY_PROFILE = "legacy"


@pytest.fixture(scope="module")
def upgraded() -> Iterator[tuple[LocalNeo4j, ConnectionSettings]]:
    local = LocalNeo4j(LocalNeo4j.default_home(), f"legacy-{uuid.uuid4().hex[:8]}")
    local.instance_dir.mkdir(parents=True)
    with tarfile.open(FIXTURES / "neo4j-5.26.30-store.tar.gz") as archive:
        archive.extractall(local.instance_dir, filter="data")
    try:
        local.start()
        credentials = local.credentials()
        yield local, ConnectionSettings(credentials.uri, credentials.username, credentials.password)
    finally:
        local.stop()
        shutil.rmtree(local.instance_dir, ignore_errors=True)


async def _export(settings: ConnectionSettings, path: Path) -> list[str]:
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USERNAME": settings.username}
    env["NEO4J_PASSWORD"] = settings.password
    arguments = ("profile", "export", LEGACY_PROFILE, "--embeddings", "--output", str(path))
    done = await reverie(env, *arguments, seconds=600)
    assert done.returncode == 0, done.stderr
    # Without the header, which carries the export's time, and the closing line, which hashes it.
    return (await anyio.Path(path).read_text(encoding="utf-8")).splitlines()[1:-1]


def test_the_old_store_is_backed_up_before_the_new_server_opens_it(
    upgraded: tuple[LocalNeo4j, ConnectionSettings],
) -> None:
    local, _ = upgraded
    (backup,) = (local.instance_dir / "backups").iterdir()
    assert backup.name.startswith("neo4j-5.26.30-")
    assert {dump.name for dump in backup.iterdir()} == {"neo4j.dump", "system.dump"}
    assert all(dump.stat().st_size > 0 for dump in backup.iterdir())
    marker = json.loads((local.instance_dir / "data" / "reverie-store.json").read_text())
    assert marker == {"neo4j": NEO4J_VERSION}


async def test_the_profile_exports_exactly_as_before_and_searches_in_meaning(
    upgraded: tuple[LocalNeo4j, ConnectionSettings], tmp_path: Path
) -> None:
    _, settings = upgraded
    # Exported first: a recall then logs its question in the profile (recall signals).
    before = (FIXTURES / "neo4j-5.26.30-export.jsonl").read_text(encoding="utf-8").splitlines()[1:-1]
    # But for the format mark: the profile was upgraded (from format 2 it holds nothing to change).
    marked = [line.replace('"graph_format": 2}', f'"graph_format": {GRAPH_FORMAT}}}') for line in before]
    assert marked != before
    assert await _export(settings, tmp_path / "after.jsonl") == marked
    async with Client(build_server(settings_for(settings, LEGACY_PROFILE), "stdio")) as client:
        question = {"query": "Where did the person go running?"}
        found = structured(await client.call_tool("recall_memory", question))
        dreams = structured(await client.call_tool("list_dreams", {}))
    assert "semantic" in {lane for item in found["results"] for lane in item["lanes"]}
    assert dreams["dreams"]
    indexes = await database(settings, "SHOW VECTOR INDEXES YIELD name, properties RETURN name, properties")
    assert {row["name"]: row["properties"] for row in indexes} == {
        name: ["embedding", "profile_id", "embedding_model", "status"]
        for name in ("recall_embedding", "dream_embedding")
    }
