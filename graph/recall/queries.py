"""Cypher of recall's lexical lane and of the evidence it shows. Every query is profile-scoped
and checked at import."""

from __future__ import annotations

from graph.recall.fields import DREAMS_MATCHING, RESULT_ENTRIES, TIME_FILTER
from graph.scope import ScopedQuery

# Recall's lexical lane, one fulltext search per kind, and the open dreams whose text matches
# the query: one query, one row. The Lucene string pins profile and status inside each index,
# so `limit` is pushed into Lucene and another profile's matches never crowd out this one's.
# The dream search had a query of its own beside the lanes; in one process on the bench's
# 100,000 memories recall took 2.5 to 4 ms less at the median and 5 to 6 at p95 without it.
FULLTEXT_SEARCH = ScopedQuery(
    "fulltext_search",
    f"""
    CALL () {{
        UNWIND $searches AS search
        CALL (search) {{
            CALL db.index.fulltext.queryNodes(search.index,
                'profile_key:' + $profile_key + ' AND status:(' + search.statuses + ') AND ' + $terms,
                {{limit: $limit}})
            YIELD node, score
            WHERE node.profile_id = $profile_id {TIME_FILTER}
            RETURN node, score
        }}
        RETURN collect({{kind: search.kind, {RESULT_ENTRIES}}}) AS memories
    }}
    CALL () {{ {DREAMS_MATCHING} }}
    RETURN memories, dreams
    """,
)
CLAIM_EVIDENCE = ScopedQuery(
    "claim_evidence",
    """
    UNWIND $claim_ids AS claim_id
    MATCH (c:Claim {profile_id: $profile_id, id: claim_id})
          -[:SUPPORTED_BY]->(f:SourceFragment {profile_id: $profile_id})
    RETURN claim_id AS owner_id, f.id AS fragment_id, f.text AS text, f.source AS source,
           f.authority AS authority, f.status AS status
    """,
)
FACT_EVIDENCE = ScopedQuery(
    "fact_evidence",
    """
    UNWIND $fact_ids AS fact_id
    MATCH (x:Fact {profile_id: $profile_id, id: fact_id})
          -[:PROMOTED_FROM]->(c:Claim {profile_id: $profile_id})
    MATCH (c)-[:SUPPORTED_BY]->(f:SourceFragment {profile_id: $profile_id})
    RETURN fact_id AS owner_id, f.id AS fragment_id, f.text AS text, f.source AS source,
           f.authority AS authority, f.status AS status
    """,
)
