"""The memory pipeline as a host drives it, through the MCP client against the real Neo4j."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.server.conftest import CallTool, error_text

pytestmark = pytest.mark.anyio


def works_at(company: str, extract: float = 0.9, resolution: float = 0.8) -> dict[str, object]:
    return {
        "subject": "user",
        "predicate": "works_at",
        "object": company,
        "extract_conf": extract,
        "resolution_conf": resolution,
    }


async def test_remember_promotes_a_gate_passing_claim_and_recall_finds_it(call: CallTool) -> None:
    stored = await call(
        "remember",
        content="I work at Acme Robotics as a firmware engineer.",
        claims=[works_at("Acme Robotics")],
    )
    assert stored["fragment"]["created"] is True
    [claim] = stored["claims"]
    assert claim["verdict"] == "entailed"
    assert claim["outcome"] == "promoted"
    assert claim["fact"]["object"] == "Acme Robotics"

    found = await call("recall_memory", query="where does the user work? Acme", include_evidence=True)
    kinds = {item["kind"] for item in found["results"]}
    assert {"fact", "fragment"} <= kinds
    fact = next(item for item in found["results"] if item["kind"] == "fact")
    assert fact["id"] == claim["fact"]["id"]
    assert fact["evidence"][0]["text"].startswith("I work at Acme")
    assert found["related_dreams"] == []
