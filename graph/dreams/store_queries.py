"""Cypher of writing a dream (`graph/dreams/store.py`), for the cycle and for a host alike.
Every query is profile-scoped and checked at import. The caller holds the words gate
(`graph/words_gate.py`), so what these read is not overtaken by a forget or another dream's write."""

from __future__ import annotations

from graph.scope import ScopedQuery

# A dream is written only when every memory it cites is still live: one forgotten or retracted
# since the dream was drafted (a cycle drafts outside any transaction) stops it, since its
# words quote that memory. `pair_key` (the sorted source ids) is unique: the same sources are
# never dreamed twice.
CREATE_DREAM = ScopedQuery(
    "create_dream",
    """
    CALL () {
        UNWIND $source_ids AS source_id
        OPTIONAL MATCH (f:SourceFragment {profile_id: $profile_id, id: source_id})
        OPTIONAL MATCH (x:Fact {profile_id: $profile_id, id: source_id})
        WITH coalesce(f, x) AS source WHERE source.status = 'active'
        RETURN collect(source) AS sources
    }
    WITH sources WHERE size(sources) = size($source_ids)
    MERGE (d:Dream {profile_id: $profile_id, pair_key: $pair_key})
      ON CREATE SET d += $fields, d.id = $id, d.profile_key = $profile_key, d.status = 'proposed',
                    d.created_at = $now, d.updated_at = $now, d.run_id = $run_id
    WITH d, sources WHERE d.id = $id
    FOREACH (source IN sources | MERGE (d)-[:DREAMED_FROM]->(source))
    WITH d
    CALL (d) {
        UNWIND $builds_on AS earlier_id
        MATCH (earlier:Dream {profile_id: $profile_id, id: earlier_id})
        MERGE (d)-[:BUILDS_ON]->(earlier)
    }
    RETURN d.id AS id
    """,
)
# For each draft of `$drafts` (its `ids`, and the `keys` of the pairs among them): a dream, in
# any status, that already cites two of those memories (fragments or facts), and a pair of them a
# host judged empty; null where there is none. One statement for all of a night's drafts.
PAIRS_TAKEN = ScopedQuery(
    "pairs_taken",
    """
    UNWIND $drafts AS draft
    OPTIONAL CALL (draft) {
        UNWIND draft.ids AS source_id
        OPTIONAL MATCH (f:SourceFragment {profile_id: $profile_id, id: source_id})
        OPTIONAL MATCH (x:Fact {profile_id: $profile_id, id: source_id})
        WITH coalesce(f, x) AS member WHERE member IS NOT NULL
        MATCH (member)<-[:DREAMED_FROM]-(d:Dream {profile_id: $profile_id})
        WITH d, count(DISTINCT member) AS cited WHERE cited >= 2
        RETURN d.id AS dream_id ORDER BY dream_id LIMIT 1
    }
    OPTIONAL CALL (draft) {
        UNWIND draft.keys AS key
        MATCH (e:EmptyPair {profile_id: $profile_id, pair_key: key})
        RETURN key AS empty_pair ORDER BY empty_pair LIMIT 1
    }
    RETURN draft.index AS index, dream_id, empty_pair
    """,
)
