"""Cypher of the memory pipeline. Every query is profile-scoped and checked at import.

A node index on (profile_id, x, ...) serves a query only when it names every one of those
properties, so queries that start from a profile's nodes of one status also say `x IS NOT NULL`
of the index's last property; without it Neo4j scans every profile's nodes of the label
(`tests/graph/test_query_plans.py`).
"""

from __future__ import annotations

from graph.scope import ScopedQuery

FACT_FIELDS = (
    "id: f.id, subject: f.subject, predicate: f.predicate, object: f.object, status: f.status, "
    "truth_score: f.truth_score, valid_from: f.valid_from, valid_to: f.valid_to, "
    "recorded_at: f.recorded_at, superseded_by: f.superseded_by"
)
# Everything but the vector, which only the semantic lane reads (inside Cypher).
CLAIM_FIELDS = "c {.*, embedding: null}"
CLARIFICATION_FIELDS = "q {.id, .question, .claim_id, .fact_id, .status, .created_at}"

# --- fragments ---------------------------------------------------------------------------

FIND_FRAGMENT_BY_KEY = ScopedQuery(
    "find_fragment_by_key",
    """
    CALL () {
        MATCH (f:SourceFragment {profile_id: $profile_id, idempotency_key: $key})
        RETURN f.id AS id, f.content_hash AS content_hash, false AS forgotten
      UNION
        MATCH (t:Forgotten {profile_id: $profile_id, idempotency_key: $key})
        RETURN t.id AS id, null AS content_hash, true AS forgotten
    }
    RETURN id, content_hash, forgotten
    """,
)
# The content check and the write are one round trip: most remembers are new, and a bulk
# import's calls queue behind each other's queries (`graph.group_commit`). A duplicate returns
# the fragment that holds the content, and nothing is written.
CREATE_FRAGMENT_UNLESS_HELD = ScopedQuery(
    "create_fragment_unless_held",
    """
    OPTIONAL MATCH (same:SourceFragment {profile_id: $profile_id, active_hash: $hash})
    OPTIONAL CALL (same) {
        WITH same WHERE same IS NULL
        // Only the first fragment creates the Profile node: a MERGE on every call would take
        // the profile's lock and serialise all of a profile's writes. A race to create it is
        // settled by the unique constraint (the caller retries).
        OPTIONAL MATCH (p:Profile {profile_id: $profile_id})
        CALL (p) {
            WITH p WHERE p IS NULL
            CREATE (:Profile {profile_id: $profile_id, created_at: $now, graph_format: $graph_format})
        }
        CREATE (f:SourceFragment:Recallable {
            profile_id: $profile_id, profile_key: $profile_key, id: $id, text: $text,
            content_hash: $hash, active_hash: $hash, idempotency_key: $key, source: $source,
            authority: $authority, shared: $shared, quality: $quality, labels: $labels, metadata: $metadata,
            status: 'active', created_at: $now, occurred_at: $occurred_at,
            embedding_model: $embedding_model, vector_due: $due_at})
        WITH f
        CALL (f) {
            WITH f WHERE $embedding IS NOT NULL
            CALL db.create.setNodeVectorProperty(f, 'embedding', $embedding)
        }
        RETURN f.id AS created_id
    }
    RETURN coalesce(created_id, same.id) AS id, created_id IS NOT NULL AS created
    """,
)
ACTIVE_FRAGMENTS = ScopedQuery(
    "active_fragments",
    """
    UNWIND $ids AS fragment_id
    MATCH (f:SourceFragment {profile_id: $profile_id, id: fragment_id})
    RETURN f.id AS id, f.status AS status
    """,
)
# Returns what it overwrote too, so that a merge can put the fragment back exactly.
RETRACT_FRAGMENT = ScopedQuery(
    "retract_fragment",
    """
    MATCH (f:SourceFragment {profile_id: $profile_id, id: $id})
    WITH f, f.status = 'retracted' AS already, f.active_hash AS active_hash,
         f.retracted_at AS retracted_at, f.retract_reason AS retract_reason
    SET f.status = 'retracted', f.active_hash = null,
        f.retracted_at = coalesce(f.retracted_at, $now),
        f.retract_reason = coalesce(f.retract_reason, $reason)
    RETURN already, active_hash, retracted_at, retract_reason, f.retract_reason AS reason,
           f.retracted_at AS at
    """,
)
# Claims left with no active support once the fragments `$ids` are retracted or forgotten,
# and the facts they carried; claims in `$skip` are being removed and are left alone. Each
# claim's state before and after is returned, so that a merge can put it back.
CLAIMS_LOSING_SUPPORT = ScopedQuery(
    "claims_losing_support",
    """
    UNWIND $ids AS fragment_id
    MATCH (r:SourceFragment {profile_id: $profile_id, id: fragment_id})
          <-[:SUPPORTED_BY]-(c:Claim {profile_id: $profile_id})
    WITH DISTINCT c WHERE NOT c.id IN $skip
      AND NOT EXISTS {
        MATCH (c)-[:SUPPORTED_BY]->(other:SourceFragment {profile_id: $profile_id})
        WHERE other.status = 'active' AND NOT other.id IN $ids }
    WITH c, c.status AS status_before, c.unsupported AS unsupported_before
    SET c.unsupported = true,
        c.status = CASE WHEN c.status IN ['validated', 'promoted'] THEN 'candidate' ELSE c.status END
    WITH c, status_before, unsupported_before
    OPTIONAL MATCH (f:Fact {profile_id: $profile_id})-[:PROMOTED_FROM]->(c)
    WHERE f.status = 'active'
    SET f.status = 'needs_revalidation'
    RETURN c.id AS claim_id, collect(f.id) AS fact_ids, status_before, unsupported_before,
           c.status AS status_after
    """,
)
# Undoing a fragment's retraction (`graph.memory.retraction.restore_fragment_in`): which fragment
# now holds its words, if another does (it cannot hold them twice), and the retraction's state.
RETRACTED_FRAGMENT = ScopedQuery(
    "retracted_fragment",
    """
    OPTIONAL MATCH (f:SourceFragment {profile_id: $profile_id, id: $id})
    OPTIONAL MATCH (held:SourceFragment {profile_id: $profile_id, active_hash: $active_hash})
    RETURN f.status AS status, f.retract_reason AS reason, held.id AS held_by
    """,
)
RESTORE_FRAGMENT = ScopedQuery(
    "restore_fragment",
    """
    MATCH (f:SourceFragment {profile_id: $profile_id, id: $id})
    SET f.status = 'active', f.active_hash = $active_hash, f.retracted_at = $retracted_at,
        f.retract_reason = $retract_reason
    """,
)
# Each slot of the facts `$ids` locked, as a promotion locks it, before any comes back.
LOCK_FACT_SLOTS = ScopedQuery(
    "lock_fact_slots",
    """
    UNWIND $ids AS fact_id
    MATCH (x:Fact {profile_id: $profile_id, id: fact_id})
    MERGE (s:FactSlot {profile_id: $profile_id, slot: x.slot})
    SET s.locked_at = $now
    """,
)
# The claims a retraction left unsupported, each put back as it was with its facts, when nothing
# has moved since: the claim is as the retraction left it, and each of its facts still waits
# for revalidation, not flagged by new evidence since `$at`, with no other fact in its slot.
RESTORE_SUPPORT = ScopedQuery(
    "restore_support",
    """
    UNWIND $claims AS before
    MATCH (c:Claim {profile_id: $profile_id, id: before.claim_id})
    WHERE c.status = before.status_after AND c.unsupported = true
      AND size(before.fact_ids) = COUNT {
        MATCH (x:Fact {profile_id: $profile_id})-[:PROMOTED_FROM]->(c)
        WHERE x.id IN before.fact_ids AND x.status = 'needs_revalidation'
          AND (x.flagged_at IS NULL OR x.flagged_at <= $at)
          AND NOT EXISTS {
            MATCH (other:Fact {profile_id: $profile_id, slot: x.slot}) WHERE other.status = 'active' } }
    SET c.status = before.status_before, c.unsupported = before.unsupported_before
    WITH c, before
    CALL (c, before) {
        MATCH (x:Fact {profile_id: $profile_id})-[:PROMOTED_FROM]->(c)
        WHERE x.id IN before.fact_ids
        SET x.status = 'active'
    }
    RETURN c.id AS id
    """,
)

