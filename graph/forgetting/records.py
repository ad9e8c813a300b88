"""What forgetting reads back from the graph, as frozen records with one parser each.

Rows come from the queries in `graph/forgetting/queries.py` (rows of one `id` are read by
`graph.rows.ids_of`, and claims losing support by the memory pipeline's `LostSupport`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graph.forgetting.models import ForgettableKind, ForgottenItem
from graph.rows import Row, one_of

# What the cascade erases: the memories, and the dreams that cited them.
DoomedKind = Literal["fragment", "claim", "fact", "dream"]


@dataclass(frozen=True)
class Identified:
    """What a requested id names in the profile (`kind` None: nothing), and whether it is a
    tombstone already."""

    id: str
    kind: ForgettableKind | None
    already: bool

    @classmethod
    def from_row(cls, row: Row) -> Identified:
        """From `IDENTIFY`."""
        kind = row["kind"]
        return cls(
            str(row["id"]),
            None if kind is None else one_of(ForgettableKind, kind, "kind"),
            bool(row["already"]),
        )

    def item(self) -> ForgottenItem | None:
        """The memory as forgetting reports it; None when the id names nothing."""
        if self.kind is None:
            return None
        return ForgottenItem(id=self.id, kind=self.kind, already_forgotten=self.already)


@dataclass(frozen=True)
class Dependent:
    """Something that holds only words being forgotten, so it goes with them."""

    kind: DoomedKind
    id: str

    @classmethod
    def from_row(cls, row: Row) -> Dependent:
        """From `DEPENDENTS`."""
        return cls(one_of(DoomedKind, row["kind"], "kind"), str(row["id"]))


def slots_from_row(row: Row) -> list[str]:
    """From `FORGET_FRAGMENTS`, `FORGET_CLAIMS` or `FORGET_FACTS`: the slots the forgotten nodes held."""
    return [str(slot) for slot in row["slots"]]
