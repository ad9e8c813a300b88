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
# How many of each word's hits are scored, each weighed by every query word it matches. The
# work per hit (its properties, its length, the sums) was most of the lexical query's time, and
# a word in hundreds of a profile's memories weighs little. At 20,000 memories, the bench's
# queries interleaved with the query that scored every hit: p50 17.1 against 26.6 ms, p90 23.5
# against 41.6; the same top 10 for 67 of 80 queries. LoCoMo development split: R@10 78.7 for
# both, R@5 68.8 against 69.7 (docs/recall.md).
PER_WORD: Final = 100
# How many of each kind's best lexical shares come back beside the candidates, for the fusion
# to score what only the semantic lane brought.
SHARES_PER_KIND: Final = 300

# How many of a kind's live memories the profile holds, counted up to `$cap`: the N of the
# lexical lane's term statistics. Times are not looked at here; `known_at` and `valid_at` only
# narrow which memories match. Each count reads at most `$cap` entries of a (profile_id, status,
# ...) index. The planner preferred the (profile_id, time) indexes and read the status of every
# claim and fact on the way: a profile whose claims were all promoted had each of its claims
# read on every recall (2,111 of them at 20,000 memories, and the count found none), so the
# indexes are named.
_LIVE_SIZES = """
    CALL () { MATCH (n:Fact {profile_id: $profile_id})
              USING INDEX n:Fact(profile_id, status, recorded_at)
              WHERE n.status IN $statuses.fact AND n.recorded_at IS NOT NULL
              WITH n LIMIT $cap RETURN count(n) AS fact }
    CALL () { MATCH (n:Claim {profile_id: $profile_id})
              USING INDEX n:Claim(profile_id, status, created_at)
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
# profile's memories change a weight or a rank. Each word brings its `$per_word` best hits
# (Lucene's order for one word: the shortest memories first), and each memory brought is
# weighed by every word it matches, found among the words' full hit lists. The memories come
# back ranked by share (ties by id, so the order is Lucene's in nothing), as `ranked`.
# Lucene's hits are already the profile's live memories (its key and the statuses are in the
# query; the key is a hash of the profile id), so only a look back in time reads each hit; what
# a word brings is checked against the profile id before it is scored. Reading every hit took
# 3 of the query's 9.5 ms at p50 and 8 of 21 at p95 on the bench's profile of 100,000 (150
# queries, the same results).
_KIND_SHARES = (
    """
        UNWIND $words AS word
        CALL (search, word) {
            CALL db.index.fulltext.queryNodes(search.index,
                'profile_key:' + $profile_key + ' AND status:(' + search.statuses + ')'
                + ' AND text:(' + word + ')',
                {limit: $cap})
            YIELD node
            WITH collect(node) AS found
            RETURN CASE WHEN $known_at IS NULL AND $valid_at IS NULL THEN found
                        ELSE [node IN found WHERE node.profile_id = $profile_id """
    + TIME_FILTER
    + """] END AS matching
        }
        WITH search, matching, size(matching) AS count, sizes[search.kind] AS size
        WITH search, matching, log(1.0 + (size - count + 0.5) / (count + 0.5)) AS idf
        WITH search, collect({idf: idf, matching: matching}) AS words, sum(idf) AS total
        UNWIND words AS brought
        UNWIND brought.matching[..$per_word] AS node
        WITH DISTINCT search, total, words, node WHERE node.profile_id = $profile_id
        WITH search, total, node, size(split(node.text, ' ')) AS length,
             reduce(sum = 0.0, w IN words | sum + CASE WHEN node IN w.matching THEN w.idf ELSE 0.0 END)
             AS weight
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
# brought still gets its lexical share in the fusion; `cosines` the cosine score of each of
# `memories` with a vector of the running model `$model` ([id, score] pairs; none when `$model`
# is null), so a memory only this lane brought is weighed by its meaning too.
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
            RETURN collect({{kind: search.kind, {RESULT_ENTRIES}}}) AS memories,
                   collect(CASE WHEN node.embedding_model = $model
                           THEN [node.id, vector.similarity.cosine(node.embedding, $vector)] END) AS cosines
        }}
        RETURN collect(memories) AS memories, collect(cosines) AS cosines,
               reduce(pairs = [], kind IN collect(ranked) | pairs + [r IN kind | [r.node.id, r.share]])
               AS shares
    }}
    CALL () {{ {DREAMS_MATCHING} }}
    RETURN reduce(flat = [], kind IN memories | flat + kind) AS memories,
           reduce(flat = [], kind IN cosines | flat + kind) AS cosines, shares, dreams
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
