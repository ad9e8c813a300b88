"""Cypher fragments both of recall's lanes use on each candidate memory, a node called `node`:
what `known_at` and `valid_at` keep, and what a candidate row carries."""

from __future__ import annotations

from typing import Final

from graph.dreams.queries import CITING_DREAMS

TIME_FILTER: Final = """
    AND ($known_at IS NULL OR coalesce(node.recorded_at, node.created_at) <= $known_at)
    AND ($known_at IS NULL OR node.superseded_at IS NULL OR node.superseded_at > $known_at)
    AND ($valid_at IS NULL OR node.valid_from IS NULL OR node.valid_from <= $valid_at)
    AND ($valid_at IS NULL OR node.valid_to IS NULL OR node.valid_to > $valid_at)
"""
CLARIFICATION_FIELDS: Final = "q {.id, .question, .claim_id, .fact_id, .status, .created_at}"
# Each candidate brings its open clarifications and the open dreams citing it: both are short
# walks along the candidate's own relationships, and carrying them on every candidate spares
# recall a second round of queries once the fusion has chosen. Times as text
# (`graph.rows.time_of` says why).
_FIELDS: Final = (
    ("id", "node.id"),
    ("text", "node.text"),
    ("score", "score"),
    ("status", "node.status"),
    ("created_at", "toString(coalesce(node.recorded_at, node.created_at))"),
    ("occurred_at", "toString(node.occurred_at)"),
    ("quality", "coalesce(node.quality, node.truth_score, node.extract_conf, 0.5)"),
    (
        "clarifications",
        "[(node)<-[:ABOUT_CLAIM|ABOUT_FACT]-(q:Clarification {profile_id: $profile_id, status: 'open'})"
        f" | {CLARIFICATION_FIELDS}]",
    ),
    ("dreams", CITING_DREAMS),
)
# As the columns of a row, and as the entries of a map (for a query that collects candidates).
RESULT_FIELDS: Final = ",\n    ".join(f"{expression} AS {name}" for name, expression in _FIELDS)
RESULT_ENTRIES: Final = ",\n    ".join(f"{name}: {expression}" for name, expression in _FIELDS)
