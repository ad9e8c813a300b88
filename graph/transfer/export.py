"""Writing a profile out as JSON Lines, a page at a time, in a stable order (so exporting the
same graph twice gives the same lines, apart from the header's time and so the checksum), closed
by the line that proves the file whole."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from pydantic import BaseModel

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.errors import InvalidInputError, ReverieError
from graph.schema import PROFILE_LABELS
from graph.transfer import queries as q
from graph.transfer.lines import (
    EDGES,
    FORMAT_VERSION,
    NODE_KEYS,
    RESERVED,
    RUNTIME,
    Closing,
    EdgeLine,
    Header,
    NodeLine,
    dump,
    encode_value,
)
from graph.transfer.models import ExportReport
from graph.transfer.records import ExportedEdge, ExportedNode

PAGE = 1_000


class UnknownEdgeError(ReverieError):
    """The graph holds a relationship the format does not know: exporting would drop it."""


def _node_line(label: str, stored: Mapping[str, Any], embeddings: bool) -> NodeLine:
    vector = stored.get("embedding") if embeddings else None
    dropped = RESERVED | RUNTIME | (set() if embeddings and vector else {"embedding_model"})
    properties = {name: encode_value(value) for name, value in sorted(stored.items()) if name not in dropped}
    return NodeLine.model_validate({"node": label, "properties": properties, "embedding": vector})


def _primary(labels: Sequence[str]) -> str:
    """A node's kind: the first of its labels that is one (fragments are also Recallable)."""
    return next(label for label in PROFILE_LABELS if label in labels)


class _Sealed:
    """The lines written to `out`, hashed as the importer hashes them (UTF-8, with newline)."""

    def __init__(self, out: TextIO) -> None:
        self._out, self._sha = out, hashlib.sha256()

    def write(self, line: BaseModel) -> None:
        text = dump(line) + "\n"
        self._sha.update(text.encode("utf-8"))
        self._out.write(text)

    def close(self, nodes: int, edges: int) -> None:
        closing = Closing(
            end="reverie_export", nodes=nodes, relationships=edges, sha256=self._sha.hexdigest()
        )
        self._out.write(dump(closing) + "\n")


async def export_profile(graph: ProfileGraph, out: TextIO, embeddings: bool = False) -> ExportReport:
    pending = await graph.read(ProfileTx.single, q.IMPORT_PENDING)
    if pending and pending["sha256"]:
        raise InvalidInputError(
            f"profile {graph.profile_id!r} holds an import that did not finish: run that import again to "
            "finish it, or delete the profile. Nothing was exported."
        )
    header = Header(
        reverie_export=FORMAT_VERSION,
        profile_id=graph.profile_id,
        exported_at=utcnow().isoformat(),
        embeddings=embeddings,
    )
    sealed = _Sealed(out)
    sealed.write(header)
    nodes = sum([await _write_nodes(graph, label, sealed, embeddings) for label in PROFILE_LABELS])
    edges = sum([await _write_edges(graph, label, sealed) for label in q.EXPORT_EDGES])
    sealed.close(nodes, edges)
    return ExportReport(profile_id=graph.profile_id, nodes=nodes, edges=edges, embeddings=embeddings)


async def _write_nodes(graph: ProfileGraph, label: str, out: _Sealed, embeddings: bool) -> int:
    key = NODE_KEYS[label] or "profile_id"
    written, after = 0, ""
    while True:
        rows = await graph.read(ProfileTx.run, q.EXPORT_NODES[label], after=after, page=PAGE)
        nodes = [ExportedNode.from_row(row) for row in rows]
        for node in nodes:
            out.write(_node_line(label, node.properties, embeddings))
        written += len(nodes)
        if len(nodes) < PAGE:
            return written
        after = nodes[-1].properties[key]


async def _write_edges(graph: ProfileGraph, label: str, out: _Sealed) -> int:
    """The relationships leaving `label`'s nodes, a page of those nodes at a time."""
    written, after = 0, ""
    while True:
        rows = await graph.read(ProfileTx.run, q.EXPORT_EDGES[label], after=after, page=PAGE)
        edges = [ExportedEdge.from_row(row) for row in rows]
        for edge in edges:
            if edge.type is None:
                continue  # a node with no relationships
            line = EdgeLine.model_validate(
                {
                    "edge": edge.type,
                    "from": [label, edge.from_id],
                    "to": [_primary(edge.to_labels), edge.to_id],
                }
            )
            if line.triple() not in EDGES:
                raise UnknownEdgeError(
                    f"the graph holds a {line.triple()} relationship the export format does not know; "
                    "nothing was exported in its place"
                )
            out.write(line)
            written += 1
        sources = sorted({edge.from_id for edge in edges})
        if len(sources) < PAGE:
            return written
        after = sources[-1]
