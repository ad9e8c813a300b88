"""Rows as queries return them, and the parsers of the few shapes many queries share.

A query that returns one id a row names the column `id`, and one that counts names it `count`,
so one parser serves each. Every other shape has a record of its own, with its parser, beside its
package's queries (`graph/memory/records.py`, `graph/dreams/records.py`, ...): past the parser,
code reads attributes, never a row's keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, get_args

Row = Mapping[str, Any]


def id_of(row: Row) -> str:
    """The `id` column."""
    return str(row["id"])


def ids_of(rows: Iterable[Row]) -> list[str]:
    """The `id` column of each row, in order."""
    return [id_of(row) for row in rows]


def count_of(row: Row | None) -> int:
    """The `count` column of a counting query; no row counts nothing."""
    return int(row["count"]) if row is not None else 0


def one_of(literal: Any, value: object, column: str) -> Any:
    """`value` checked against the values of the `Literal` type `literal`, for a record field of
    that type; a value the models do not define fails here, not later in a rule."""
    if value not in get_args(literal):
        raise ValueError(f"column {column!r} holds {value!r}, none of {get_args(literal)}")
    return value


def time_of(text: str) -> datetime:
    """A time a query returned as text (`toString(t)` in Cypher), as an aware datetime.

    Queries that return many times at once (recall's candidates) return them as text: the driver
    builds each of its own DateTime values in Python, about 90 microseconds apiece here, which
    for recall's hundred-odd candidates cost more than the searches. A zone name Neo4j appends in
    brackets is dropped; the offset before it, which fixes the instant, is kept."""
    return datetime.fromisoformat(text.partition("[")[0])
