"""The dream transition table, without a database."""

from __future__ import annotations

import pytest

from graph.dreams.lifecycle import SETTLING, TARGET_OF, TRANSITIONS, next_status, status_after
from graph.dreams.models import DreamStatus, FeedbackDecision, PromotionStage
from graph.errors import InvalidTransitionError

pytestmark = pytest.mark.unit

S = DreamStatus
D = FeedbackDecision


@pytest.mark.parametrize(
    ("current", "decision", "expected"),
    [
        (S.PROPOSED, D.REINFORCE, S.REINFORCED),
        (S.PROPOSED, D.STALE, S.STALE),
        (S.PROPOSED, D.REJECT, S.REJECTED),
        (S.PROPOSED, D.PROMOTE_CANDIDATE, S.CONFIRMED),
        (S.REINFORCED, D.REINFORCE, S.REINFORCED),
        (S.REINFORCED, D.STALE, S.STALE),
        (S.REINFORCED, D.PROMOTE_CANDIDATE, S.CONFIRMED),
        (S.STALE, D.REINFORCE, S.REINFORCED),
        (S.STALE, D.REJECT, S.REJECTED),
        (S.CONFIRMED, D.PROMOTE_CANDIDATE, S.CONFIRMED),
        (S.CONFIRMED, D.REJECT, S.REJECTED),
        (S.CONFIRMED, D.STALE, S.STALE),
    ],
)
def test_allowed_moves(current: DreamStatus, decision: FeedbackDecision, expected: DreamStatus) -> None:
    assert next_status("d1", current, decision) is expected


@pytest.mark.parametrize("final", [S.REJECTED, S.PROMOTED])
@pytest.mark.parametrize("decision", list(TARGET_OF))
def test_final_states_refuse_every_answer_to_an_open_dream(
    final: DreamStatus, decision: FeedbackDecision
) -> None:
    with pytest.raises(InvalidTransitionError, match="final"):
        next_status("d1", final, decision)


def test_only_a_promoted_dream_has_a_merge_to_keep_or_undo() -> None:
    assert next_status("d1", S.PROMOTED, D.KEEP_MERGED) is S.PROMOTED
    assert next_status("d1", S.PROMOTED, D.UNDO_MERGE) is S.REJECTED, "undone: the two were not one memory"
    for current in (S.PROPOSED, S.REINFORCED, S.STALE, S.REJECTED, S.CONFIRMED):
        for decision in SETTLING:
            with pytest.raises(InvalidTransitionError, match=f"'{decision.value}' is not allowed"):
                next_status("d1", current, decision)


def test_a_stale_dream_cannot_be_promoted_or_staled_again() -> None:
    for decision in (D.PROMOTE_CANDIDATE, D.STALE):
        with pytest.raises(InvalidTransitionError, match="allowed: reinforce, reject"):
            next_status("d1", S.STALE, decision)


def test_a_yes_is_promoted_only_when_memory_took_it() -> None:
    assert status_after(PromotionStage.PROMOTED) is S.PROMOTED
    assert status_after(PromotionStage.MERGED) is S.PROMOTED
    assert status_after(PromotionStage.NOT_PROMOTED) is S.CONFIRMED
    assert status_after(PromotionStage.AWAITING_CLAIMS) is S.CONFIRMED
    # Every status a confirmation can leave is one the table allows from an open or confirmed dream.
    for current in (S.PROPOSED, S.REINFORCED, S.CONFIRMED):
        assert {S.CONFIRMED, S.PROMOTED} <= TRANSITIONS[current]


def test_a_confirmed_dream_traps_no_one_but_is_not_reinforced_or_settled() -> None:
    with pytest.raises(InvalidTransitionError, match="allowed: promote_candidate, reject, stale"):
        next_status("d1", S.CONFIRMED, D.REINFORCE)
    for decision in SETTLING:
        with pytest.raises(InvalidTransitionError):
            next_status("d1", S.CONFIRMED, decision)


def test_every_status_has_a_row() -> None:
    assert set(TRANSITIONS) == set(DreamStatus)
