"""Cypher of recall's conversational context: the turn said right after a question it chose.
Every query is profile-scoped and checked at import."""

from __future__ import annotations

from graph.recall.fields import RESULT_FIELDS, TIME_FILTER
from graph.scope import ScopedQuery

# For each anchor (a question recall chose), the live fragment of the profile said next within
# `$window`, through the (profile_id, occurred_at) index in its order, with the fields of a
# result and its cosine score against the query (0 without a vector of the running model).
NEXT_TURNS = ScopedQuery(
    "next_turns",
    f"""
    UNWIND $anchor_ids AS anchor_id
    MATCH (anchor:SourceFragment {{profile_id: $profile_id, id: anchor_id}})
    WHERE anchor.occurred_at IS NOT NULL
    CALL (anchor) {{
        MATCH (node:SourceFragment {{profile_id: $profile_id}})
        WHERE anchor.occurred_at < node.occurred_at <= anchor.occurred_at + $window
          AND node.status IN $statuses {TIME_FILTER}
        WITH node ORDER BY node.occurred_at LIMIT 1
        RETURN node
    }}
    WITH anchor_id, node,
         CASE WHEN node.embedding_model = $model THEN vector.similarity.cosine(node.embedding, $vector)
              ELSE 0.0 END AS score
    RETURN anchor_id, 'fragment' AS kind, {RESULT_FIELDS}
    """,
)
