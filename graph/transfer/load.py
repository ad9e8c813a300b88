"""Reading a profile in from JSON Lines: the whole file is checked before anything is written,
down to its closing line's counts and checksum, then written in batches that merge by key (so
the same file twice changes nothing), between a mark on the profile and its removal (so an
import cut short shows, and only the same file may finish it)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.directory import ids_held_elsewhere
from graph.errors import InvalidInputError
from graph.transfer import queries as q
from graph.transfer.lines import (
    EDGES,
    NODE_KEYS,
    UNPROVEN_VERSION,
    Closing,
    EdgeLine,
    Header,
    NodeLine,
    decode_value,
    is_closing,
    is_edge,
    parse,
    refuse,
)
from graph.transfer.models import ImportReport
from graph.upgrade import upgrade_if_behind

BATCH = 500


@dataclass
class _Checked:
    """What the checking pass learnt: the header and every node's key by kind."""

    header: Header
    keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    edges: int = 0
    # Of every line before the closing one, as the exporter hashed them.
    sha256: Any = field(default_factory=hashlib.sha256)
    closing: Closing | None = None

    @property
    def nodes(self) -> int:
        return sum(len(keys) for keys in self.keys.values())


def nonblank_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's lines that hold anything, numbered from 1; one that cannot be read is refused."""
    try:
        with path.open(encoding="utf-8") as source:
            for number, text in enumerate(source, start=1):
                if text.strip():
                    yield number, text
    except UnicodeDecodeError as error:
        raise InvalidInputError(f"{path} is not UTF-8 text ({error.reason}); nothing was imported.") from None
    except OSError as error:
        raise InvalidInputError(f"cannot read {path}: {error.strerror}; nothing was imported.") from None


def _check_node(number: int, line: NodeLine, checked: _Checked) -> None:
    try:
        key = line.key()
        for value in line.properties.values():
            decode_value(value)
    except ValueError as error:
        raise refuse(number, str(error)) from None
    if key in checked.keys[line.node]:
        raise refuse(number, f"a second {line.node} {key!r}")
    checked.keys[line.node].add(key)


def _check_edge(number: int, line: EdgeLine, checked: _Checked) -> None:
    if line.triple() not in EDGES:
        raise refuse(number, f"{line.triple()} is not a relationship Reverie keeps")
    for label, key in (line.from_, line.to):
        if key not in checked.keys[label]:
            raise refuse(number, f"the relationship names {label} {key!r}, which no earlier line holds")
    checked.edges += 1


def check_file(path: Path, accept_unproven: bool = False) -> _Checked:
    """The whole file against the format; the first problem is refused with its line number.

    A format 2 file must end with its closing line, whose counts and checksum match what came
    before; a format 1 file, which has none, only with `accept_unproven`."""
    lines = nonblank_lines(path)
    first = next(lines, None)
    if first is None:
        raise InvalidInputError(f"{path} is empty; nothing was imported.")
    checked = _Checked(parse(first[0], first[1], Header))
    _check_version(checked.header, accept_unproven)
    checked.sha256.update(first[1].encode("utf-8"))
    last = first[0]
    for number, text in lines:
        last = number
        if checked.closing is not None:
            raise refuse(number, "a line after the closing line")
        if is_closing(text):
            checked.closing = parse(number, text, Closing)
            continue
        checked.sha256.update(text.encode("utf-8"))
        if is_edge(text):
            _check_edge(number, parse(number, text, EdgeLine), checked)
        elif checked.edges:
            raise refuse(number, "a node after the relationships; nodes come first")
        else:
            _check_node(number, parse(number, text, NodeLine), checked)
    _check_whole(checked, last)
    return checked


def _check_version(header: Header, accept_unproven: bool) -> None:
    if header.reverie_export == UNPROVEN_VERSION and not accept_unproven:
        raise InvalidInputError(
            "this file is in export format 1, written by an earlier Reverie: it has no closing line, "
            "so nothing shows that it is whole. Export the profile again with this version (`reverie "
            "profile export P`), or, to import it as it is, pass --accept-unproven. Nothing was imported."
        )