# --- claims --------------------------------------------------------------------------------

# A statement already open (not rejected or superseded) is restated rather than duplicated: it
# keeps the best confidences seen, gets the caller's vector if it lacks that model's, and the new
# evidence is linked. Otherwise the claim is created. One round trip either way.
UPSERT_OPEN_CLAIM = ScopedQuery(
    "upsert_open_claim",
    f"""
    OPTIONAL CALL () {{
        MATCH (open:Claim {{profile_id: $profile_id, claim_key: $claim_key}})
        WHERE open.status IN ['candidate', 'validated', 'disputed', 'promoted']
        RETURN open ORDER BY open.created_at DESC LIMIT 1
    }}
    OPTIONAL CALL (open) {{
        WITH open WHERE open IS NULL
        CREATE (new:Claim:Recallable {{profile_id: $profile_id, profile_key: $profile_key, id: $id,
                                       status: 'candidate', verdict: 'insufficient', verifier: '',
                                       created_at: $now}})
        SET new += $fields
        RETURN new
    }}
    WITH coalesce(open, new) AS c
    SET c.evidence = coalesce($fields.evidence, c.evidence),
        c.extract_conf = CASE WHEN c.extract_conf >= $fields.extract_conf THEN c.extract_conf
                              ELSE $fields.extract_conf END,
        c.resolution_conf = CASE WHEN c.resolution_conf >= $fields.resolution_conf THEN c.resolution_conf
                                 ELSE $fields.resolution_conf END
    WITH c
    CALL (c) {{
        WITH c WHERE $embedding IS NOT NULL AND coalesce(c.embedding_model, '') <> $embedding_model
        CALL db.create.setNodeVectorProperty(c, 'embedding', $embedding)
        SET c.embedding_model = $embedding_model, c:Recallable
    }}
    WITH c
    CALL (c) {{
        UNWIND $fragment_ids AS fragment_id
        MATCH (f:SourceFragment {{profile_id: $profile_id, id: fragment_id}})
        MERGE (c)-[:SUPPORTED_BY]->(f)
    }}
    RETURN {CLAIM_FIELDS} AS claim
    """,
)
GET_CLAIM = ScopedQuery(
    "get_claim",
    f"MATCH (c:Claim {{profile_id: $profile_id, id: $id}}) RETURN {CLAIM_FIELDS} AS claim",
)
# A claim restated thousands of times has thousands of supporting fragments: count them all,
# but send only the newest texts to the verifier, so a remember stays cheap as support grows.
# Dream-feedback fragments are never independent evidence.
CLAIM_SUPPORT = ScopedQuery(
    "claim_support",
    """
    MATCH (c:Claim {profile_id: $profile_id, id: $claim_id})
          -[:SUPPORTED_BY]->(f:SourceFragment {profile_id: $profile_id})
    WHERE f.status = 'active'
    WITH f ORDER BY f.created_at DESC
    WITH collect(f) AS support
    RETURN size(support) AS support_count,
           reduce(best = 0.0, x IN support | CASE WHEN x.quality > best THEN x.quality ELSE best END)
               AS best_quality,
           [x IN support[0..$window] | x.text] AS texts
    """,
)
SET_CLAIM_STATE = ScopedQuery(
    "set_claim_state",
    f"""
    MATCH (c:Claim {{profile_id: $profile_id, id: $id}})
    SET c += $fields
    RETURN {CLAIM_FIELDS} AS claim
    """,
)

