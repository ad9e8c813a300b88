"""Cypher of the re-evaluation phase: the open dreams in batches, and what their sources now say
applied back. Profile-scoped and checked at import, like `graph/dreams/queries.py`."""

from __future__ import annotations

from graph.dreams.history_queries import history_entry
from graph.dreams.queries import OPEN_STATUSES
from graph.scope import ScopedQuery

OPEN_DREAMS_BATCH = ScopedQuery(
    "open_dreams_batch",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id}})
    WHERE d.status IN {OPEN_STATUSES} AND d.id > $after
    WITH d ORDER BY d.id LIMIT $batch
    OPTIONAL MATCH (d)-[:DREAMED_FROM]->(s)
    RETURN d.id AS id, d.status AS status, d.source_count AS source_count,
           [x IN collect(s) | {{id: x.id, status: x.status}}] AS sources
    """,
)
_REEVALUATED = """actor: 're_evaluation', reason: update.history, evidence_ids: update.evidence_ids,
                 evidence_changes: update.evidence_changes"""
# A dream whose status changes gets an entry in its history saying why (`update.history`), with
# the sources that moved it; one re-evaluation left as it was only notes when it was evaluated.
APPLY_EVALUATIONS = ScopedQuery(
    "apply_evaluations",
    f"""
    UNWIND $updates AS update
    MATCH (d:Dream {{profile_id: $profile_id, id: update.id}})
    CALL (d, update) {{
        WITH d, update WHERE update.status <> d.status
        {history_entry("d", "update.status", _REEVALUATED)}
    }}
    SET d.updated_at = CASE WHEN update.status <> d.status THEN $now ELSE d.updated_at END,
        d.status = update.status, d.last_evaluated_at = $now,
        d.stale_reason = coalesce(update.reason, d.stale_reason)
    """,
)
