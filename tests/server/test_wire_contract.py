"""The wire contract, pinned: what `tools/list` shows a host (each tool's title, input and output
schemas and annotations) is kept in tests/server/golden/tools_list.json, and what `prompts/list`
shows (each prompt's title and arguments) in prompts_list.json, so renaming a domain field, or any
other change a host would see, fails here naming the tool and the field, and shows as a diff in
review. Listing needs neither a database nor the model, so this runs in the unit lane.

Descriptions are left out, at the top of a tool and inside its schemas: they are wording for the
host's model, edited often, and the bundle manifest's test already pins each tool's first
paragraph (and each prompt's description and text). A change of the contract on purpose is written back with

    REVERIE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/server/test_wire_contract.py

and needs an entry in CHANGELOG.md (its "Changed on the wire")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import Prompt, Tool

from server.app import build_server
from server.settings import ReverieSettings

pytestmark = pytest.mark.unit

GOLDEN_DIR = Path(__file__).parent / "golden"
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


def served_contract(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """What the server lists, tool by tool and prompt by prompt, without descriptions."""
    server = build_server(ReverieSettings(reverie_home=tmp_path, reverie_embedding_model="off"))

    async def listing() -> dict[str, dict[str, Any]]:
        return {
            "tools": {tool.name: _pinned_part(tool) for tool in await server.list_tools()},
            "prompts": {prompt.name: _pinned_part(prompt) for prompt in await server.list_prompts()},
        }

    return anyio.run(listing)


def _pinned_part(listed: Tool | Prompt) -> Any:
    return without_descriptions(
        listed.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"name"})
    )


@pytest.mark.parametrize("kind", ["tools", "prompts"])
def test_the_listing_is_the_pinned_wire_contract(kind: str, tmp_path: Path) -> None:
    served = served_contract(tmp_path)[kind]
    golden = GOLDEN_DIR / f"{kind}_list.json"
    if os.environ.get(UPDATE) == "1":
        golden.write_text(json.dumps(served, indent=2, sort_keys=True) + "\n")
    pinned = json.loads(golden.read_text())
    changes = list(differences(served, pinned, kind))
    assert not changes, (
        f"{kind}/list differs from tests/server/golden/{golden.name}:\n"
        + "\n".join(changes)
        + f"\nIf on purpose: {UPDATE}=1 .venv/bin/python -m pytest tests/server/test_wire_contract.py"
        + " and an entry in CHANGELOG.md"
    )
