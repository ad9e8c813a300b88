"""Cypher of recall's lexical lane and of the evidence it shows. Every query is profile-scoped
and checked at import."""

from __future__ import annotations

from typing import Final

from graph.recall.fields import DREAMS_MATCHING, RESULT_ENTRIES, TIME_FILTER
from graph.scope import ScopedQuery

# The lexical lane's term statistics count up to this many of a kind's memories, and up to this
# many hits of each word: exact in a profile of up to 1,000 memories of the kind. A larger one is
# weighed as if it held 1,000 (a word in more than that many weighs nothing), so each word's
# search stays bounded; see docs/recall.md.
STATISTICS_CAP: Final = 1_000
# How many of each kind's best lexical shares come back beside the candidates, for the fusion
# to score what only the semantic lane brought.
SHARES_PER_KIND: Final = 300

# How many of a kind's live memories the profile holds, counted up to `$cap`: the N of the
# lexical lane's term statistics. Times are not looked at here (a cheap count through the
# (profile_id, status, time) indexes, which serve only a query naming all three properties);
# `known_at` and `valid_at` only narrow which memories match.
_LIVE_SIZES = """
    CALL () { MATCH (n:Fact {profile_id: $profile_id})
              WHERE n.status IN $statuses.fact AND n.recorded_at IS NOT NULL
              WITH n LIMIT $cap RETURN count(n) AS fact }
    CALL () { MATCH (n:Claim {profile_id: $profile_id})
              WHERE n.status IN $statuses.claim AND n.created_at IS NOT NULL
              WITH n LIMIT $cap RETURN count(n) AS claim }
    CALL () { MATCH (n:SourceFragment {profile_id: $profile_id}) WHERE n.status IN $statuses.fragment
              WITH n LIMIT $cap RETURN count(n) AS fragment }
    WITH {fact: fact, claim: claim, fragment: fragment} AS sizes
"""
# One kind's memories matching the query's words, each with its lexical share (a subquery body
# over `search` and `sizes`; `graph/recall/fusion.py` says what the share is and why). Lucene
# is asked once per word, pinned to the profile and status, so each word's hits are this
# profile's own: their count is the word's document frequency in the profile, and no other
# profile's memories change a weight or a rank. The memories come back ranked by share (ties by
# id, so the order is Lucene's in nothing), as `ranked`.
_KIND_SHARES = (
    """
        UNWIND $words AS word
        CALL (search, word) {
            CALL db.index.fulltext.queryNodes(search.index,
                'profile_key:' + $profile_key + ' AND status:(' + search.statuses + ')'
                + ' AND text:(' + word + ')',
                {limit: $cap})
            YIELD node
            WHERE node.profile_id = $profile_id """
    + TIME_FILTER
    + """
            RETURN collect(node) AS hits
        }
        WITH search, hits, sizes[search.kind] AS size
        WITH search, hits, log(1.0 + (size - size(hits) + 0.5) / (size(hits) + 0.5)) AS idf
        WITH search, collect({idf: idf, hits: hits}) AS words, sum(idf) AS total
        UNWIND words AS matched
        UNWIND matched.hits AS node
        WITH search, total, node, sum(matched.idf) AS weight
        WITH search, total, node, weight, size(split(node.text, ' ')) AS length
        WITH search, total, collect({node: node, weight: weight, length: length}) AS found
        WITH search, total, found, reduce(n = 0.0, f IN found | n + f.length) / size(found) AS average
        UNWIND found AS f
        WITH f.node AS node,
             f.weight / total * ($k1 + 1) / (1 + $k1 * (1 - $b + $b * f.length / average)) / $most AS share
        ORDER BY share DESC, node.id
        RETURN collect({node: node, share: share})[..$shares] AS ranked
"""
)
# Recall's lexical lane for every kind, and the open dreams whose text matches the query: one
# query, one row. `memories` are each kind's best `$limit` with their fields; `shares` the
# share of each kind's best `$shares` ([id, share] pairs), so a memory only the semantic lane
# brought still gets its lexical share in the fusion.
FULLTEXT_SEARCH = ScopedQuery(
    "fulltext_search",
    f"""
    {_LIVE_SIZES}
    CALL (sizes) {{
        UNWIND $searches AS search
        CALL (search, sizes) {{ {_KIND_SHARES} }}
        CALL (search, ranked) {{
            UNWIND ranked[..$limit] AS top
            WITH search, top.node AS node, top.share AS score
            RETURN collect({{kind: search.kind, {RESULT_ENTRIES}}}) AS memories
        }}
        RETURN collect(memories) AS memories,
               reduce(pairs = [], kind IN collect(ranked) | pairs + [r IN kind | [r.node.id, r.share]])
               AS shares
    }}
    CALL () {{ {DREAMS_MATCHING} }}
    RETURN reduce(flat = [], kind IN memories | flat + kind) AS memories, shares, dreams
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
