"""Cypher of forgetting. Every query is profile-scoped and checked at import.

A forgotten node is not edited but replaced: the original is deleted with all its properties
(text, hashes, embedding, anything a later version adds) and a `Forgotten` tombstone with the
same id takes its place, holding only what keeps the graph's history readable.
"""

from __future__ import annotations

from graph.dreams.history_queries import history_entry
from graph.dreams.queries import OPEN_STATUSES
from graph.scope import ScopedQuery

# What each requested id names in this profile (kind null when nothing), and whether it is
# already a tombstone.
IDENTIFY = ScopedQuery(
    "identify_forgettable",
    """
    UNWIND $ids AS item_id
    CALL (item_id) {
        OPTIONAL MATCH (f:SourceFragment {profile_id: $profile_id, id: item_id})
        OPTIONAL MATCH (c:Claim {profile_id: $profile_id, id: item_id})
        OPTIONAL MATCH (x:Fact {profile_id: $profile_id, id: item_id})
        OPTIONAL MATCH (t:Forgotten {profile_id: $profile_id, id: item_id})
        RETURN CASE WHEN f IS NOT NULL THEN 'fragment' WHEN c IS NOT NULL THEN 'claim'
                    WHEN x IS NOT NULL THEN 'fact' ELSE t.kind END AS kind,
               t IS NOT NULL AS already
    }
    RETURN item_id AS id, kind, already
    """,
)
# One step of the cascade: what else holds only the words being forgotten. A claim goes when
# every fragment supporting it goes, and with the statement of a forgotten fact; a fact goes
# with its claim; a dream citing a forgotten memory is erased, and so is the confirmation the
# person gave on it (a fragment quoting that dream).
DEPENDENTS = ScopedQuery(
    "forgetting_dependents",
    """
    CALL () {
        UNWIND $fragments AS fragment_id
        MATCH (f:SourceFragment {profile_id: $profile_id, id: fragment_id})
              <-[:SUPPORTED_BY]-(c:Claim {profile_id: $profile_id})
        WHERE NOT EXISTS {
            MATCH (c)-[:SUPPORTED_BY]->(other:SourceFragment {profile_id: $profile_id})
            WHERE NOT other.id IN $fragments }
        RETURN 'claim' AS kind, c.id AS id
      UNION
        UNWIND $facts AS fact_id
        MATCH (x:Fact {profile_id: $profile_id, id: fact_id})
              -[:PROMOTED_FROM]->(c:Claim {profile_id: $profile_id})
        RETURN 'claim' AS kind, c.id AS id
      UNION
        UNWIND $claims AS claim_id
        MATCH (c:Claim {profile_id: $profile_id, id: claim_id})
              <-[:PROMOTED_FROM]-(x:Fact {profile_id: $profile_id})
        RETURN 'fact' AS kind, x.id AS id
      UNION
        UNWIND $fragments AS memory_id
        MATCH (m:SourceFragment {profile_id: $profile_id, id: memory_id})
              <-[:DREAMED_FROM]-(d:Dream {profile_id: $profile_id})
        RETURN 'dream' AS kind, d.id AS id
      UNION
        UNWIND $facts AS memory_id
        MATCH (m:Fact {profile_id: $profile_id, id: memory_id})
              <-[:DREAMED_FROM]-(d:Dream {profile_id: $profile_id})
        RETURN 'dream' AS kind, d.id AS id
      UNION
        UNWIND $dreams AS dream_id
        MATCH (d:Dream {profile_id: $profile_id, id: dream_id})
              -[:FEEDBACK_EVIDENCE]->(f:SourceFragment {profile_id: $profile_id})
        RETURN 'fragment' AS kind, f.id AS id
    }
    RETURN kind, id
    """,
)
# Fragments that still say what a forgotten claim said, so the person can forget them too.
STILL_SAID_IN = ScopedQuery(
    "still_said_in",
    """
    UNWIND $claims AS claim_id
    MATCH (c:Claim {profile_id: $profile_id, id: claim_id})
          -[:SUPPORTED_BY]->(f:SourceFragment {profile_id: $profile_id})
    WHERE NOT f.id IN $fragments
    RETURN DISTINCT f.id AS id ORDER BY id
    """,
)
# Questions about a forgotten claim or fact quote it: they go. A claim left disputed only by
# such a question is a candidate again.
DROP_CLARIFICATIONS = ScopedQuery(
    "drop_clarifications",
    """
    CALL () {
        UNWIND $ids AS item_id
        MATCH (c:Claim {profile_id: $profile_id, id: item_id})
              <-[:ABOUT_CLAIM]-(q:Clarification {profile_id: $profile_id})
        RETURN q
      UNION
        UNWIND $ids AS item_id
        MATCH (x:Fact {profile_id: $profile_id, id: item_id})
              <-[:ABOUT_FACT]-(q:Clarification {profile_id: $profile_id})
        RETURN q
    }
    WITH q, q.claim_id AS claim_id
    DETACH DELETE q
    WITH DISTINCT claim_id WHERE NOT claim_id IN $ids
    MATCH (c:Claim {profile_id: $profile_id, id: claim_id})
    WHERE c.status = 'disputed' AND NOT EXISTS {
        MATCH (c)<-[:ABOUT_CLAIM]-(o:Clarification {profile_id: $profile_id}) WHERE o.status = 'open' }
    SET c.status = 'candidate'
    RETURN c.id AS id
    """,
)
_FORGOTTEN = """actor: 'memory', reason: $reason,
                evidence_ids: [s IN sources WHERE s.id IN $forgotten | s.id],
                evidence_changes: [s IN sources WHERE s.id IN $forgotten | 'forgotten']"""
