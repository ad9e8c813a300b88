"""Cypher of dreams and dreaming runs. Every query is profile-scoped and checked at import.

A node index on (profile_id, x, ...) serves a query only when it names every one of those
properties, so queries that start from a profile's nodes of one status also say `x IS NOT NULL`
of the index's last property; without it Neo4j scans every profile's nodes of the label
(`tests/graph/test_query_plans.py`).
"""

from __future__ import annotations

from graph.dreams.history_queries import HISTORY_FIELDS, history_entry
from graph.scope import ScopedQuery

OPEN_STATUSES = "['proposed', 'reinforced']"


# --- candidate pairs for the dream phase ---------------------------------------------------

# A memory's kind (`MemoryKind`) from its label: a fact or a fragment.
MEMORY_KIND = "CASE WHEN m:Fact THEN 'fact' ELSE 'fragment' END AS kind"
# Times as text: a cycle reads hundreds of memories (`graph.rows.time_of` says why).
MEMORY_FIELDS = (
    "m.id AS id, m.text AS text, coalesce(m.quality, m.truth_score, 0.5) AS quality, "
    "toString(coalesce(m.recorded_at, m.created_at)) AS created_at, "
    "toString(coalesce(m.occurred_at, m.valid_from, m.recorded_at, m.created_at)) AS occurred_at, "
    "m.shared AS shared"
)

# Seeds: the newest fragments and facts, plus a few older fragments after each of
# `$window_starts`, points spread over the profile's life that move every cycle, so cycles
# without new memories still explore other corners. Ordering by every property of the composite
# index lets Neo4j read the index in order and stop after LIMIT rows, instead of sorting the
# whole profile. Dream-feedback fragments ($feedback_label) are never dreamed about.
SEED_MEMORIES = ScopedQuery(
    "seed_memories",
    f"""
    CALL () {{
        MATCH (m:SourceFragment)
        USING INDEX m:SourceFragment(profile_id, created_at)
        WHERE m.profile_id = $profile_id AND m.created_at IS NOT NULL AND m.status = 'active'
          AND NOT $feedback_label IN coalesce(m.labels, [])
        WITH m ORDER BY m.profile_id DESC, m.created_at DESC LIMIT $recent
        RETURN 'fragment' AS kind, m
      UNION
        MATCH (m:Fact)
        WHERE m.profile_id = $profile_id AND m.status = 'active' AND m.recorded_at IS NOT NULL
        WITH m ORDER BY m.profile_id DESC, m.status DESC, m.recorded_at DESC LIMIT $recent
        RETURN 'fact' AS kind, m
      UNION
        UNWIND $window_starts AS window_start
        CALL (window_start) {{
            MATCH (m:SourceFragment)
            USING INDEX m:SourceFragment(profile_id, created_at)
            WHERE m.profile_id = $profile_id AND m.created_at >= window_start AND m.status = 'active'
              AND NOT $feedback_label IN coalesce(m.labels, [])
            WITH m ORDER BY m.profile_id, m.created_at LIMIT $per_window
            RETURN m
        }}
        RETURN 'fragment' AS kind, m
    }}
    RETURN kind, {MEMORY_FIELDS}
    """,
)
RELATED_MEMORIES = ScopedQuery(
    "related_memories",
    """
    UNWIND $seeds AS seed
    CALL (seed) {
        CALL db.index.fulltext.queryNodes($index,
            'profile_key:' + $profile_key + ' AND status:active AND ' + seed.terms, {limit: $per_seed})
        YIELD node, score
        WHERE node.profile_id = $profile_id AND node.id <> seed.id
          AND NOT $feedback_label IN coalesce(node.labels, [])
        RETURN node AS m
    }
    RETURN seed.id AS seed_id, """
    + MEMORY_KIND
    + ", "
    + MEMORY_FIELDS
    + """
    """,
)

