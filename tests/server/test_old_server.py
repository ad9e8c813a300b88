"""A Neo4j too old for the in-index vector filter is refused before anything is served or written."""

from __future__ import annotations

import pytest

from graph.access import ConnectionSettings
from graph.schema import UnsupportedServerError, is_supported
from server.stores import check_graph
from tests.server.conftest import settings_for


@pytest.mark.unit
@pytest.mark.parametrize(
    ("version", "supported"),
    [("5.26.30", False), ("2025.12.1", False), ("2026.01.0", True), ("2026.08.1", True), ("2027.1.0", True)],
)
def test_versions_from_2026_01_on_are_served(version: str, supported: bool) -> None:
    assert is_supported(version) is supported


@pytest.mark.anyio
async def test_the_start_refuses_a_server_older_than_reverie_needs(
    neo4j_settings: ConnectionSettings, profile_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real server answers with its real version; Reverie is made to need a later one.
    monkeypatch.setattr("graph.schema.MIN_SERVER", (2099, 1))
    with pytest.raises(UnsupportedServerError, match=r"Neo4j 2026\.\d+\.\d+ is too old .* 2099\.01"):
        await check_graph(settings_for(neo4j_settings, profile_id))
