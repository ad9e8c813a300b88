"""Bringing stored profiles up to the current graph format, once, at start (and after an import).

Format 2: claim keys and slots are JSON arrays of their parts. Format 1 joined the parts with
'|', so subject "user|likes|jazz" with object "blues" had the key of subject "user" with object
"jazz|likes|blues".
Format 3: a dream is promoted only when memory took the person's confirmation (a claim its
confirming words support became a fact, or a duplicate merged); a confirmation nothing came of
leaves it confirmed. Before, every confirmation marked the dream promoted, so those that made no
fact become confirmed, and the feedback entry that recorded 'promoted' is corrected with them.
Duplicates are left as they are: promoting one always merged.

Each profile runs the steps of every format above its own, in batches through its own scoped
queries, then is marked; new profiles are created at the current format and never need it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.directory import profiles_behind
from graph.dreams.confirmation_queries import backs_a_fact
from graph.memory.claims import claim_keys, subject_key
from graph.rows import Row, count_of
from graph.schema import GRAPH_FORMAT
from graph.scope import ScopedQuery

log = logging.getLogger(__name__)

_BATCH = 1_000

_OLD_CLAIMS = ScopedQuery(
    "format1_claims",
    """
    MATCH (c:Claim {profile_id: $profile_id})
    WHERE NOT c.claim_key STARTS WITH '['
    RETURN c.id AS id, coalesce(c.subject_key, c.subject) AS subject, c.predicate AS predicate,
           c.object AS object, c.polarity AS polarity, c.slot <> c.claim_key AS exclusive
    LIMIT $batch
    """,
)
_SET_CLAIM_KEYS = ScopedQuery(
    "format2_claim_keys",
    """
    UNWIND $rows AS row
    MATCH (c:Claim {profile_id: $profile_id, id: row.id})
    SET c.claim_key = row.claim_key, c.slot = row.slot
    """,
)
_FACT_KEYS = ScopedQuery(
    "format2_fact_keys",
    """
    MATCH (f:Fact {profile_id: $profile_id})-[:PROMOTED_FROM]->(c:Claim {profile_id: $profile_id})
    WHERE NOT f.claim_key STARTS WITH '['
    WITH f, c LIMIT $batch
    SET f.claim_key = c.claim_key, f.slot = c.slot
    RETURN count(f) AS count
    """,
)
# Slot nodes are only lock anchors: the old ones go, and the next promotion merges a new one.
_OLD_SLOTS = ScopedQuery(
    "format1_slots",
    """
    MATCH (s:FactSlot {profile_id: $profile_id})
    WHERE NOT s.slot STARTS WITH '['
    WITH s LIMIT $batch
    DELETE s
    RETURN count(*) AS count
    """,
)
_UNTAKEN_PROMOTIONS = ScopedQuery(
    "format3_confirmed_dreams",
    f"""
    MATCH (d:Dream {{profile_id: $profile_id, status: 'promoted'}})
    WHERE d.created_at IS NOT NULL AND coalesce(d.kind, 'link') <> 'duplicate' AND NOT {backs_a_fact("d")}
    WITH d LIMIT $batch
    SET d.status = 'confirmed'
    WITH d
    CALL (d) {{
        MATCH (d)-[:HAS_FEEDBACK]->(fb:DreamFeedback {{profile_id: $profile_id}})
        WHERE fb.decision = 'promote_candidate' AND fb.to_status = 'promoted'
        SET fb.to_status = 'confirmed'
    }}
    RETURN count(d) AS count
    """,
)
_FORMAT = ScopedQuery(
    "graph_format",
    "MATCH (p:Profile {profile_id: $profile_id}) RETURN coalesce(p.graph_format, 1) AS format",
)
_MARK = ScopedQuery(
    "mark_graph_format",
    "MATCH (p:Profile {profile_id: $profile_id}) SET p.graph_format = $format",
)


@dataclass(frozen=True)
class _OldClaim:
    """A claim keyed in format 1, with the parts its format-2 keys are built from. The polarity
    stays as stored: an old claim is re-keyed, never refused."""

    id: str
    subject: str
    predicate: str
    object: str
    polarity: str
    exclusive: bool

    @classmethod
    def from_row(cls, row: Row) -> _OldClaim:
        """From `_OLD_CLAIMS`."""
        return cls(
            row["id"],
            row["subject"],
            row["predicate"],
            row["object"],
            row["polarity"],
            bool(row["exclusive"]),
        )

    def keyed(self) -> dict[str, str]:
        """The `_SET_CLAIM_KEYS` row of this claim."""
        key, slot = claim_keys(
            subject_key(self.subject), self.predicate, self.object, self.polarity, self.exclusive
        )
        return {"id": self.id, "claim_key": key, "slot": slot}


async def _claims_batch(tx: ProfileTx) -> int:
    claims = [_OldClaim.from_row(row) for row in await tx.run(_OLD_CLAIMS, batch=_BATCH)]
    await tx.run(_SET_CLAIM_KEYS, rows=[claim.keyed() for claim in claims])
    return len(claims)


async def _until_done(graph: ProfileGraph, query: ScopedQuery) -> None:
    while count_of(await graph.write(ProfileTx.one, query, batch=_BATCH)):
        pass


async def _to_format_2(graph: ProfileGraph) -> None:
    while await graph.write(_claims_batch):
        pass
    await _until_done(graph, _FACT_KEYS)
    await _until_done(graph, _OLD_SLOTS)


async def _to_format_3(graph: ProfileGraph) -> None:
    await _until_done(graph, _UNTAKEN_PROMOTIONS)


STEPS = ((2, _to_format_2), (3, _to_format_3))


async def upgrade_profile(graph: ProfileGraph, stored_format: int = 1) -> None:
    """The steps of every format after `stored_format`, then the mark."""
    for graph_format, step in STEPS:
        if stored_format < graph_format:
            await step(graph)
    await graph.write(ProfileTx.run, _MARK, format=GRAPH_FORMAT)


async def upgrade_graph(store: GraphStore) -> None:
    """Every profile behind the current format, one after the other; safe to interrupt and
    to run from two processes (each step only touches what is still in the old format)."""
    for profile_id, stored_format in await profiles_behind(store, GRAPH_FORMAT):
        log.info("upgrading profile %s from graph format %s to %s", profile_id, stored_format, GRAPH_FORMAT)
        await upgrade_profile(store.profile(profile_id), stored_format)


async def upgrade_if_behind(graph: ProfileGraph) -> None:
    """One profile, when it is behind: an import brings the format of the file it came from."""
    row = await graph.read(ProfileTx.single, _FORMAT)
    stored_format = int(row["format"]) if row is not None else GRAPH_FORMAT
    if stored_format < GRAPH_FORMAT:
        await upgrade_profile(graph, stored_format)
