"""The profile's words gate: forgetting and every write of words drawn from memories take turns.

Neo4j reads what is committed when it reads. A dream drafted from two memories, checked in its
own transaction that both are still there, can still commit a moment after a `forget` of one of
them decided what to erase: the forget never saw the dream, and the dream quotes what the person
asked to forget. So each transaction that writes words drawn from memories (a cycle's dreams, a
host's dream, a rewording, a verdict on a dream, the recall questions that name memories) and
every forget first takes the write lock of the profile's node, and only then reads what it
checks. Whichever comes second sees all the first one wrote: a forget sees the new dream and
erases it, a dream sees the tombstone and is not written.

One lock per profile, taken only by these short writes; a `remember`, a recall and the searches
of a cycle never take it.
"""

from __future__ import annotations

from typing import Final

from graph.access import ProfileTx
from graph.clock import utcnow
from graph.schema import GRAPH_FORMAT
from graph.scope import ScopedQuery

# Setting a property takes the node's write lock until the transaction ends. MERGE: a profile
# imported without its node still gets one to lock (the unique constraint settles a race).
PASS_WORDS_GATE: Final = ScopedQuery(
    "pass_words_gate",
    """
    MERGE (p:Profile {profile_id: $profile_id})
      ON CREATE SET p.created_at = $now, p.graph_format = $graph_format
    SET p.lock_touched_at = $now
    """,
)
# For a write that must not bring an erased profile's node back (recall signals, which log
# nothing without it): no node, nothing to lock, and nothing that write would store.
PASS_EXISTING_WORDS_GATE: Final = ScopedQuery(
    "pass_existing_words_gate",
    "MATCH (p:Profile {profile_id: $profile_id}) SET p.lock_touched_at = $now",
)


async def pass_words_gate(tx: ProfileTx, *, existing_profile_only: bool = False) -> None:
    """Take the profile's words gate for the rest of `tx`; call it before reading what to check."""
    if existing_profile_only:
        await tx.run(PASS_EXISTING_WORDS_GATE, now=utcnow())
    else:
        await tx.run(PASS_WORDS_GATE, now=utcnow(), graph_format=GRAPH_FORMAT)
