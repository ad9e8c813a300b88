"""Contradictions: two memories that cannot both hold now, as a question for the person.

Where claims say it, it is deterministic: a slot that holds one value at a time (where someone
works, a name, a birthday) has an active fact, and a claim with another value was said after
everything behind that fact, yet is not memory (too little support to pass the gates, or judged
weaker). Memory keeps the fact; the person may have moved on. The dream asks, and carries the
later value as its statement: promoting it with the person's words sends that claim, with their
words as new evidence, through the ordinary verification and gates, where a value equally
supported opens a clarification and a stronger one replaces the fact. Rejecting it leaves memory
as it is. Contradictions only text shows (no claims) are left to a model.
"""

from __future__ import annotations

from typing import Final

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.models import DreamDraft, DreamKind, sources_key
from graph.dreams.records import LaterClaim, pair_key_from_row
from graph.dreams.writer import day_of, excerpt
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.memory.models import ClaimInput
from graph.memory.predicates import PREDICATE_RULES, PredicatePolicy

GENERATOR: Final = "contradictions-v1"
# The newest claims of each status looked at per cycle: a bound, whatever the profile's size.
CLAIMS_PER_STATUS: Final = 200
QUOTE_CHARS: Final = 110
ONE_VALUE: Final = sorted(
    p for p, rule in PREDICATE_RULES.items() if rule.policy is PredicatePolicy.SINGLE_CURRENT
)


def _for_whom(subject: str) -> str:
    return "you" if subject.casefold() == "user" else subject


def contradiction_draft(later: LaterClaim) -> DreamDraft:
    relation = later.predicate.replace("_", " ")
    who = _for_whom(later.subject)
    held_until = day_of(later.fact.when())
    said = f'"{excerpt(later.said.text, None, QUOTE_CHARS)}" ({day_of(later.said.when())})'
    statement = ClaimInput(
        subject=later.subject,
        predicate=later.predicate,
        object=later.value,
        extract_conf=later.extract_conf,
        resolution_conf=later.resolution_conf,
        supported_by=[later.said.id],
    )
    return DreamDraft(
        kind=DreamKind.CONTRADICTION,
        hypothesis=f"Memory has '{relation}: {later.held}' for {who} (said up to {held_until}), but later "
        f"came {said}, naming {later.value}: both cannot hold now.",
        why=f"'{relation}' holds one value at a time; the later statement names another.",
        what_if=f"What if '{relation}' is {later.value} for {who} now?",
        possible_outcome=f"Confirmed in your words, '{later.value}' goes through the usual checks "
        f"against '{later.held}' (a tie becomes a question); rejected, memory stays as it is.",
        rationale=f"The fact ({later.held}) is active; the claim ({later.value}, {later.claim_id}) was said "
        f"on {day_of(later.said.when())}, after every statement behind the fact, and is not memory.",
        likelihood=0.5,
        confidence=round(min(later.extract_conf, later.resolution_conf), 3),
        link_score=0.0,
        generator=GENERATOR,
        source_ids=(later.fact.id, later.said.id),
        pair_key=sources_key([later.fact.id, later.said.id]),
        shared_terms=[],
        statement=statement,
    )


async def contradiction_drafts(tx: ProfileTx) -> list[DreamDraft]:
    """A question for each later claim against an active fact, newest first, not asked before."""
    rows = await tx.run(
        q.LATER_CLAIMS_AGAINST_FACTS,
        predicates=ONE_VALUE,
        cap=CLAIMS_PER_STATUS,
        feedback_label=DREAM_FEEDBACK_LABEL,
    )
    found = sorted(map(LaterClaim.from_row, rows), key=lambda later: later.said.when(), reverse=True)
    drafts = list({draft.pair_key: draft for draft in map(contradiction_draft, found)}.values())
    asked = set(map(pair_key_from_row, await tx.run(q.DREAMED_PAIRS, keys=[d.pair_key for d in drafts])))
    return [draft for draft in drafts if draft.pair_key not in asked]
