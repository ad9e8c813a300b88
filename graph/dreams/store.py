"""Writing a dream: the one way a dream node is made, for the cycle and for a host alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Any

from graph.access import ProfileTx
from graph.dreams import queries as q
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


async def create_dream(tx: ProfileTx, dream: NewDream, now: datetime) -> str | None:
    """The new dream's id, or None when it was not written: a source is no longer live, a pair
    of its sources was judged empty or is cited by another dream, or the same sources were
    dreamed already. The caller holds the words gate (`graph/words_gate.py`)."""
    pair_keys = [sources_key(pair) for pair in combinations(dream.source_ids, 2)]
    row = await tx.single(
        q.CREATE_DREAM,
        pair_key=sources_key(dream.source_ids),
        pair_keys=pair_keys,
        fields=dict(dream.fields),
        id=dream.id,
        run_id=dream.run_id,
        source_ids=list(dream.source_ids),
        builds_on=list(dream.builds_on),
        now=now,
    )
    return id_of(row) if row is not None else None
