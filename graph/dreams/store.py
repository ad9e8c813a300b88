"""Writing a dream: the one way a dream node is made, for the cycle and for a host alike.

Both hold the profile's words gate (`graph/words_gate.py`) while they check and write, so two
writers about one pair, or a forget of a cited memory, take turns: never the same pair twice,
never a pair judged empty, never a dream quoting a memory forgotten meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Any

from graph.access import ProfileTx
from graph.dreams import store_queries as q
from graph.dreams.models import sources_key
from graph.rows import id_of


@dataclass(frozen=True)
class NewDream:
    """A dream to store: its stored properties, the memories it cites, the dreams it grows."""

    id: str
    fields: Mapping[str, Any]
    source_ids: Sequence[str]
    builds_on: Sequence[str] = ()
    run_id: str | None = None


@dataclass(frozen=True)
class TakenPairs:
    """What already answers a pair among some memories: a dream citing two of them (any
    status), and a pair of them a host judged empty; None where nothing does."""

    dream_id: str | None
    empty_pair: str | None


async def pairs_taken_each(tx: ProfileTx, drafts: Sequence[Sequence[str]]) -> list[TakenPairs]:
    """`pairs_taken` of each of `drafts` (the memories each would cite), in one statement: a
    night's drafts are checked with one round trip instead of two each."""
    if not drafts:
        return []
    rows = await tx.run(
        q.PAIRS_TAKEN,
        drafts=[
            {"index": index, "ids": list(ids), "keys": [sources_key(pair) for pair in combinations(ids, 2)]}
            for index, ids in enumerate(drafts)
        ],
    )
    taken = {int(row["index"]): TakenPairs(row["dream_id"], row["empty_pair"]) for row in rows}
    return [taken[index] for index in range(len(drafts))]


async def pairs_taken(tx: ProfileTx, source_ids: Sequence[str]) -> TakenPairs:
    return (await pairs_taken_each(tx, [source_ids]))[0]


async def create_dream(tx: ProfileTx, dream: NewDream, now: datetime) -> str | None:
    """The new dream's id, or None when it was not written: a source is no longer live, or the
    same sources were dreamed already. The caller checked `pairs_taken` under the gate."""
    row = await tx.single(
        q.CREATE_DREAM,
        pair_key=sources_key(dream.source_ids),
        fields=dict(dream.fields),
        id=dream.id,
        run_id=dream.run_id,
        source_ids=list(dream.source_ids),
        builds_on=list(dream.builds_on),
        now=now,
    )
    return id_of(row) if row is not None else None
