"""Cypher of recall's semantic lane. Every query is profile-scoped and checked at import.

The vector index `recall_embedding` (fragments, claims and facts of every profile) lists
`profile_id`, `embedding_model` and `status` beside the vector, so Neo4j 2026's `SEARCH` keeps
only this profile's vectors of the running model while it walks the index and returns the
nearest of exactly those: no other profile can crowd them out, however many share the database.
The filter takes only equality, and a recall wants two statuses (`active` fragments and facts,
`validated` claims), so the search filters by profile and model and the status is checked on
what it returns: one search of the index rather than one per status.
"""

from __future__ import annotations

from typing import Final

from graph.embedding.kinds import EmbeddedKind
from graph.recall.fields import RESULT_ENTRIES, TIME_FILTER
from graph.scope import ScopedQuery

SEARCHED_KINDS: Final = (EmbeddedKind.FACT, EmbeddedKind.CLAIM, EmbeddedKind.FRAGMENT)

# `$statuses` maps each kind to its wanted statuses. The search asks for `$fetch` neighbours of
# any status; those of a status their kind does not want (a promoted claim beside its fact, a
# retracted fragment) and those a look back in time (`TIME_FILTER`) rules out are dropped after
# it. One row: `nearest` (result entries, best first) and `searched`, how many the index gave, so
# the caller knows whether asking for more could find more; and `due`, the profile's newest
# memories still owed a vector by the process that stored them (`graph/embedding/keeper.py`),
# read here, through the index `recallable_vector_due`, rather than in a transaction of its own.
NEAREST = ScopedQuery(
    "nearest_memories",
    f"""
    CYPHER 25
    MATCH (node:Recallable)
        SEARCH node IN (VECTOR INDEX recall_embedding FOR $vector
            WHERE node.profile_id = $profile_id AND node.embedding_model = $model
            LIMIT $fetch) SCORE AS score
    WITH node, score, CASE WHEN node:Fact THEN 'fact' WHEN node:Claim THEN 'claim' ELSE 'fragment' END AS kind
    WITH node, score, kind, (node.status IN $statuses[kind] {TIME_FILTER}) AS usable ORDER BY score DESC
    WITH count(*) AS searched,
         collect(CASE WHEN usable THEN {{node: node, score: score, kind: kind}} END)[..$limit] AS kept
    CALL (kept) {{
        UNWIND kept AS hit
        WITH hit.node AS node, hit.score AS score, hit.kind AS kind
        RETURN collect({{kind: kind, {RESULT_ENTRIES}}}) AS nearest
    }}
    CALL () {{
        MATCH (d:Recallable)
        WHERE d.profile_id = $profile_id AND d.vector_due IS NOT NULL
        WITH d ORDER BY d.vector_due DESC LIMIT $due_limit
        RETURN collect({{kind: CASE WHEN d:Fact THEN 'fact' WHEN d:Claim THEN 'claim' ELSE 'fragment' END,
                        id: d.id}}) AS due
    }}
    RETURN nearest, searched, due
    """,
)
