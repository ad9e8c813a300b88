"""Cypher that writes, counts and finds missing vectors, one query per embedded kind.

The texts are built from the fixed labels in `kinds.STORAGE` (never from input) and, like every
profile query, checked for scope when this module is imported.
"""

from __future__ import annotations

from typing import Final

from graph.embedding.kinds import RECALLABLE, STORAGE, EmbeddedKind
from graph.scope import ScopedQuery


def _set_vectors(label: str, recallable: bool) -> ScopedQuery:
    # Memories stored before semantic recall existed get the label of the shared index here.
    labelled = f", n:{RECALLABLE}" if recallable else ""
    return ScopedQuery(
        f"set_vectors_{label}",
        f"""
        UNWIND $rows AS row
        MATCH (n:{label} {{profile_id: $profile_id, id: row.id}})
        WHERE n.text = row.text
        CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
        SET n.embedding_model = $model{labelled}
        REMOVE n.vector_due, n.vector_claimed_until
        """,
    )


def _mark_due(label: str) -> ScopedQuery:
    # Set in the transaction that stores the node, so the mark is there once the write is
    # acknowledged, for whichever process reads first (`semantic_queries.NEAREST`); the
    # vector's write removes it. The texts go to the writing process's keeper, so that it need
    # not read them again.
    return ScopedQuery(
        f"mark_vector_due_{label}",
        f"""
        UNWIND $ids AS node_id
        MATCH (n:{label} {{profile_id: $profile_id, id: node_id}})
        WHERE (n.embedding_model IS NULL OR n.embedding_model <> $model) AND n.text IS NOT NULL
        SET n.vector_due = $now
        RETURN n.id AS id, n.text AS text
        """,
    )


def _claim_batch(label: str, order_by: str) -> ScopedQuery:
    # Resumable by construction: the cursor walks the kind's (profile_id, order) index from the
    # last position, and a node embedded meanwhile simply fails the filter. Each node free of a
    # live claim is claimed until `$until`, so another process's backfill of the profile passes
    # over it instead of running the model on it too; the vector's write removes the claim, and
    # one left by a process that died lapses. The claim is read again under the node's write
    # lock (the SET/REMOVE pair takes it): two backfills reading one batch at once would both
    # see it free. Its vector is read again there too: the other backfill may have written it,
    # and removed its claim, after this one's filter read the node but before its lock (seen
    # once under load: two memories embedded twice). Claimed or not, every row moves the cursor on.
    return ScopedQuery(
        f"claim_missing_vectors_{label}",
        f"""
        MATCH (n:{label})
        USING INDEX n:{label}(profile_id, {order_by})
        WHERE n.profile_id = $profile_id AND n.{order_by} >= $after
          AND NOT (n.{order_by} = $after AND n.id <= $after_id)
          AND (n.embedding_model IS NULL OR n.embedding_model <> $model) AND n.text IS NOT NULL
        WITH n ORDER BY n.profile_id, n.{order_by}, n.id LIMIT $limit
        SET n.vector_claim_lock = true
        REMOVE n.vector_claim_lock
        WITH n, (n.vector_claimed_until IS NULL OR n.vector_claimed_until < $now)
          AND (n.embedding_model IS NULL OR n.embedding_model <> $model) AS free
        SET n.vector_claimed_until = CASE WHEN free THEN $until ELSE n.vector_claimed_until END
        RETURN n.id AS id, n.text AS text, n.{order_by} AS position, free AS claimed
        """,
    )


def _claimed_elsewhere(label: str, order_by: str) -> ScopedQuery:
    # Whether another process still holds a claim on a node lacking the vector: a backfill that
    # passed over it looks again once the claim would have lapsed.
    return ScopedQuery(
        f"claimed_elsewhere_{label}",
        f"""
        MATCH (n:{label})
        USING INDEX n:{label}(profile_id, {order_by})
        WHERE n.profile_id = $profile_id AND n.{order_by} IS NOT NULL
          AND (n.embedding_model IS NULL OR n.embedding_model <> $model) AND n.text IS NOT NULL
          AND n.vector_claimed_until >= $now
        RETURN n.id AS id LIMIT 1
        """,
    )


def _count_vectors(label: str, order_by: str) -> ScopedQuery:
    # Only nodes with a text count, as only those can be embedded: a dream whose texts were
    # erased by forgetting is no longer owed a vector (it was counted pending for ever).
    return ScopedQuery(
        f"count_vectors_{label}",
        f"""
        CALL {{ MATCH (n:{label}) USING INDEX n:{label}(profile_id, {order_by})
               WHERE n.profile_id = $profile_id AND n.{order_by} IS NOT NULL AND n.text IS NOT NULL
               RETURN count(n) AS total }}
        CALL {{ MATCH (e:{label} {{profile_id: $profile_id, embedding_model: $model}})
               RETURN count(e) AS embedded }}
        RETURN total, embedded
        """,
    )


def _missing_among(label: str) -> ScopedQuery:
    # A node forgotten meanwhile has become a `Forgotten` tombstone and no longer matches.
    return ScopedQuery(
        f"missing_among_{label}",
        f"""
        UNWIND $ids AS node_id
        MATCH (n:{label} {{profile_id: $profile_id, id: node_id}})
        WHERE (n.embedding_model IS NULL OR n.embedding_model <> $model) AND n.text IS NOT NULL
        RETURN n.id AS id, n.text AS text
        """,
    )


SET_VECTORS: Final = {kind: _set_vectors(s.label, s.recallable) for kind, s in STORAGE.items()}
MARK_DUE: Final = {kind: _mark_due(s.label) for kind, s in STORAGE.items() if s.recallable}
MISSING_AMONG: Final = {kind: _missing_among(s.label) for kind, s in STORAGE.items()}
CLAIM_BATCH: Final = {kind: _claim_batch(s.label, s.order_by) for kind, s in STORAGE.items()}
CLAIMED_ELSEWHERE: Final = {kind: _claimed_elsewhere(s.label, s.order_by) for kind, s in STORAGE.items()}
COUNT_VECTORS: Final = {kind: _count_vectors(s.label, s.order_by) for kind, s in STORAGE.items()}

__all__ = [
    "CLAIMED_ELSEWHERE",
    "CLAIM_BATCH",
    "COUNT_VECTORS",
    "MARK_DUE",
    "MISSING_AMONG",
    "SET_VECTORS",
    "EmbeddedKind",
]
