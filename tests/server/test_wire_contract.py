"""The wire contract, pinned: what `tools/list` shows a host (each tool's title, input and output
schemas and annotations) is kept in tests/server/golden/tools_list.json, so renaming a domain
field, or any other change a host would see, fails here naming the tool and the field, and shows
as a diff in review.

Descriptions are left out, at the top of a tool and inside its schemas: they are wording for the
host's model, edited often, and the bundle manifest's test already pins each tool's first
paragraph. A change of the contract on purpose is written back with

    REVERIE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/server/test_wire_contract.py

and needs an entry in CHANGELOG.md (its "Changed on the wire")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

pytestmark = pytest.mark.anyio

GOLDEN = Path(__file__).parent / "golden" / "tools_list.json"
UPDATE = "REVERIE_UPDATE_GOLDEN"


def without_descriptions(value: Any) -> Any:
    """The value with every description keyword taken out; a property that is named
    `description` stays, since its value is a schema, not a string."""
    if isinstance(value, dict):
        return {
            key: without_descriptions(item)
            for key, item in value.items()
            if not (key == "description" and isinstance(item, str))
        }
    if isinstance(value, list):
        return [without_descriptions(item) for item in value]
    return value


def differences(served: Any, pinned: Any, path: str) -> Iterator[str]:
    """Each place where the served value departs from the pinned one, by its dotted path."""
    if isinstance(served, dict) and isinstance(pinned, dict):
        for key in sorted(pinned.keys() - served.keys()):
            yield f"{path}.{key}: removed"
        for key in sorted(served.keys() - pinned.keys()):
            yield f"{path}.{key}: added"
        for key in sorted(served.keys() & pinned.keys()):
            yield from differences(served[key], pinned[key], f"{path}.{key}")
    elif served != pinned:
        yield f"{path}: {json.dumps(pinned)} -> {json.dumps(served)}"


async def test_tools_list_is_the_pinned_wire_contract(client: Client) -> None:
    served = {
        tool.name: without_descriptions(
            tool.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"name"})
        )
        for tool in (await client.list_tools()).tools
    }
    if os.environ.get(UPDATE) == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(served, indent=2, sort_keys=True) + "\n")
    pinned = json.loads(GOLDEN.read_text())
    changes = list(differences(served, pinned, "tools"))
    assert not changes, (
        "tools/list differs from tests/server/golden/tools_list.json:\n"
        + "\n".join(changes)
        + f"\nIf on purpose: {UPDATE}=1 .venv/bin/python -m pytest tests/server/test_wire_contract.py"
        + " and an entry in CHANGELOG.md"
    )
