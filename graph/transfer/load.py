"""Reading a profile in from JSON Lines: the whole file is checked before anything is written,
then written in batches that merge by key (so the same file twice changes nothing)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.directory import ids_held_elsewhere
from graph.errors import InvalidInputError
from graph.transfer import queries as q
from graph.transfer.lines import EDGES, NODE_KEYS, EdgeLine, Header, NodeLine, decode_value, parse, refuse
from graph.transfer.models import ImportReport

BATCH = 500


@dataclass
class _Checked:
    """What the checking pass learnt: the header and every node's key by kind."""

    header: Header
    keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    edges: int = 0


def _lines(path: Path) -> Iterator[tuple[int, str]]:
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


def check_file(path: Path) -> _Checked:
    """The whole file against the format; the first problem is refused with its line number."""
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise InvalidInputError(f"{path} is empty; nothing was imported.")
    checked = _Checked(parse(first[0], first[1], Header))
    for number, text in lines:
        if _is_edge(text):
            _check_edge(number, parse(number, text, EdgeLine), checked)
        elif checked.edges:
            raise refuse(number, "a node after the relationships; nodes come first")
        else:
            _check_node(number, parse(number, text, NodeLine), checked)
    return checked


def _is_edge(text: str) -> bool:
    # `dump` sorts keys, so an edge line opens with {"edge": ...; a node line never does.
    return text.lstrip().startswith('{"edge"')


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

    for number, text in _lines(path):
        if number == 1 or _is_edge(text) != edges:
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


async def import_profile(store: GraphStore, profile_id: str, path: Path) -> ImportReport:
    """Check the file whole, check its ids are free, then write it into `profile_id`."""
    checked = check_file(path)
    graph = store.profile(profile_id)
    await _check_ids_free(store, graph.profile_id, checked)
    # Nodes first, so every relationship finds both its ends.
    await _write_batches(graph, path, edges=False)
    await _write_batches(graph, path, edges=True)
    return ImportReport(
        profile_id=graph.profile_id,
        source_profile_id=checked.header.profile_id,
        nodes=sum(len(keys) for keys in checked.keys.values()),
        edges=checked.edges,
        embeddings=checked.header.embeddings,
    )
