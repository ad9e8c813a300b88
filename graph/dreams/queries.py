"""Cypher of dreams and dreaming runs. Every query is profile-scoped and checked at import."""

from __future__ import annotations

from graph.scope import ScopedQuery

OPEN_STATUSES = "['proposed', 'reinforced']"

# --- related dreams for recall -------------------------------------------------------------

DREAMS_CITING = ScopedQuery(
    "dreams_citing",
    f"""
    CALL {{
        UNWIND $ids AS memory_id
        MATCH (m:SourceFragment {{profile_id: $profile_id, id: memory_id}}) RETURN m
      UNION
        UNWIND $ids AS memory_id
        MATCH (m:Claim {{profile_id: $profile_id, id: memory_id}}) RETURN m
      UNION
        UNWIND $ids AS memory_id
        MATCH (m:Fact {{profile_id: $profile_id, id: memory_id}}) RETURN m
    }}
    MATCH (m)<-[:DREAMED_FROM]-(d:Dream {{profile_id: $profile_id}})
    WHERE d.status IN {OPEN_STATUSES}
    WITH d, collect(DISTINCT m.id) AS shared
    MATCH (d)-[:DREAMED_FROM]->(s)
    RETURN d {{.id, .hypothesis, .status, .likelihood, .confidence, .created_at}} AS dream,
           shared, collect(s.id) AS source_ids
    ORDER BY size(shared) DESC, d.confidence DESC, d.created_at DESC
    LIMIT $limit
    """,
)
DREAMS_MATCHING = ScopedQuery(
    "dreams_matching",
    """
    CALL db.index.fulltext.queryNodes('dream_text',
        'profile_key:' + $profile_key + ' AND status:(proposed OR reinforced) AND ' + $terms,
        {limit: $limit})
    YIELD node, score
    WHERE node.profile_id = $profile_id
    MATCH (node)-[:DREAMED_FROM]->(s)
    RETURN node {.id, .hypothesis, .status, .likelihood, .confidence, .created_at} AS dream,
           collect(s.id) AS source_ids, score
    ORDER BY score DESC
    """,
)
