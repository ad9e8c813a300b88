"""What export reads from the graph, as frozen records with one parser each.

Rows come from `EXPORT_NODES` and `EXPORT_EDGES` in `graph/transfer/queries.py`. A node's
properties stay a mapping: the export writes whatever properties a node holds, by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graph.rows import Row


@dataclass(frozen=True)
class ExportedNode:
    """A node of the profile with every property it holds."""

    properties: Mapping[str, Any]

    @classmethod
    def from_row(cls, row: Row) -> ExportedNode:
        """From `EXPORT_NODES`."""
        return cls(row["properties"])


@dataclass(frozen=True)
class ExportedEdge:
    """A relationship leaving a node of the page, with its far end's labels and id; `type` is
    None on the row of a node with no relationships."""

    from_id: str
    type: str | None
    to_labels: tuple[str, ...]
    to_id: str | None

    @classmethod
    def from_row(cls, row: Row) -> ExportedEdge:
        """From `EXPORT_EDGES`."""
        return cls(str(row["from_id"]), row["type"], tuple(row["labels"] or ()), row["to_id"])
