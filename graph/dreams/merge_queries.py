"""Cypher of a duplicate's merge (`graph/dreams/merges.py`); profile-scoped and checked at
import. The merge is kept on its dream: what was retracted and kept, whether the person settled
it, and the retraction's record (JSON) that an undo reverses."""

from __future__ import annotations

from graph.scope import ScopedQuery

RECORD_MERGE = ScopedQuery(
    "record_merge",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    SET d.merge_state = $state, d.merge_retracted_id = $retracted_id, d.merge_kept_id = $kept_id,
        d.merge_undo = $undo
    """,
)
# Once settled, the retraction's record is no longer needed: it goes.
SETTLE_MERGE = ScopedQuery(
    "settle_merge",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    SET d.merge_state = $state, d.merge_undo = null
    """,
)
