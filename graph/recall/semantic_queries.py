"""Cypher of recall's semantic lane. Every query is profile-scoped and checked at import.

The vector index `recall_embedding` (fragments, claims and facts of every profile) lists
`profile_id`, `embedding_model` and `status` beside the vector, so Neo4j 2026's `SEARCH` keeps
only this profile's live vectors of the running model while it walks the index and returns the
nearest of exactly those: no other profile can crowd them out, however many share the database.
The filter takes only equality, so each wanted status is one search.
"""

from __future__ import annotations

from graph.recall.fields import RESULT_FIELDS, TIME_FILTER
from graph.scope import ScopedQuery

# `$statuses` maps each kind to its wanted statuses, `$wanted` is their union. A status names
# the same stage of every kind that has it, so a row's kind always wants the status it has;
# only a look back in time (`TIME_FILTER`) drops rows after the search.
NEAREST = ScopedQuery(
    "nearest_memories",
    f"""
    CYPHER 25
    UNWIND $wanted AS wanted
    CALL (wanted) {{
        MATCH (node:Recallable)
            SEARCH node IN (VECTOR INDEX recall_embedding FOR $vector
                WHERE node.profile_id = $profile_id AND node.embedding_model = $model
                  AND node.status = wanted
                LIMIT $fetch) SCORE AS score
        RETURN node, score
    }}
    WITH node, score, CASE WHEN node:Fact THEN 'fact' WHEN node:Claim THEN 'claim'
                           ELSE 'fragment' END AS kind
    WHERE node.status IN $statuses[kind] {TIME_FILTER}
    WITH kind, node, score ORDER BY score DESC LIMIT $limit
    RETURN kind, {RESULT_FIELDS}
    """,
)