# A dream that cited a forgotten memory keeps its place in the history (id, pair, scores, run,
# who wrote it, the decisions taken on it) and loses every text: its statement and its earlier
# words (revisions) too. An open one becomes stale, and its history says which of its memories
# (`$forgotten`) were forgotten.
ERASE_DREAMS = ScopedQuery(
    "erase_dreams",
    f"""
    UNWIND $ids AS dream_id
    MATCH (d:Dream {{profile_id: $profile_id, id: dream_id}})
    CALL (d) {{
        OPTIONAL MATCH (d)-[:HAS_REVISION]->(rv)
        DETACH DELETE rv
    }}
    OPTIONAL MATCH (d)-[:DREAMED_FROM]->(s)
    WITH d, collect(s) AS sources
    OPTIONAL MATCH (d)-[:HAS_FEEDBACK]->(fb)
    WITH d, sources, collect(fb) AS feedback,
         COLLECT {{ MATCH (d)-[:BUILDS_ON]->(e:Dream {{profile_id: $profile_id}}) RETURN e.id }} AS earlier,
         COLLECT {{ MATCH (d)<-[:BUILDS_ON]-(l:Dream {{profile_id: $profile_id}}) RETURN l.id }} AS later,
         d {{.id, .pair_key, .likelihood, .confidence, .generator, .run_id, .created_at, .source_count,
            .status, .kind}} AS kept
    DETACH DELETE d
    CREATE (n:Dream {{profile_id: $profile_id, profile_key: $profile_key, id: kept.id, kind: kept.kind,
                     pair_key: kept.pair_key, likelihood: kept.likelihood, confidence: kept.confidence,
                     generator: kept.generator, run_id: kept.run_id, created_at: kept.created_at,
                     source_count: kept.source_count, hypothesis: $hypothesis, what_if: '',
                     possible_outcome: '', rationale: '', updated_at: $now, stale_reason: $reason,
                     status: CASE WHEN kept.status IN ['proposed', 'reinforced'] THEN 'stale'
                                  ELSE kept.status END}})
    FOREACH (s IN sources | CREATE (n)-[:DREAMED_FROM]->(s))
    FOREACH (fb IN feedback | CREATE (n)-[:HAS_FEEDBACK]->(fb) SET fb.feedback = null)
    FOREACH (open IN CASE WHEN kept.status IN {OPEN_STATUSES} THEN [1] ELSE [] END |
        {history_entry("n", "'stale'", _FORGOTTEN, from_status="kept.status")})
    WITH n, earlier, later
    // By id: a dream this one builds on may be erased (and made anew) in this same query.
    CALL (n, earlier) {{
        UNWIND earlier AS earlier_id
        MATCH (e:Dream {{profile_id: $profile_id, id: earlier_id}})
        MERGE (n)-[:BUILDS_ON]->(e)
    }}
    CALL (n, later) {{
        UNWIND later AS later_id
        MATCH (l:Dream {{profile_id: $profile_id, id: later_id}})
        MERGE (l)-[:BUILDS_ON]->(n)
    }}
    RETURN count(n) AS erased
    """,
)
_TOMBSTONE = """
    UNWIND $ids AS item_id
    MATCH (n:{label} {{profile_id: $profile_id, id: item_id}})
    OPTIONAL MATCH (d:Dream {{profile_id: $profile_id}})-[:DREAMED_FROM]->(n)
    WITH n, collect(d) AS dreams
    OPTIONAL MATCH (older:Fact {{profile_id: $profile_id}})-[:SUPERSEDED_BY]->(n)
    WITH n, dreams, collect(older) AS replaced, n.slot AS slot
    CREATE (t:Forgotten {{profile_id: $profile_id, id: n.id, kind: '{kind}', status: 'forgotten',
                         idempotency_key: n.idempotency_key, forgotten_at: $now, reason: $reason}})
    FOREACH (d IN dreams | CREATE (d)-[:DREAMED_FROM]->(t))
    FOREACH (older IN replaced | CREATE (older)-[:SUPERSEDED_BY]->(t))
    DETACH DELETE n
    RETURN collect(DISTINCT slot) AS slots
"""
FORGET_FRAGMENTS = ScopedQuery("forget_fragments", _TOMBSTONE.format(label="SourceFragment", kind="fragment"))
FORGET_CLAIMS = ScopedQuery("forget_claims", _TOMBSTONE.format(label="Claim", kind="claim"))
FORGET_FACTS = ScopedQuery("forget_facts", _TOMBSTONE.format(label="Fact", kind="fact"))
# A slot (subject and predicate) names what was said: its lock node goes with its last holder.
DROP_EMPTY_SLOTS = ScopedQuery(
    "drop_empty_slots",
    """
    UNWIND $slots AS slot
    MATCH (s:FactSlot {profile_id: $profile_id, slot: slot})
    WHERE NOT EXISTS { MATCH (f:Fact {profile_id: $profile_id, slot: slot}) }
      AND NOT EXISTS { MATCH (c:Claim {profile_id: $profile_id, slot: slot}) }
    DELETE s
    """,
)
# A logged recall question that returned a forgotten memory goes: it was asked about it, and
# often in its words. At most `QUESTION_LOG` per profile (`graph/recall/signals.py`).
DROP_RECALL_QUESTIONS = ScopedQuery(
    "drop_recall_questions",
    """
    MATCH (q:RecallQuestion {profile_id: $profile_id})
    WHERE q.at IS NOT NULL AND any(memory_id IN q.memory_ids WHERE memory_id IN $ids)
    DELETE q
    """,
)
