"""Cypher of the history import: which of a batch of keys a profile already holds."""

from __future__ import annotations

from graph.scope import ScopedQuery

# A key held by a fragment (with its words' hash) or by the tombstone of one the person forgot.
HELD_KEYS = ScopedQuery(
    "held_import_keys",
    """
    UNWIND $keys AS key
    CALL (key) {
        MATCH (f:SourceFragment {profile_id: $profile_id, idempotency_key: key})
        RETURN f.id AS id, f.content_hash AS content_hash, false AS forgotten
      UNION
        MATCH (t:Forgotten {profile_id: $profile_id, idempotency_key: key})
        RETURN t.id AS id, null AS content_hash, true AS forgotten
    }
    RETURN key, id, content_hash, forgotten
    """,
)
