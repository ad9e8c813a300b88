"""The dream lifecycle: every allowed status change, in one table.

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

from graph.dreams.models import DreamStatus, FeedbackDecision
from graph.errors import InvalidTransitionError

_P, _R, _S = DreamStatus.PROPOSED, DreamStatus.REINFORCED, DreamStatus.STALE
_X, _D = DreamStatus.REJECTED, DreamStatus.PROMOTED

TRANSITIONS: Mapping[DreamStatus, frozenset[DreamStatus]] = MappingProxyType(
    {
        _P: frozenset({_R, _S, _X, _D}),
        _R: frozenset({_R, _S, _X, _D}),
        _S: frozenset({_R, _X}),
        _X: frozenset(),
        _D: frozenset(),
    }
)

TARGET_OF: Mapping[FeedbackDecision, DreamStatus] = MappingProxyType(
    {
        FeedbackDecision.REINFORCE: _R,
        FeedbackDecision.STALE: _S,
        FeedbackDecision.REJECT: _X,
        FeedbackDecision.PROMOTE_CANDIDATE: _D,
    }
)


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