# How many live fragments and facts of the profile have a vector of the running model, up to `$cap`.
PROFILE_VECTOR_COUNT = ScopedQuery(
    "profile_vector_count",
    """
    CALL () {
        MATCH (m:SourceFragment {profile_id: $profile_id, embedding_model: $model})
        WITH m LIMIT $cap RETURN count(m) AS fragments
    }
    CALL () {
        MATCH (m:Fact {profile_id: $profile_id, embedding_model: $model})
        WITH m LIMIT $cap RETURN count(m) AS facts
    }
    RETURN fragments + facts AS count
    """,
)
# Every live fragment and fact of the profile with a vector of the running model, up to
# `$cap`, through the (profile_id, embedding_model) indexes: a profile this small is compared
# whole, in the process, so no other profile's vectors can crowd its neighbourhoods.
PROFILE_VECTORS = ScopedQuery(
    "profile_vectors",
    f"""
    CALL () {{
        MATCH (m:SourceFragment {{profile_id: $profile_id, embedding_model: $model}})
        WHERE m.status = 'active' AND NOT $feedback_label IN coalesce(m.labels, [])
        RETURN 'fragment' AS kind, m LIMIT $cap
      UNION ALL
        MATCH (m:Fact {{profile_id: $profile_id, embedding_model: $model}})
        WHERE m.status = 'active'
        RETURN 'fact' AS kind, m LIMIT $cap
    }}
    RETURN kind, m.embedding AS embedding, {MEMORY_FIELDS}
    LIMIT $cap
    """,
)
# The memories named by `$fragments` and `$facts` (ids of each kind), as `member`.
_MEMBERS = """
    CALL () {
        UNWIND $fragments AS member_id
        MATCH (member:SourceFragment {profile_id: $profile_id, id: member_id})
        RETURN member
      UNION
        UNWIND $facts AS member_id
        MATCH (member:Fact {profile_id: $profile_id, id: member_id})
        RETURN member
    }
"""
# The live fragments and facts nearest in meaning to each memory of `$fragments` and
# `$facts`, for a profile too large to compare whole. The vector index filters to this profile,
# the model and live memories while it searches, so every neighbour found is usable but the
# member itself and the person's answers to dreams (`$fetch` leaves room for those).
NEAREST_NEIGHBOURS = ScopedQuery(
    "nearest_neighbours",
    "CYPHER 25 "
    + _MEMBERS
    + """
    WITH member AS x WHERE member.embedding_model = $model
    CALL (x) {
        MATCH (node:Recallable)
            SEARCH node IN (VECTOR INDEX recall_embedding FOR x.embedding
                WHERE node.profile_id = $profile_id AND node.embedding_model = $model
                  AND node.status = 'active'
                LIMIT $fetch) SCORE AS score
        WITH node, score
        WHERE node.id <> x.id AND NOT node:Claim AND NOT $feedback_label IN coalesce(node.labels, [])
        RETURN node AS m, score ORDER BY score DESC LIMIT $per_member
    }
    RETURN x.id AS member_id, score, """
    + MEMORY_KIND
    + ", "
    + MEMORY_FIELDS
    + """
    """,
)
# Neo4j's cosine score of pairs found by their words, when both have a vector of the running model.
PAIR_SIMILARITY = ScopedQuery(
    "pair_similarity",
    """
    UNWIND $pairs AS pair
    OPTIONAL MATCH (fa:SourceFragment {profile_id: $profile_id, id: pair[0]})
    OPTIONAL MATCH (xa:Fact {profile_id: $profile_id, id: pair[0]})
    OPTIONAL MATCH (fb:SourceFragment {profile_id: $profile_id, id: pair[1]})
    OPTIONAL MATCH (xb:Fact {profile_id: $profile_id, id: pair[1]})
    WITH pair, coalesce(fa, xa) AS a, coalesce(fb, xb) AS b
    WHERE a.embedding_model = $model AND b.embedding_model = $model
    RETURN pair[0] AS first, pair[1] AS second, vector.similarity.cosine(a.embedding, b.embedding) AS score
    """,
)
FACT_EVIDENCE_IDS = ScopedQuery(
    "fact_evidence_ids",
    """
    UNWIND $ids AS fact_id
    MATCH (x:Fact {profile_id: $profile_id, id: fact_id})
    MATCH (x)-[:PROMOTED_FROM]->(c:Claim {profile_id: $profile_id})
    MATCH (c)-[:SUPPORTED_BY]->(s:SourceFragment {profile_id: $profile_id})
    RETURN fact_id AS id, collect(s.id) + collect(DISTINCT c.id) AS linked
    """,
)
# The claims each of `$ids` (fragments) supports: two fragments behind one claim are linked already.
FRAGMENT_CLAIM_IDS = ScopedQuery(
    "fragment_claim_ids",
    """
    UNWIND $ids AS fragment_id
    MATCH (s:SourceFragment {profile_id: $profile_id, id: fragment_id})
          <-[:SUPPORTED_BY]-(c:Claim {profile_id: $profile_id})
    RETURN fragment_id AS id, collect(c.id) AS linked
    """,
)
# Pairs dreamed before in any status, or judged empty by the host (`graph/dreams/host.py`).
DREAMED_PAIRS = ScopedQuery(
    "dreamed_pairs",
    """
    UNWIND $keys AS key
    CALL (key) {
        MATCH (d:Dream {profile_id: $profile_id, pair_key: key})
        RETURN d.id AS id
      UNION
        MATCH (e:EmptyPair {profile_id: $profile_id, pair_key: key})
        RETURN e.id AS id
    }
    RETURN DISTINCT key AS pair_key
    """,
)
# The memories each of `$fragments` and `$facts` was already dreamed together with, in any status.
DREAM_PARTNERS = ScopedQuery(
    "dream_partners",
    _MEMBERS
    + """
    WITH member AS m
    MATCH (m)<-[:DREAMED_FROM]-(d:Dream {profile_id: $profile_id})-[:DREAMED_FROM]->(partner)
    WHERE partner <> m
    RETURN m.id AS id, collect(DISTINCT partner.id) AS linked
    """,
)
# How many cycles the profile has run: each one's window of older seeds starts elsewhere.
RUN_COUNT = ScopedQuery(
    "run_count",
    "MATCH (r:DreamRun {profile_id: $profile_id}) WHERE r.started_at IS NOT NULL RETURN count(r) AS count",
)
CORPUS_SIZE = ScopedQuery(
    "corpus_size",
    "MATCH (m:SourceFragment {profile_id: $profile_id, status: 'active'}) RETURN count(m) AS count",
)
# Document frequency per term, capped: past the cap a word is common and its exact count
# no longer changes how rare it looks.
TERM_FREQUENCY = ScopedQuery(
    "term_frequency",
    """
    UNWIND $terms AS term
    CALL (term) {
        CALL db.index.fulltext.queryNodes('fragment_text',
            'profile_key:' + $profile_key + ' AND status:active AND text:' + term, {limit: $cap})
        YIELD node
        WHERE node.profile_id = $profile_id
        RETURN count(node) AS frequency
    }
    RETURN term, frequency
    """,
)
# --- runs and the per-profile cycle lock ---------------------------------------------------