def _check_whole(checked: _Checked, last: int) -> None:
    closing = checked.closing
    if checked.header.reverie_export == UNPROVEN_VERSION:
        if closing is not None:
            raise refuse(last, "a closing line in a format 1 file")
    elif closing is None:
        raise refuse(
            last,
            "the file ends here without the closing line every export writes last: it was cut short. "
            "Copy or export it again",
        )
    elif (closing.nodes, closing.relationships) != (checked.nodes, checked.edges):
        raise refuse(
            last,
            f"the closing line counts {closing.nodes} nodes and {closing.relationships} relationships, "
            f"the file holds {checked.nodes} and {checked.edges}",
        )
    elif closing.sha256 != checked.sha256.hexdigest():
        raise refuse(
            last, "the lines do not match the closing line's checksum: the file was changed after export"
        )
    if checked.nodes == 0:
        raise refuse(last, "the file holds no nodes")


async def _check_ids_free(store: GraphStore, profile_id: str, checked: _Checked) -> None:
    for label, keys in checked.keys.items():
        if NODE_KEYS[label] != "id":
            continue
        ordered = sorted(keys)
        for start in range(0, len(ordered), BATCH):
            if await ids_held_elsewhere(store, label, ordered[start : start + BATCH], profile_id):
                raise InvalidInputError(
                    f"some {label} ids in the file belong to another profile of this database (ids are "
                    "unique across it): import into another Neo4j, or delete that profile first. "
                    "Nothing was imported."
                )


def _node_row(line: NodeLine) -> dict[str, Any]:
    properties = {name: decode_value(value) for name, value in line.properties.items()}
    return {"key": line.key(), "properties": properties, "embedding": line.embedding}


async def _write_batches(graph: ProfileGraph, path: Path, edges: bool) -> None:
    """Every node line (or every edge line) of the file, in batches of one kind."""
    pending: dict[Any, list[dict[str, Any]]] = defaultdict(list)

    async def flush(kind: Any) -> None:
        rows, pending[kind] = pending[kind], []
        query = q.IMPORT_EDGES[kind] if edges else q.IMPORT_NODES[kind]
        await graph.write(ProfileTx.run, query, rows=rows)

    for number, text in nonblank_lines(path):
        if number == 1 or is_closing(text) or is_edge(text) != edges:
            continue
        if edges:
            edge = EdgeLine.model_validate_json(text)
            kind: Any = edge.triple()
            pending[kind].append({"from_id": edge.from_[1], "to_id": edge.to[1]})
        else:
            node = NodeLine.model_validate_json(text)
            kind = node.node
            pending[kind].append(_node_row(node))
        if len(pending[kind]) >= BATCH:
            await flush(kind)
    for kind, rows in list(pending.items()):
        if rows:
            await flush(kind)


async def import_profile(
    store: GraphStore, profile_id: str, path: Path, accept_unproven: bool = False
) -> ImportReport:
    """Check the file whole, check its ids are free and the profile holds no unfinished import
    of another file, then write it into `profile_id` between setting and clearing the mark."""
    checked = check_file(path, accept_unproven)
    graph = store.profile(profile_id)
    sha256 = checked.sha256.hexdigest()
    await _check_unfinished(graph, sha256)
    await _check_ids_free(store, graph.profile_id, checked)
    await graph.write(ProfileTx.run, q.MARK_IMPORT, sha256=sha256)
    # Nodes first, so every relationship finds both its ends.
    await _write_batches(graph, path, edges=False)
    await _write_batches(graph, path, edges=True)
    await graph.write(ProfileTx.run, q.CLEAR_IMPORT, file_has_profile=bool(checked.keys["Profile"]))
    # A file an earlier version wrote holds its profile in that version's format.
    await upgrade_if_behind(graph)
    return ImportReport(
        profile_id=graph.profile_id,
        source_profile_id=checked.header.profile_id,
        nodes=checked.nodes,
        edges=checked.edges,
        embeddings=checked.header.embeddings,
    )


async def _check_unfinished(graph: ProfileGraph, sha256: str) -> None:
    """An import cut short is finished by the same file (its writes merge); no other file may
    land on top of it."""
    row = await graph.read(ProfileTx.single, q.IMPORT_PENDING)
    pending = row["sha256"] if row else None
    if pending and pending != sha256:
        raise InvalidInputError(
            f"profile {graph.profile_id!r} holds an import of another file that did not finish: import "
            f"that file again to finish it, or erase the half-imported profile (`reverie profile delete "
            f"{graph.profile_id} --yes`) first. Nothing was imported."
        )
