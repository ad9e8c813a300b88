"""Cypher of a dream's confirmation (`graph/dreams/confirmations.py`): what the person's
confirming words support in memory now, and the confirmed dreams memory has taken since.
Profile-scoped and checked at import.

The confirming words are the fragments a dream's `FEEDBACK_EVIDENCE` edges name; the claims
they support are the ones read from them, and any the host later rested on them (`remember`
with `supported_by` naming a fragment). A dream's confirmation became memory when one of those
claims became a fact (`PROMOTED_FROM`), whatever that fact's status is now.
"""

from __future__ import annotations

from graph.dreams.history_queries import history_entry
from graph.scope import ScopedQuery

_BECAME_FACT = """actor: $actor, reason: 'what the person confirmed became a fact', evidence_ids: facts,
                  evidence_changes: [fact IN facts | 'became_fact']"""


def backs_a_fact(dream: str, claim_filter: str = "true") -> str:
    """Cypher: the confirming words of dream `dream` support a claim (one that passes
    `claim_filter`, on `c`) that became a fact."""
    return f"""EXISTS {{
        MATCH ({dream})-[:FEEDBACK_EVIDENCE]->(:SourceFragment {{profile_id: $profile_id}})
              <-[:SUPPORTED_BY]-(c:Claim {{profile_id: $profile_id}})
              <-[:PROMOTED_FROM]-(:Fact {{profile_id: $profile_id}})
        WHERE {claim_filter}
    }}"""


# Each claim the confirming words support, oldest first, with the fact it became (the newest,
# if it became one more than once) and the question open about it, if any.
DREAM_CONFIRMATION = ScopedQuery(
    "dream_confirmation",
    """
    OPTIONAL MATCH (d:Dream {profile_id: $profile_id, id: $id})
                   -[:FEEDBACK_EVIDENCE]->(f:SourceFragment {profile_id: $profile_id})
    WITH f ORDER BY f.created_at
    WITH [x IN collect(f) | x.id] AS fragment_ids
    CALL (fragment_ids) {
        UNWIND fragment_ids AS fragment_id
        MATCH (:SourceFragment {profile_id: $profile_id, id: fragment_id})
              <-[:SUPPORTED_BY]-(c:Claim {profile_id: $profile_id})
        WITH DISTINCT c ORDER BY c.created_at
        RETURN collect(c {
            .id, .text, .status, .predicate, .verdict, .verification_reason, .failed_gates,
            fact_id: head(COLLECT {
                MATCH (x:Fact {profile_id: $profile_id})-[:PROMOTED_FROM]->(c)
                RETURN x.id ORDER BY x.recorded_at DESC
            }),
            question: head(COLLECT {
                MATCH (c)<-[:ABOUT_CLAIM]-(q:Clarification {profile_id: $profile_id, status: 'open'})
                RETURN q.question
            })
        }) AS claims
    }
    RETURN fragment_ids, claims
    """,
)
# Confirmed dreams whose confirmation became memory, through one of `$claim_ids` (null: any).
# The status index serves it: confirmed dreams are few, each one the person's own answer.
CONFIRMED_NOW_MEMORY = ScopedQuery(
    "confirmed_now_memory",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id, status: 'confirmed'}})
    WHERE d.created_at IS NOT NULL AND {backs_a_fact("d", "$claim_ids IS NULL OR c.id IN $claim_ids")}
    RETURN d.id AS id LIMIT $batch
    """,
)
# Writing a property first locks each dream, so an answer the person gives meanwhile is applied
# before or after, never lost: a dream no longer confirmed once locked is left as it is. Its
# history names who moved it (`$actor`) and the facts its confirmation became.
PROMOTE_CONFIRMED = ScopedQuery(
    "promote_confirmed",
    f"""
    UNWIND $ids AS dream_id
    MATCH (d:Dream {{profile_id: $profile_id, id: dream_id}})
    SET d.lock_touched_at = $now
    WITH d WHERE d.status = 'confirmed'
    WITH d, COLLECT {{
        MATCH (d)-[:FEEDBACK_EVIDENCE]->(:SourceFragment {{profile_id: $profile_id}})
              <-[:SUPPORTED_BY]-(:Claim {{profile_id: $profile_id}})
              <-[:PROMOTED_FROM]-(x:Fact {{profile_id: $profile_id}})
        RETURN DISTINCT x.id
    }} AS facts
    {history_entry("d", "'promoted'", _BECAME_FACT)}
    SET d.status = 'promoted', d.updated_at = $now
    RETURN d.id AS id
    """,
)
