"""The one deliberate cross-profile read: which profiles exist, for the nightly scheduler.

It returns profile ids and their stored dreaming overrides only; reading or writing anything
inside a profile still goes through `GraphStore.profile(...)`.
"""

from __future__ import annotations

from typing import Any, Final, LiteralString

from graph.access import GraphStore
from graph.dreams.config import overrides_of

_LIST_PROFILES: Final[LiteralString] = (
    "MATCH (p:Profile) WHERE p.profile_id IS NOT NULL RETURN p.profile_id AS profile_id, p {.*} AS stored "
    "ORDER BY profile_id"
)


async def list_profiles(store: GraphStore) -> list[tuple[str, dict[str, Any]]]:
    """Every profile id with its dreaming overrides (keys without the `dreaming_` prefix)."""
    async with store.session() as session:
        result = await session.run(_LIST_PROFILES)
        rows = [record.data() async for record in result]
    return [(row["profile_id"], overrides_of(row["stored"])) for row in rows]
