"""Cypher of a dream's history: the entry every status change writes, saying who made it and
why, and how get_dream reads entries back. An entry is a `DreamFeedback` node (the name it had
when only the person's answers were kept), linked by `HAS_FEEDBACK`."""

from __future__ import annotations


def history_entry(dream: str, to_status: str, fields: str, from_status: str | None = None) -> str:
    """Cypher: an entry in dream `dream`'s history for its move to `to_status` (a Cypher
    expression) from `from_status` (by default its status, read before it is set); `fields` say
    who moved it and why (actor, reason, and the memories that did: `evidence_ids` beside
    `evidence_changes`)."""
    return f"""CREATE (fb:DreamFeedback {{profile_id: $profile_id, id: randomUUID(), at: $now,
                              from_status: {from_status or dream + ".status"}, to_status: {to_status},
                              {fields}}})
    CREATE ({dream})-[:HAS_FEEDBACK]->(fb)"""


# An entry of a dream's history `x`, as get_dream shows it. An entry an earlier version wrote
# names no actor: it reads as unknown, never as the person.
HISTORY_FIELDS = """x {.at, .decision, .feedback, .from_status, .to_status, .reason,
       actor: coalesce(x.actor, 'unknown'),
       evidence: [i IN range(0, size(coalesce(x.evidence_ids, [])) - 1) |
                  {memory_id: x.evidence_ids[i], change: x.evidence_changes[i]}]}"""
