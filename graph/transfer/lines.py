"""The export format, one JSON object a line, and its validation.

    {"reverie_export": 2, "profile_id": "alice", "exported_at": "...", "embeddings": false}
    {"node": "SourceFragment", "properties": {...}, "embedding": null}
    {"edge": "SUPPORTED_BY", "from": ["Claim", "<id>"], "to": ["SourceFragment", "<id>"]}
    {"end": "reverie_export", "nodes": 1, "relationships": 1, "sha256": "<hex>"}

The header comes first, then every node, then every edge, then the closing line, which proves
the file whole: it counts the nodes and relationships and holds the SHA-256 of every line before
it (each as UTF-8 with its newline). A file cut anywhere lacks it. Format 1 files had no closing
line; they are read only when the caller accepts that. Times are written as
`{"$datetime": "<ISO 8601>"}`. A node's properties never hold its profile (the importer gives
it the target profile) nor its vector (`embedding`, present only when asked for).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Final, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graph.errors import InvalidInputError, validation_problems
from graph.memory.models import SharedKind
from graph.schema import PROFILE_LABELS, VECTOR_DIMENSIONS

FORMAT_VERSION: Final = 2
# Format 1 had no closing line, so nothing shows whether such a file is whole.
UNPROVEN_VERSION: Final = 1
DATETIME_TAG: Final = "$datetime"
# The property naming each kind's node within its profile (the Profile node is one per profile).
NODE_KEYS: Final = {label: "id" for label in PROFILE_LABELS} | {"FactSlot": "slot", "Profile": ""}
# Every relationship a profile holds: (from label, type, to label).
EDGES: Final = frozenset({
    ("Claim", "SUPPORTED_BY", "SourceFragment"),
    ("Fact", "PROMOTED_FROM", "Claim"),
    ("Fact", "SUPERSEDED_BY", "Fact"),
    ("Fact", "SUPERSEDED_BY", "Forgotten"),
    ("Clarification", "ABOUT_CLAIM", "Claim"),
    ("Clarification", "ABOUT_FACT", "Fact"),
    ("Dream", "DREAMED_FROM", "SourceFragment"),
    ("Dream", "DREAMED_FROM", "Fact"),
    ("Dream", "DREAMED_FROM", "Forgotten"),
    ("Dream", "HAS_FEEDBACK", "DreamFeedback"),
    ("Dream", "HAS_REVISION", "DreamRevision"),
    ("Dream", "BUILDS_ON", "Dream"),
    ("Dream", "FEEDBACK_EVIDENCE", "SourceFragment"),
})  # fmt: skip
# Written by the importer itself, or runtime state that means nothing in another graph.
RESERVED: Final = frozenset({"profile_id", "profile_key", "embedding"})
RUNTIME: Final = frozenset({
    "cycle_run_id", "cycle_lease_expires_at", "lock_touched_at", "locked_at",
    "import_pending", "import_created", "vector_due",
})  # fmt: skip
Label = Literal[
    "SourceFragment", "Claim", "Fact", "Clarification", "FactSlot", "Dream", "DreamFeedback",
    "DreamRevision", "EmptyPair", "DreamRun", "Forgotten", "Profile", "RecallQuestion",
]  # fmt: skip
Scalar = str | int | float | bool | None
Value = Scalar | list[str] | list[float] | list[int] | dict[str, str]


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


L = TypeVar("L", bound=_Line)


class Header(_Line):
    reverie_export: Literal[1, 2]
    profile_id: str
    exported_at: str
    embeddings: bool


class Closing(_Line):
    """The last line of a format 2 file: what came before it, counted and hashed."""

    end: Literal["reverie_export"]
    nodes: int
    relationships: int
    sha256: str


class NodeLine(_Line):
    node: Label
    properties: dict[str, Value]
    embedding: (
        Annotated[list[float], Field(min_length=VECTOR_DIMENSIONS, max_length=VECTOR_DIMENSIONS)] | None
    ) = None

    @field_validator("properties")
    @classmethod
    def _no_reserved(cls, properties: dict[str, Value]) -> dict[str, Value]:
        taken = sorted(RESERVED & set(properties))
        if taken:
            raise ValueError(f"properties must not hold {', '.join(taken)}: the importer sets them")
        return properties

    @model_validator(mode="after")
    def _known_shared(self) -> NodeLine:
        # The dream finder reads a fragment's `shared` as one of remember's kinds; another value
        # would stop every later dream cycle of the profile, so it is refused here.
        shared = self.properties.get("shared")
        if self.node == "SourceFragment" and shared is not None and shared not in get_args(SharedKind):
            kinds = ", ".join(get_args(SharedKind))
            raise ValueError(f"a SourceFragment's shared is one of {kinds}, or absent for the person's words")
        return self

    def key(self) -> str:
        name = NODE_KEYS[self.node]
        if not name:
            return ""
        value = self.properties.get(name)
        if not isinstance(value, str) or not value:
            raise ValueError(f"a {self.node} needs its {name!r} as a non-empty string")
        return value


class EdgeLine(_Line):
    edge: str
    from_: tuple[Label, str] = Field(alias="from")
    to: tuple[Label, str]

    def triple(self) -> tuple[str, str, str]:
        return (self.from_[0], self.edge, self.to[0])


def encode_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return {DATETIME_TAG: value.isoformat()}
    return value


def decode_value(value: Value) -> Any:
    if isinstance(value, dict):
        if set(value) != {DATETIME_TAG}:
            raise ValueError(f"a map value must be {{{DATETIME_TAG!r}: <ISO time>}}")
        return datetime.fromisoformat(value[DATETIME_TAG])
    return value


def dump(line: BaseModel) -> str:
    return json.dumps(line.model_dump(mode="json", by_alias=True, exclude_none=False), sort_keys=True)


def is_edge(text: str) -> bool:
    # `dump` sorts keys, so an edge line opens with {"edge": ...; a node line never does.
    return text.lstrip().startswith('{"edge"')


def is_closing(text: str) -> bool:
    return text.lstrip().startswith('{"end"')


def parse(number: int, text: str, kind: type[L]) -> L:
    """One line as `kind`; anything wrong is refused with the line's number."""
    try:
        return kind.model_validate_json(text)
    except ValidationError as error:
        raise InvalidInputError(
            f"line {number}: {validation_problems(error)}. Nothing was imported."
        ) from None


def refuse(number: int, problem: str) -> InvalidInputError:
    return InvalidInputError(f"line {number}: {problem}. Nothing was imported.")
