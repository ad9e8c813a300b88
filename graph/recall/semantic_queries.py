"""Cypher of recall's semantic lane. Every query is profile-scoped and checked at import.

The vector index `recall_embedding` (fragments, claims and facts of every profile) lists
`profile_id`, `embedding_model` and `status` beside the vector, so Neo4j 2026's `SEARCH` keeps
only this profile's live vectors of the running model while it walks the index and returns the
nearest of exactly those: no other profile can crowd them out, however many share the database.
The filter takes only equality, so each wanted status is one search.
"""

from __future__ import annotations

from typing import Final

from graph.embedding.kinds import STORAGE, EmbeddedKind
from graph.recall.fields import RESULT_ENTRIES, TIME_FILTER
from graph.scope import ScopedQuery

SEARCHED_KINDS: Final = (EmbeddedKind.FACT, EmbeddedKind.CLAIM, EmbeddedKind.FRAGMENT)

# `$statuses` maps each kind to its wanted statuses, `$wanted` is their union. A status names
# the same stage of every kind that has it, so a row's kind always wants the status it has;
# only a look back in time (`TIME_FILTER`) drops rows after the search. The same query reads the
# cosine score of the memories `$named` per kind (the lexical lane's candidates) that the search
# did not bring, so the fusion compares every candidate on its own meaning without another
# round trip: one row, `nearest` (result entries, best first) and `cosines` ([id, score] pairs).
NEAREST = ScopedQuery(
    "nearest_memories",
    f"""
    CYPHER 25
    CALL () {{
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
        RETURN collect({{kind: kind, {RESULT_ENTRIES}}}) AS nearest
    }}
    CALL (nearest) {{
        CALL () {{
            {
        " UNION ALL ".join(
            f"UNWIND $named.{kind} AS id"
            f" MATCH (node:{STORAGE[kind].label} {{profile_id: $profile_id, id: id}}) RETURN node"
            for kind in SEARCHED_KINDS
        )
    }
        }}
        WITH node WHERE node.embedding_model = $model AND NOT node.id IN [found IN nearest | found.id]
        RETURN collect([node.id, vector.similarity.cosine(node.embedding, $vector)]) AS cosines
    }}
    RETURN nearest, cosines
    """,
)