# --- facts ---------------------------------------------------------------------------------

# Taking the slot's write lock first serialises every promotion into one slot, so two
# concurrent writers cannot both see "no active fact" and both create one.
LOCK_SLOT_ACTIVE_FACTS = ScopedQuery(
    "lock_slot_active_facts",
    f"""
    MERGE (s:FactSlot {{profile_id: $profile_id, slot: $slot}})
    SET s.locked_at = $now
    WITH s
    OPTIONAL MATCH (f:Fact {{profile_id: $profile_id, slot: $slot}})
    WHERE f.status = 'active'
    RETURN CASE WHEN f IS NULL THEN null ELSE {{{FACT_FIELDS}, claim_key: f.claim_key}} END AS fact
    """,
)
SUPERSEDE_FACT = ScopedQuery(
    "supersede_fact",
    """
    MATCH (old:Fact {profile_id: $profile_id, id: $old_id})
    MATCH (new:Fact {profile_id: $profile_id, id: $new_id})
    SET old.status = 'superseded', old.superseded_at = $now, old.superseded_by = new.id,
        old.valid_to = CASE WHEN old.valid_to IS NULL OR old.valid_to > coalesce(new.valid_from, $now)
                            THEN coalesce(new.valid_from, $now) ELSE old.valid_to END
    MERGE (old)-[:SUPERSEDED_BY]->(new)
    WITH old
    OPTIONAL MATCH (old)-[:PROMOTED_FROM]->(oc:Claim {profile_id: $profile_id})
    SET oc.status = 'superseded'
    """,
)
# New evidence contradicts what an active fact rests on: the fact is flagged, not deleted.
FLAG_CONTRADICTED_FACT = ScopedQuery(
    "flag_contradicted_fact",
    """
    MATCH (c:Claim {profile_id: $profile_id, id: $claim_id})
    MATCH (c)<-[:PROMOTED_FROM]-(f:Fact {profile_id: $profile_id})
    WHERE f.status = 'active'
    SET f.status = 'needs_revalidation', f.flagged_at = $now, f.flagged_reason = $reason
    RETURN f.id AS id
    """,
)
# The claim's fact: the one it was promoted to before, when that fact's support was retracted
# and it waits for revalidation (it comes back to life instead of a twin being created beside
# it), else a new one. One round trip either way.
PROMOTE_TO_FACT = ScopedQuery(
    "promote_to_fact",
    f"""
    MATCH (c:Claim {{profile_id: $profile_id, id: $claim_id}})
    OPTIONAL CALL (c) {{
        MATCH (old:Fact {{profile_id: $profile_id, slot: $slot}})-[:PROMOTED_FROM]->(c)
        WHERE old.status = 'needs_revalidation'
        WITH old ORDER BY old.recorded_at DESC LIMIT 1
        SET old.status = 'active', old.truth_score = $truth_score, old.revalidated_at = $now
        RETURN old AS revalidated
    }}
    OPTIONAL CALL (c, revalidated) {{
        WITH c WHERE revalidated IS NULL
        CREATE (new:Fact:Recallable {{profile_id: $profile_id, profile_key: $profile_key, id: $id,
                         subject: c.subject, predicate: c.predicate, object: c.object, slot: $slot,
                         claim_key: c.claim_key,
                         text: c.text, truth_score: $truth_score, valid_from: c.valid_from,
                         valid_to: c.valid_to, status: 'active', recorded_at: $now,
                         embedding: c.embedding, embedding_model: c.embedding_model}})
        CREATE (new)-[:PROMOTED_FROM]->(c)
        RETURN new AS created
    }}
    WITH c, coalesce(revalidated, created) AS f
    SET c.status = 'promoted', c.promoted_at = $now
    RETURN {{{FACT_FIELDS}}} AS fact
    """,
)
UPDATE_FACT_SCORE = ScopedQuery(
    "update_fact_score",
    f"""
    MATCH (f:Fact {{profile_id: $profile_id, id: $id}})
    SET f.truth_score = CASE WHEN $truth_score > f.truth_score THEN $truth_score ELSE f.truth_score END
    RETURN {{{FACT_FIELDS}}} AS fact
    """,
)
RETRACT_FACT = ScopedQuery(
    "retract_fact",
    """
    MATCH (f:Fact {profile_id: $profile_id, id: $id})
    WITH f, f.status = 'retracted' AS already, f.status IN ['active', 'needs_revalidation'] AS current
    SET f.status = 'retracted', f.retracted_at = coalesce(f.retracted_at, $now),
        f.retract_reason = coalesce(f.retract_reason, $reason)
    RETURN already, current, f.slot AS slot
    """,
)
GET_FACT = ScopedQuery(
    "get_fact",
    f"MATCH (f:Fact {{profile_id: $profile_id, id: $id}}) RETURN {{{FACT_FIELDS}}} AS fact",
)
# Retracting the fact that replaced an older one withdraws the replacement as wrong, so the
# older fact is current again: with its own validity (its claim's), while its claim still has
# active evidence and nothing else holds the slot. The replacement edge goes; the retracted
# fact keeps its own record.
REINSTATE_REPLACED_FACT = ScopedQuery(
    "reinstate_replaced_fact",
    f"""
    MATCH (f:Fact {{profile_id: $profile_id}})-[replaced:SUPERSEDED_BY]->
          (:Fact {{profile_id: $profile_id, id: $id}})
    WHERE f.status = 'superseded'
    MATCH (f)-[:PROMOTED_FROM]->(c:Claim {{profile_id: $profile_id}})
    WHERE EXISTS {{
            MATCH (c)-[:SUPPORTED_BY]->(s:SourceFragment {{profile_id: $profile_id}})
            WHERE s.status = 'active'
          }}
      AND NOT EXISTS {{
            MATCH (other:Fact {{profile_id: $profile_id, slot: f.slot}}) WHERE other.status = 'active'
          }}
    WITH f, c, replaced ORDER BY f.recorded_at DESC LIMIT 1
    DELETE replaced
    SET f.status = 'active', f.valid_to = c.valid_to, f.superseded_at = null,
        f.superseded_by = null, f.reinstated_at = $now, f.reinstated_after = $id,
        c.status = 'promoted'
    RETURN {{{FACT_FIELDS}}} AS fact
    """,
)

