"""A profile as a whole: how much it holds, and erasing all of it."""

from __future__ import annotations

from graph.access import ProfileGraph, ProfileTx
from graph.embedding.encoder import Embedder
from graph.forgetting.models import ProfileCounts
from graph.schema import ACCESS_LABELS, BOOKKEEPING_LABELS, PROFILE_LABELS
from graph.scope import ScopedQuery

# Each label counted by itself, so one count is one label scan narrowed to the profile.
_COUNT = ScopedQuery(
    "count_profile",
    "\n".join(
        f"CALL () {{ MATCH (n:{label} {{profile_id: $profile_id}}) RETURN count(n) AS {label} }}"
        for label in PROFILE_LABELS
    )
    + "\nRETURN "
    + ", ".join(PROFILE_LABELS),
)
# Batches of their own, so a profile of any size is erased without one huge transaction.
_ERASE = {
    label: ScopedQuery(
        f"erase_{label.lower()}",
        f"""
        MATCH (n:{label} {{profile_id: $profile_id}})
        CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF $batch ROWS
        """,
    )
    for label in ACCESS_LABELS + BOOKKEEPING_LABELS + PROFILE_LABELS
}
ERASE_BATCH = 5_000


async def _count(tx: ProfileTx) -> ProfileCounts:
    row = await tx.one(_COUNT)
    return ProfileCounts.from_labels(row)


async def count_profile(graph: ProfileGraph) -> ProfileCounts:
    return await graph.read(_count)


async def erase_profile(graph: ProfileGraph, embedder: Embedder | None = None) -> ProfileCounts:
    """Delete every node of the profile, label by label: its grants and sessions first, so no
    connector or browser keeps acting for it while the rest goes, and the Profile node last, so
    a profile interrupted half-way still lists and can be erased again. `embedder`, the process's
    model, drops the vectors of the profile's questions too. Returns what it held."""
    held = await count_profile(graph)
    for label in ACCESS_LABELS + BOOKKEEPING_LABELS + PROFILE_LABELS:
        await graph.run_batched(_ERASE[label], batch=ERASE_BATCH)
    # After the deletes: a recall answered while they ran may have kept its question's vector.
    if embedder is not None:
        embedder.drop_questions(graph.profile_id)
    return held
