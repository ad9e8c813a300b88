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