# --- clarifications ------------------------------------------------------------------------

OPEN_CLARIFICATION = ScopedQuery(
    "open_clarification",
    f"""
    MATCH (c:Claim {{profile_id: $profile_id, id: $claim_id}})
    MATCH (f:Fact {{profile_id: $profile_id, id: $fact_id}})
    MERGE (q:Clarification {{profile_id: $profile_id, claim_id: $claim_id, fact_id: $fact_id,
                             status: 'open'}})
      ON CREATE SET q.id = $id, q.question = $question, q.created_at = $now
    MERGE (q)-[:ABOUT_CLAIM]->(c)
    MERGE (q)-[:ABOUT_FACT]->(f)
    SET c.status = 'disputed'
    RETURN {CLARIFICATION_FIELDS} AS clarification
    """,
)
OPEN_CLARIFICATION_FOR_CLAIM = ScopedQuery(
    "open_clarification_for_claim",
    f"""
    MATCH (:Claim {{profile_id: $profile_id, id: $claim_id}})
          <-[:ABOUT_CLAIM]-(q:Clarification {{profile_id: $profile_id, status: 'open'}})
    RETURN {CLARIFICATION_FIELDS} AS clarification ORDER BY q.created_at DESC LIMIT 1
    """,
)
OPEN_CLARIFICATIONS_ABOUT_FACT = ScopedQuery(
    "open_clarifications_about_fact",
    """
    MATCH (:Fact {profile_id: $profile_id, id: $fact_id})
          <-[:ABOUT_FACT]-(q:Clarification {profile_id: $profile_id, status: 'open'})
    RETURN q.id AS id, q.claim_id AS claim_id ORDER BY q.created_at
    """,
)
RESOLVE_CLARIFICATION = ScopedQuery(
    "resolve_clarification",
    """
    MATCH (q:Clarification {profile_id: $profile_id, id: $id})
    SET q.status = 'resolved', q.resolution = $resolution, q.resolved_at = $now
    """,
)
# --- reflection ----------------------------------------------------------------------------

