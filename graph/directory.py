"""The deliberate cross-profile reads: which profiles exist (for the scheduler and `reverie
profile`), and whether an import's ids are taken by another profile.

They return profile ids, their stored dreaming overrides and counts only; reading or writing anything
inside a profile still goes through `GraphStore.profile(...)`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final, LiteralString

from graph.access import GraphStore
from graph.dreams.records import overrides_of
from graph.rows import Row, count_of

_LIST_PROFILES: Final[LiteralString] = (
    "MATCH (p:Profile) WHERE p.profile_id IS NOT NULL AND ($only IS NULL OR p.profile_id IN $only) "
    "RETURN p.profile_id AS profile_id, p {.*} AS stored ORDER BY profile_id"
)


async def list_profiles(
    store: GraphStore, only: Collection[str] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """Every profile id (or those of `only` that exist) with its dreaming overrides (keys
    without the `dreaming_` prefix)."""
    async with store.session() as session:
        result = await session.run(_LIST_PROFILES, only=None if only is None else sorted(only))
        return [_listed(record) async for record in result]


def _listed(row: Row) -> tuple[str, dict[str, Any]]:
    """From `_LIST_PROFILES`: a profile id and its dreaming overrides."""
    return str(row["profile_id"]), overrides_of(row["stored"])


# Ids are unique across the database (one constraint per kind), so an import may only use ids
# no other profile holds. Read across profiles on purpose; it returns a count, nothing of them.
def _taken_query(label: str) -> LiteralString:
    # Built from the fixed label set only (PROFILE_LABELS), never from input.
    query: LiteralString = (
        "UNWIND $ids AS item_id MATCH (n:" + label + " {id: item_id}) "
        "WHERE n.profile_id <> $profile_id RETURN count(n) AS count"
    )
    return query


async def ids_held_elsewhere(store: GraphStore, label: str, ids: list[str], profile_id: str) -> int:
    """How many of `ids` (of nodes labelled `label`) belong to a profile other than `profile_id`."""
    async with store.session() as session:
        result = await session.run(_taken_query(label), ids=ids, profile_id=profile_id)
        return count_of(await result.single())


_BEHIND: Final[LiteralString] = (
    "MATCH (p:Profile) WHERE p.profile_id IS NOT NULL AND coalesce(p.graph_format, 1) < $format "
    "RETURN p.profile_id AS id, coalesce(p.graph_format, 1) AS format ORDER BY id"
)


async def profiles_behind(store: GraphStore, graph_format: int) -> list[tuple[str, int]]:
    """Profiles whose stored data predates `graph_format`, each with the format it is at (see
    `graph.upgrade`)."""
    async with store.session() as session:
        result = await session.run(_BEHIND, format=graph_format)
        return [(str(record["id"]), int(record["format"])) async for record in result]
