"""Cypher fragments both of recall's lanes use on each candidate memory, a node called `node`:
what `known_at` and `valid_at` keep, what a candidate row carries, and the open dreams that
come with it."""

from __future__ import annotations

from typing import Final

from graph.dreams.queries import OPEN_STATUSES
from graph.memory.queries import CLARIFICATION_FIELDS

TIME_FILTER: Final = """
    AND ($known_at IS NULL OR coalesce(node.recorded_at, node.created_at) <= $known_at)
    AND ($known_at IS NULL OR node.superseded_at IS NULL OR node.superseded_at > $known_at)
    AND ($valid_at IS NULL OR node.valid_from IS NULL OR node.valid_from <= $valid_at)
    AND ($valid_at IS NULL OR node.valid_to IS NULL OR node.valid_to > $valid_at)
"""
# What recall shows of an open dream: its hypothesis and every memory it cites.
_RELATED_DREAM_ENTRIES = (
    ".id, .hypothesis, .status, .likelihood, .confidence, source_ids: [(d)-[:DREAMED_FROM]->(s) | s.id]"
)
_RELATED_DREAM_FIELDS = f"d {{{_RELATED_DREAM_ENTRIES}}}"
# Recall as of `$known_at` shows a dream only if it existed then and every memory it cites had
# been recorded by then: otherwise it would quote what was not yet known.
_KNOWN_THEN = (
    "($known_at IS NULL OR (d.created_at <= $known_at AND all(t IN [(d)-[:DREAMED_FROM]->(s) | "
    "coalesce(s.recorded_at, s.created_at)] WHERE t <= $known_at)))"
)
# The open dreams citing a recall candidate `node` (a list expression): recall's searches carry
# it on every candidate, so the dreams of the chosen results need no query of their own.
CITING_DREAMS: Final = (
    f"[(node)<-[:DREAMED_FROM]-(d:Dream {{profile_id: $profile_id}}) WHERE d.status IN {OPEN_STATUSES}"
    f" AND {_KNOWN_THEN} | {_RELATED_DREAM_FIELDS}]"
)
# The `$dream_limit` open dreams whose own text matches `$dream_terms`, best first, with their
# words, as the list `dreams` (a subquery body: recall's lexical search runs it, sparing it a
# query of its own); none when `$dream_terms` is null (the question has no specific word).
DREAMS_MATCHING: Final = f"""
        UNWIND CASE WHEN $dream_terms IS NULL THEN [] ELSE [$dream_terms] END AS terms
        CALL db.index.fulltext.queryNodes('dream_text',
            'profile_key:' + $profile_key + ' AND status:(proposed OR reinforced) AND ' + terms,
            {{limit: $dream_limit}})
        YIELD node, score
        WHERE node.profile_id = $profile_id
        WITH node AS d, score WHERE {_KNOWN_THEN}
        WITH d, score ORDER BY score DESC
        RETURN collect(d {{{_RELATED_DREAM_ENTRIES}, .text}}) AS dreams
"""
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