COUNT_HEALTH = ScopedQuery(
    "count_health",
    """
    CALL { MATCH (f:Fact {profile_id: $profile_id, status: 'needs_revalidation'})
           WHERE f.recorded_at IS NOT NULL RETURN count(f) AS flagged }
    CALL { MATCH (f:Fact {profile_id: $profile_id, status: 'active'})
           WHERE $cutoff IS NOT NULL AND f.recorded_at < $cutoff RETURN count(f) AS aged }
    CALL { MATCH (c:Claim {profile_id: $profile_id, status: 'candidate'})
           WHERE c.created_at IS NOT NULL AND NOT coalesce(c.unsupported, false)
           RETURN count(c) AS candidates }
    CALL { MATCH (c:Claim {profile_id: $profile_id, status: 'disputed'})
           WHERE c.created_at IS NOT NULL AND NOT coalesce(c.unsupported, false) RETURN count(c) AS disputed }
    CALL { MATCH (q:Clarification {profile_id: $profile_id, status: 'open'}) RETURN count(q) AS open }
    RETURN flagged + aged AS stale_facts, candidates AS candidate_claims,
           disputed AS disputed_claims, open AS open_clarifications
    """,
)
STALE_FACTS = ScopedQuery(
    "stale_facts",
    """
    CALL {
        MATCH (f:Fact {profile_id: $profile_id, status: 'needs_revalidation'})
        WHERE f.recorded_at IS NOT NULL
        RETURN f, coalesce(f.flagged_reason, 'a supporting fragment was retracted') AS reason
        ORDER BY f.recorded_at LIMIT $limit
      UNION
        MATCH (f:Fact {profile_id: $profile_id, status: 'active'})
        WHERE $cutoff IS NOT NULL AND f.recorded_at < $cutoff
        RETURN f, 'recorded before ' + toString($cutoff) AS reason
        ORDER BY f.recorded_at LIMIT $limit
    }
    RETURN f.id AS id, f.text AS text, f.status AS status, f.recorded_at AS recorded_at, reason
    ORDER BY recorded_at LIMIT $limit
    """,
)
# A claim whose every supporting fragment was retracted is no open question: the person took
# its evidence back, and listing it would show the withdrawn words again.
CLAIMS_BY_STATUS = ScopedQuery(
    "claims_by_status",
    """
    MATCH (c:Claim {profile_id: $profile_id, status: $status})
    WHERE c.created_at IS NOT NULL AND NOT coalesce(c.unsupported, false)
    RETURN c.id AS id, c.text AS text, c.status AS status, c.verdict AS verdict, c.created_at AS created_at
    ORDER BY c.created_at DESC LIMIT $limit
    """,
)
OPEN_CLARIFICATIONS = ScopedQuery(
    "open_clarifications",
    f"""
    MATCH (q:Clarification {{profile_id: $profile_id, status: 'open'}})
    RETURN {CLARIFICATION_FIELDS} AS clarification
    ORDER BY q.created_at DESC LIMIT $limit
    """,
)
