"""Recall signals as memory code reads them: which memories recall returned, how often and
when last, and the questions it was asked. `graph/recall/signals.py` writes them after each
recall; reflect_memories shows them, and the dream finder may read them (`recall_signals`) to
prefer what the person keeps asking about."""

from __future__ import annotations

from graph.access import ProfileTx
from graph.memory.models import RecalledMemory, RecalledQuestion, RecallSignals
from graph.scope import ScopedQuery

# Through the (profile_id, recall_count) index: only the memories ever recalled are read.
MOST_RECALLED = ScopedQuery(
    "most_recalled",
    """
    MATCH (n:Recallable {profile_id: $profile_id})
    WHERE n.recall_count > 0
    WITH n ORDER BY n.recall_count DESC, n.last_recalled_at DESC LIMIT $limit
    RETURN n.id AS id, n.text AS text, n.recall_count AS recall_count,
           n.last_recalled_at AS last_recalled_at,
           CASE WHEN n:Fact THEN 'fact' WHEN n:Claim THEN 'claim' ELSE 'fragment' END AS kind
    """,
)
RECENT_QUESTIONS = ScopedQuery(
    "recent_recall_questions",
    """
    MATCH (q:RecallQuestion {profile_id: $profile_id})
    WHERE q.at IS NOT NULL
    WITH q ORDER BY q.at DESC LIMIT $limit
    RETURN q.query AS query, q.at AS at, q.memory_ids AS memory_ids
    """,
)


async def recall_signals(tx: ProfileTx, limit: int) -> RecallSignals:
    """The `limit` most recalled memories and the `limit` newest questions of the profile.

    The questions are read first. Neo4j's reads see each commit as it lands, even inside one
    transaction, and a question is written in the same transaction as its memories' counts:
    read the other way round, a write landing between the two reads showed its questions
    without their counts (2 of 8 runs of test_recall_signals)."""
    questions = await tx.run(RECENT_QUESTIONS, limit=limit)
    memories = await tx.run(MOST_RECALLED, limit=limit)
    return RecallSignals(
        most_recalled=[RecalledMemory.model_validate(row) for row in memories],
        recent_questions=[RecalledQuestion.model_validate(row) for row in questions],
    )
