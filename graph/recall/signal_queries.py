"""Cypher of recall signals (`graph/recall/signals.py`). Every query is profile-scoped and
checked at import; the reads are `graph/memory/recalled.py`'s."""

from __future__ import annotations

from graph.embedding.kinds import STORAGE
from graph.recall.semantic_queries import SEARCHED_KINDS
from graph.scope import ScopedQuery

# Each recall's question and what it returned, then the log cut to the newest `$keep` (`at` is
# named so the (profile_id, at) index serves the cut). Only while the profile exists: a recall
# just after the profile was erased must not leave a node of it behind.
LOG_QUESTIONS = ScopedQuery(
    "log_recall_questions",
    """
    MATCH (:Profile {profile_id: $profile_id})
    UNWIND $questions AS question
    // A memory forgotten since the recall answered is a tombstone now: its question goes unlogged.
    WITH question WHERE NOT EXISTS {
        UNWIND question.memory_ids AS memory_id
        MATCH (t:Forgotten {profile_id: $profile_id, id: memory_id}) }
    CREATE (:RecallQuestion {profile_id: $profile_id, id: question.id, query: question.query,
                             at: question.at, memory_ids: question.memory_ids})
    WITH count(*) AS logged
    MATCH (old:RecallQuestion {profile_id: $profile_id})
    WHERE old.at IS NOT NULL
    WITH old ORDER BY old.at DESC SKIP $keep
    DELETE old
    """,
)
# How often each memory was returned, and when last (`$at` holds the time of each recall written,
# `last` a position in it); by id within its kind (a memory forgotten since matches nothing).
COUNT_RECALLS = ScopedQuery(
    "count_recalls",
    "CALL {"
    + " UNION ALL ".join(
        f"""
        UNWIND $counts.{kind} AS recalled
        MATCH (n:{STORAGE[kind].label} {{profile_id: $profile_id, id: recalled.id}})
        SET n.recall_count = coalesce(n.recall_count, 0) + recalled.times,
            n.last_recalled_at = $at[recalled.last]
        RETURN count(n) AS counted
        """
        for kind in SEARCHED_KINDS
    )
    + "} RETURN sum(counted) AS counted",
)
# Keys past the window (`$since`) mean nothing more; dropped before new ones are claimed, so a
# key found by the claim is one seen within the window (`at` named for the (profile_id, at) index).
DROP_OLD_DELIVERIES = ScopedQuery(
    "drop_old_recall_deliveries",
    """
    MATCH (d:RecallDelivery {profile_id: $profile_id})
    WHERE d.at < $since
    DELETE d
    """,
)
# Each delivery key not yet seen is claimed by this write (`$claim`); a key already there is not.
# MERGE on the unique (profile_id, key) makes another process's write of the same key wait for
# this one and then find it. Only while the profile exists, like the questions.
CLAIM_DELIVERIES = ScopedQuery(
    "claim_recall_deliveries",
    """
    MATCH (:Profile {profile_id: $profile_id})
    UNWIND $keys AS key
    MERGE (d:RecallDelivery {profile_id: $profile_id, key: key})
    ON CREATE SET d.at = $now, d.claim = $claim
    WITH d WHERE d.claim = $claim
    RETURN d.key AS key
    """,
)