# Setting a property first takes the profile node's write lock, so two processes that both
# try to start a cycle are serialised here and the second sees the first one's lease.
CLAIM_CYCLE_LOCK = ScopedQuery(
    "claim_cycle_lock",
    """
    MERGE (p:Profile {profile_id: $profile_id})
      ON CREATE SET p.created_at = $now, p.graph_format = $graph_format
    SET p.lock_touched_at = $now
    WITH p
    OPTIONAL MATCH (stuck:DreamRun {profile_id: $profile_id, status: 'running'})
    WHERE stuck.lease_expires_at < $now
    SET stuck.status = 'interrupted', stuck.completed_at = $now, stuck.error = $abandoned
    WITH p, count(stuck) AS interrupted
    RETURN p.cycle_run_id AS holder, p.cycle_lease_expires_at AS lease, interrupted
    """,
)
CREATE_RUN = ScopedQuery(
    "create_run",
    """
    MATCH (p:Profile {profile_id: $profile_id})
    CREATE (r:DreamRun {profile_id: $profile_id, id: $id, trigger: $trigger, run_date: $run_date,
                        status: 'running', started_at: $now, lease_expires_at: $lease, late: $late,
                        scheduled_date: $scheduled_date, phases: '[]'})
    SET p.cycle_run_id = $id, p.cycle_lease_expires_at = $lease
    """,
)
SAVE_RUN_PROGRESS = ScopedQuery(
    "save_run_progress",
    """
    MATCH (r:DreamRun {profile_id: $profile_id, id: $id})
    MATCH (p:Profile {profile_id: $profile_id})
    SET r.phases = $phases, r.lease_expires_at = $lease
    SET p.cycle_lease_expires_at =
        CASE WHEN p.cycle_run_id = $id THEN $lease ELSE p.cycle_lease_expires_at END
    """,
)
RENEW_LEASE = ScopedQuery(
    "renew_lease",
    """
    MATCH (r:DreamRun {profile_id: $profile_id, id: $id})
    WHERE r.status = 'running'
    MATCH (p:Profile {profile_id: $profile_id})
    SET r.lease_expires_at = $lease
    SET p.cycle_lease_expires_at =
        CASE WHEN p.cycle_run_id = $id THEN $lease ELSE p.cycle_lease_expires_at END
    """,
)
RELEASE_CYCLE_LOCK = ScopedQuery(
    "release_cycle_lock",
    """
    MATCH (p:Profile {profile_id: $profile_id})
    SET p.cycle_run_id = null, p.cycle_lease_expires_at = null
    WITH p
    MATCH (r:DreamRun {profile_id: $profile_id, status: 'running'})
    SET r.status = 'interrupted', r.completed_at = $now, r.error = $reason
    RETURN r.id AS id
    """,
)
FINISH_RUN = ScopedQuery(
    "finish_run",
    """
    MATCH (r:DreamRun {profile_id: $profile_id, id: $id})
    MATCH (p:Profile {profile_id: $profile_id})
    SET r.status = $status, r.completed_at = $now, r.phases = $phases, r.error = $error
    SET p.cycle_run_id = CASE WHEN p.cycle_run_id = $id THEN null ELSE p.cycle_run_id END,
        p.cycle_lease_expires_at =
            CASE WHEN p.cycle_run_id IS NULL THEN null ELSE p.cycle_lease_expires_at END
    """,
)
SCHEDULED_RUN_ON = ScopedQuery(
    "scheduled_run_on",
    """
    MATCH (r:DreamRun {profile_id: $profile_id, scheduled_date: $scheduled_date})
    RETURN r.id AS id, r.status AS status
    """,
)
LATEST_RUN = ScopedQuery(
    "latest_run",
    """
    MATCH (r:DreamRun {profile_id: $profile_id})
    WHERE r.started_at IS NOT NULL
    RETURN r {.*} AS run ORDER BY r.started_at DESC LIMIT 1
    """,
)
LATEST_RUN_WRITERS = ScopedQuery(
    "latest_run_writers",
    """
    MATCH (r:DreamRun {profile_id: $profile_id})
    WHERE r.started_at IS NOT NULL
    WITH r ORDER BY r.started_at DESC LIMIT 1
    MATCH (d:Dream {profile_id: $profile_id, run_id: r.id})
    RETURN d.generator AS generator, count(d) AS dreams
    ORDER BY generator
    """,
)
RECENT_RUNS = ScopedQuery(
    "recent_runs",
    """
    MATCH (r:DreamRun {profile_id: $profile_id})
    WHERE r.started_at IS NOT NULL
      AND ($before IS NULL OR r.started_at < $before OR (r.started_at = $before AND r.id < $before_id))
    WITH r ORDER BY r.started_at DESC, r.id DESC LIMIT $limit
    CALL (r) {
        OPTIONAL MATCH (d:Dream {profile_id: $profile_id, run_id: r.id})
        RETURN collect(d.status) AS dream_statuses
    }
    RETURN r {.*} AS run, dream_statuses
    ORDER BY r.started_at DESC, r.id DESC
    """,
)
PROFILE_SETTINGS = ScopedQuery(
    "profile_settings",
    "MATCH (p:Profile {profile_id: $profile_id}) RETURN p {.*} AS profile",
)
SET_PROFILE_SETTINGS = ScopedQuery(
    "set_profile_settings",
    """
    MERGE (p:Profile {profile_id: $profile_id})
      ON CREATE SET p.created_at = datetime(), p.graph_format = $graph_format
    SET p += $settings
    """,
)
# A scheduler's trace (`graph/dreams/watch.py`); MATCH, not MERGE: looking creates no profile.
RECORD_WATCH = ScopedQuery(
    "record_watch",
    """
    MATCH (p:Profile {profile_id: $profile_id})
    SET p.scheduler_seen_at = $now,
        p.lasting_scheduler_seen_at = CASE WHEN $lasting THEN $now ELSE p.lasting_scheduler_seen_at END
    """,
)

