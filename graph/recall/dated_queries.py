"""Cypher of recall's date lane: the fragments said in the days a question names. Every query is
profile-scoped and checked at import."""

from __future__ import annotations

from graph.recall.fields import RESULT_FIELDS, TIME_FILTER
from graph.scope import ScopedQuery

# The live fragments of the profile said between each pair of `$spans` bounds, through the
# (profile_id, occurred_at) index, at most `$cap` per span, the `$limit` nearest the query first
# (scored by cosine; 0 without a vector of the running model).
SAID_WITHIN = ScopedQuery(
    "said_within",
    f"""
    UNWIND $spans AS span
    CALL (span) {{
        MATCH (node:SourceFragment {{profile_id: $profile_id}})
        WHERE span.from <= node.occurred_at < span.to
          AND node.status IN $statuses {TIME_FILTER}
        WITH node LIMIT $cap
        RETURN node
    }}
    WITH DISTINCT node
    WITH node,
         CASE WHEN node.embedding_model = $model THEN vector.similarity.cosine(node.embedding, $vector)
              ELSE 0.0 END AS score
    ORDER BY score DESC LIMIT $limit
    RETURN 'fragment' AS kind, {RESULT_FIELDS}
    """,
)
