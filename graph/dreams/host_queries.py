"""Cypher of the dreams a host writes through tools (`graph/dreams/host.py`). Every query is
profile-scoped and checked at import; a dream itself is made by `graph/dreams/store.py`, as the
cycle makes one."""

from __future__ import annotations

from graph.dreams.queries import MEMORY_FIELDS
from graph.scope import ScopedQuery

# What each cited id names in this profile: a live memory a dream can cite (with its fields),
# or something it cannot (a claim, a tombstone, a memory no longer active), or nothing.
CITED = ScopedQuery(
    "host_cited",
    f"""
    UNWIND $ids AS source_id
    CALL (source_id) {{
        OPTIONAL MATCH (f:SourceFragment {{profile_id: $profile_id, id: source_id}})
        OPTIONAL MATCH (x:Fact {{profile_id: $profile_id, id: source_id}})
        OPTIONAL MATCH (c:Claim {{profile_id: $profile_id, id: source_id}})
        OPTIONAL MATCH (t:Forgotten {{profile_id: $profile_id, id: source_id}})
        RETURN coalesce(f, x) AS m,
               CASE WHEN f IS NOT NULL THEN 'fragment' WHEN x IS NOT NULL THEN 'fact'
                    WHEN c IS NOT NULL THEN 'claim' WHEN t IS NOT NULL THEN 'forgotten' END AS found
    }}
    RETURN source_id, found, m.status AS state, found AS kind, {MEMORY_FIELDS}
    """,
)
JUDGE_EMPTY = ScopedQuery(
    "host_judge_empty",
    """
    MERGE (e:EmptyPair {profile_id: $profile_id, pair_key: $pair_key})
      ON CREATE SET e.id = $id, e.judged_by = $writer, e.judged_at = $now
    RETURN e.id = $id AS created
    """,
)
# The dream to reword, locked (a property write) so two rewordings apply one after the other.
LOCK_FOR_REWORDING = ScopedQuery(
    "host_lock_for_rewording",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    SET d.lock_touched_at = $now
    RETURN d.status AS status, d.likelihood AS likelihood, d.confidence AS confidence,
           COUNT { (d)-[:HAS_REVISION]->() } AS revisions,
           [(d)-[:DREAMED_FROM]->(s:SourceFragment {profile_id: $profile_id}) | s.id] AS fragment_ids
    """,
)
# The earlier words become a revision; the new ones, and their writer, take their place. The
# vector of the old words goes, so the dream is embedded again.
REWORD = ScopedQuery(
    "host_reword",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    CREATE (rv:DreamRevision {profile_id: $profile_id, id: $revision_id, at: $now, generator: d.generator,
                              hypothesis: d.hypothesis, why: d.why, what_if: d.what_if,
                              possible_outcome: d.possible_outcome, statement: d.statement})
    CREATE (d)-[:HAS_REVISION]->(rv)
    SET d += $fields, d.updated_at = $now, d.embedding = null, d.embedding_model = null
    """,
)
# A dream's statement, and which of the fragments it cites are still active.
STORED_STATEMENT = ScopedQuery(
    "host_stored_statement",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    RETURN d.statement AS statement,
           [(d)-[:DREAMED_FROM]->(s:SourceFragment {profile_id: $profile_id})
            WHERE s.status = 'active' | s.id] AS active_fragment_ids
    """,
)
