"""The dream lifecycle: every allowed status change, in one table.

The person's answer and memory's verdict are two things. `promote_candidate` records the
person's yes: the dream is confirmed. It is promoted only when memory took what they confirmed
(`status_after`): a confirmed claim became a fact, or a duplicate merged. A confirmed dream is
not final, so a yes that nothing came of traps no one: the person may promote it again (with
words or claims that say more), reject it or mark it stale; and it becomes promoted by itself
when one of its claims later becomes a fact (`graph/dreams/confirmations.py`).

rejected and promoted are final to the four answers on an open dream. Reinforcing a reinforced
dream is allowed and recorded (a person may confirm interest more than once); a stale dream may
be revived by a person. One door stays open on a promoted dream: a duplicate's merge, until the
person settles it, is kept (`keep_merged`, promoted still) or undone (`undo_merge`: what it
retracted comes back and the dream is rejected); `graph/dreams/merges.py` checks that a merge is
pending.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from graph.dreams.models import DreamStatus, FeedbackDecision, HistoryActor, PromotionStage
from graph.errors import InvalidTransitionError

_P, _R, _S = DreamStatus.PROPOSED, DreamStatus.REINFORCED, DreamStatus.STALE
_X, _C, _D = DreamStatus.REJECTED, DreamStatus.CONFIRMED, DreamStatus.PROMOTED

TRANSITIONS: Mapping[DreamStatus, frozenset[DreamStatus]] = MappingProxyType(
    {
        _P: frozenset({_R, _S, _X, _C, _D}),
        _R: frozenset({_R, _S, _X, _C, _D}),
        _S: frozenset({_R, _X}),
        _C: frozenset({_C, _S, _X, _D}),
        _X: frozenset(),
        _D: frozenset(),
    }
)

# What each answer asks for. promote_candidate asks for confirmed: `status_after` says whether
# memory took it further.
TARGET_OF: Mapping[FeedbackDecision, DreamStatus] = MappingProxyType(
    {
        FeedbackDecision.REINFORCE: _R,
        FeedbackDecision.STALE: _S,
        FeedbackDecision.REJECT: _X,
        FeedbackDecision.PROMOTE_CANDIDATE: _C,
    }
)

# The promotion outcomes by which memory took what the person confirmed.
TAKEN: frozenset[PromotionStage] = frozenset({PromotionStage.PROMOTED, PromotionStage.MERGED})

# The decisions that settle a promoted duplicate's merge, and the status each leaves.
SETTLING: Mapping[FeedbackDecision, DreamStatus] = MappingProxyType(
    {FeedbackDecision.UNDO_MERGE: _X, FeedbackDecision.KEEP_MERGED: _D}
)


def next_status(dream_id: str, current: DreamStatus, decision: FeedbackDecision) -> DreamStatus:
    """The status a decision leads to, or InvalidTransitionError naming what is allowed."""
    if decision in SETTLING and current is _D:
        return SETTLING[decision]
    target = TARGET_OF.get(decision)
    allowed = TRANSITIONS[current]
    if target is None or target not in allowed:
        decisions = [d.value for d, status in TARGET_OF.items() if status in allowed]
        raise InvalidTransitionError("dream", dream_id, current.value, decision.value, decisions)
    return target


def status_after(outcome: PromotionStage) -> DreamStatus:
    """The status a confirmation leaves: promoted only when memory took it."""
    return _D if outcome in TAKEN else _C


def status_by(
    status: DreamStatus, last_to: DreamStatus | None, last_actor: HistoryActor | None
) -> HistoryActor | None:
    """Who set a dream's status: the actor of the last entry of its history when that entry set
    it; else an earlier version did without recording it (unknown). None while it is proposed,
    as it was made: no change leads back there."""
    if last_actor is not None and last_to is status:
        return last_actor
    return None if status is _P else HistoryActor.UNKNOWN