# --- reading and reviewing dreams ----------------------------------------------------------

DREAM_COUNTS = ScopedQuery(
    "dream_counts",
    """
    UNWIND $statuses AS status
    CALL (status) {
        MATCH (d:Dream {profile_id: $profile_id, status: status}) WHERE d.created_at IS NOT NULL
        RETURN count(d) AS count
    }
    RETURN status, count
    """,
)
LIST_DREAMS = ScopedQuery(
    "list_dreams",
    """
    MATCH (d:Dream {profile_id: $profile_id})
    WHERE d.created_at IS NOT NULL AND (size($statuses) = 0 OR d.status IN $statuses)
      AND (size($kinds) = 0 OR coalesce(d.kind, 'link') IN $kinds)
      AND ($before IS NULL OR d.created_at < $before OR (d.created_at = $before AND d.id < $before_id))
    RETURN d {.id, .hypothesis, .why, .status, .likelihood, .confidence, .created_at, .run_id,
              kind: coalesce(d.kind, 'link')} AS dream,
           COLLECT {
               MATCH (d)-[:HAS_FEEDBACK]->(fb:DreamFeedback {profile_id: $profile_id})
               RETURN fb {.to_status, actor: coalesce(fb.actor, 'unknown')} ORDER BY fb.at DESC LIMIT 1
           } AS last_change
    ORDER BY d.created_at DESC, d.id DESC LIMIT $limit
    """,
)
GET_DREAM = ScopedQuery(
    "get_dream",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id, id: $id}})
    OPTIONAL MATCH (d)-[:DREAMED_FROM]->(s)
    WITH d, s ORDER BY coalesce(s.occurred_at, s.recorded_at, s.created_at)
    WITH d, collect(s) AS sources
    OPTIONAL MATCH (d)-[:HAS_FEEDBACK]->(fb)
    WITH d, sources, fb ORDER BY fb.at
    WITH d, sources, collect(fb) AS feedback
    OPTIONAL MATCH (d)-[:HAS_REVISION]->(rv)
    WITH d, sources, feedback, rv ORDER BY rv.at
    RETURN d {{.*, kind: coalesce(d.kind, 'link')}} AS dream,
           [s IN sources | {{kind: CASE WHEN s:Fact THEN 'fact' WHEN s:Claim THEN 'claim'
                                       WHEN s:Forgotten THEN 'forgotten' ELSE 'fragment' END,
                            id: s.id, text: coalesce(left(s.text, 200), ''),
                            active: coalesce(s.status = 'active', false),
                            status: coalesce(s.status, 'active'),
                            at: coalesce(s.occurred_at, s.recorded_at, s.created_at)}}] AS sources,
           [x IN feedback | {HISTORY_FIELDS}] AS feedback,
           [x IN collect(rv) | x {{.at, .generator, .hypothesis, .why, .what_if, .possible_outcome,
                                  .statement}}] AS revisions,
           COLLECT {{ MATCH (d)-[:BUILDS_ON]->(e:Dream {{profile_id: $profile_id}}) RETURN e.id }}
           AS builds_on
    """,
)
# Writing a property first locks the dream, so concurrent feedback is applied one at a time.
LOCK_DREAM = ScopedQuery(
    "lock_dream",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    SET d.lock_touched_at = $now
    RETURN d.status AS status, coalesce(d.kind, 'link') AS kind, d.merge_state AS merge_state,
           d.merge_undo AS merge_undo, COLLECT {
               MATCH (d)-[:DREAMED_FROM]->(s:SourceFragment {profile_id: $profile_id})
               WHERE s.status = 'active'
               RETURN {id: s.id, at: toString(coalesce(s.occurred_at, s.created_at)), text: s.text,
                       supports: COUNT { (s)<-[:SUPPORTED_BY]-(:Claim {profile_id: $profile_id}) }}
           } AS fragments,
           COUNT {
               MATCH (d)-[:HAS_FEEDBACK]->(fb:DreamFeedback {profile_id: $profile_id})
               WHERE fb.decision = 'promote_candidate'
           } AS confirmations
    """,
)
APPEND_FEEDBACK = ScopedQuery(
    "append_feedback",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id, id: $id}})
    {history_entry("d", "$to_status", "actor: 'person', decision: $decision, feedback: $feedback")}
    SET d.status = $to_status, d.updated_at = $now
    """,
)
DREAM_EVIDENCE_FRAGMENTS = ScopedQuery(
    "dream_evidence_fragments",
    """
    CALL {
        MATCH (d:Dream {profile_id: $profile_id, id: $id})
        MATCH (d)-[:DREAMED_FROM]->(s:SourceFragment {profile_id: $profile_id})
        WHERE s.status = 'active'
        RETURN s.id AS fragment_id
      UNION
        MATCH (d:Dream {profile_id: $profile_id, id: $id})-[:DREAMED_FROM]->(x:Fact {profile_id: $profile_id})
        MATCH (x)-[:PROMOTED_FROM]->(c:Claim {profile_id: $profile_id})
        MATCH (c)-[:SUPPORTED_BY]->(s:SourceFragment {profile_id: $profile_id})
        WHERE s.status = 'active'
        RETURN s.id AS fragment_id
    }
    RETURN collect(fragment_id) AS ids
    """,
)
LINK_FEEDBACK_FRAGMENT = ScopedQuery(
    "link_feedback_fragment",
    """
    MATCH (d:Dream {profile_id: $profile_id, id: $id})
    MATCH (f:SourceFragment {profile_id: $profile_id, id: $fragment_id})
    MERGE (d)-[:FEEDBACK_EVIDENCE]->(f)
    """,
)

# --- the other kinds: themes, duplicates, contradictions ------------------------------------

# Every live memory of a small profile with its words, for the theme finder's word postings.
PROFILE_MEMORIES = ScopedQuery(
    "profile_memories",
    f"""
    CALL () {{
        MATCH (m:SourceFragment)
        USING INDEX m:SourceFragment(profile_id, status)
        WHERE m.profile_id = $profile_id AND m.status = 'active'
          AND NOT $feedback_label IN coalesce(m.labels, [])
        RETURN 'fragment' AS kind, m LIMIT $cap
      UNION ALL
        MATCH (m:Fact)
        WHERE m.profile_id = $profile_id AND m.status = 'active' AND m.recorded_at IS NOT NULL
        RETURN 'fact' AS kind, m LIMIT $cap
    }}
    RETURN kind, {MEMORY_FIELDS}
    LIMIT $cap
    """,
)
# A block of a profile too large to read whole for the dream phase's words: `$block` live
# fragments from position `$skip` in the order they were stored, through the
# (profile_id, created_at) index, so a night reads a bounded slice however large the profile.
PROFILE_FRAGMENT_BLOCK = ScopedQuery(
    "profile_fragment_block",
    f"""
    MATCH (m:SourceFragment)
    USING INDEX m:SourceFragment(profile_id, created_at)
    WHERE m.profile_id = $profile_id AND m.created_at IS NOT NULL AND m.status = 'active'
      AND NOT $feedback_label IN coalesce(m.labels, [])
    WITH m ORDER BY m.profile_id, m.created_at SKIP $skip LIMIT $block
    RETURN 'fragment' AS kind, {MEMORY_FIELDS}
    """,
)
# The live fragments using each of `$terms` (Lucene-safe words), for terms used by at least
# `$min_holders` and fewer than `$cap` of them: a larger profile's theme threads, from its seeds.
TERM_HOLDERS = ScopedQuery(
    "term_holders",
    f"""
    UNWIND $terms AS term
    CALL (term) {{
        CALL db.index.fulltext.queryNodes('fragment_text',
            'profile_key:' + $profile_key + ' AND status:active AND text:' + term, {{limit: $cap}})
        YIELD node
        WHERE node.profile_id = $profile_id AND NOT $feedback_label IN coalesce(node.labels, [])
        RETURN collect(node) AS holders
    }}
    WITH term, holders WHERE $min_holders <= size(holders) < $cap
    UNWIND holders AS m
    RETURN term, 'fragment' AS kind, {MEMORY_FIELDS}
    """,
)
# The theme dreams already on any of `$topics`, each with its newest source's time.
# What the newest open dreams are about (a link stored before links kept a topic: its rarest
# shared word), so a night does not ask the person about a topic they have not answered yet.
OPEN_DREAM_TOPICS = ScopedQuery(
    "open_dream_topics",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id}})
    WHERE d.status IN {OPEN_STATUSES} AND d.created_at IS NOT NULL
    WITH d ORDER BY d.created_at DESC LIMIT $cap
    RETURN d.topic AS topic, d.shared_terms[0] AS first_term
    """,
)
EARLIER_THEMES = ScopedQuery(
    "earlier_themes",
    """
    MATCH (d:Dream {profile_id: $profile_id})
    WHERE d.topic IN $topics
    OPTIONAL MATCH (d)-[:DREAMED_FROM]->(s)
    WITH d, max(coalesce(s.occurred_at, s.recorded_at, s.created_at)) AS latest
    RETURN d.id AS id, d.topic AS topic, d.status AS status, toString(latest) AS latest,
           toString(d.created_at) AS created_at
    ORDER BY d.created_at DESC
    """,
)
# The newest claims not (yet) memory in a one-value slot that an active fact holds with another
# value, each with its newest supporting fragment, when that was said after everything behind
# the fact: the person may have moved on, and only they can say. Bounded by `$cap` claims.
LATER_CLAIMS_AGAINST_FACTS = ScopedQuery(
    "later_claims_against_facts",
    f"""
    UNWIND ['candidate', 'validated', 'rejected'] AS status
    CALL (status) {{
        MATCH (c:Claim {{profile_id: $profile_id, status: status}})
        WHERE c.created_at IS NOT NULL AND c.predicate IN $predicates
        WITH c ORDER BY c.profile_id, c.status, c.created_at DESC LIMIT $cap
        RETURN c
    }}
    MATCH (x:Fact {{profile_id: $profile_id, slot: c.slot}})
    WHERE x.status = 'active' AND x.claim_key <> c.claim_key
    CALL (c) {{
        MATCH (c)-[:SUPPORTED_BY]->(s:SourceFragment {{profile_id: $profile_id}})
        WHERE s.status = 'active' AND NOT $feedback_label IN coalesce(s.labels, [])
        RETURN s ORDER BY s.occurred_at DESC LIMIT 1
    }}
    CALL (x) {{
        MATCH (x)-[:PROMOTED_FROM]->(:Claim {{profile_id: $profile_id}})
              -[:SUPPORTED_BY]->(h:SourceFragment {{profile_id: $profile_id}})
        RETURN max(h.occurred_at) AS held_since
    }}
    WITH c, x, s AS m, held_since WHERE held_since IS NOT NULL AND m.occurred_at > held_since
    RETURN c.id AS claim_id, c.subject AS subject, c.predicate AS predicate, c.object AS object,
           c.extract_conf AS extract_conf, c.resolution_conf AS resolution_conf,
           x.object AS held, toString(held_since) AS held_since,
           {{id: x.id, text: x.text, quality: coalesce(x.truth_score, 0.5),
             created_at: toString(x.recorded_at), occurred_at: toString(held_since)}} AS fact,
           'fragment' AS kind, {MEMORY_FIELDS}
    """,
)
