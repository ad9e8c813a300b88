"""The cycle's planning and re-evaluation rules, without a database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.dreams.config import MAX_OUTPUTS_LIMIT, DreamingConfig
from graph.dreams.cycle import CycleRequest, Evaluation, OpenDream, evaluate_dream, plan_cycle
from graph.dreams.models import DreamStatus
from graph.errors import InvalidInputError

pytestmark = pytest.mark.unit

LATE_EVENING_UTC = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)


def test_overrides_win_over_the_configuration_and_omitted_ones_keep_it() -> None:
    config = DreamingConfig(reflect_enabled=False, dream_enabled=True, max_outputs=7)
    plan = plan_cycle(CycleRequest(dream_enabled=False), config, LATE_EVENING_UTC)
    assert plan.phases == {"reflect": False, "re_evaluate": True, "dream": False}
    assert plan.max_outputs == 7 and plan.run_id is None
    assert plan_cycle(CycleRequest(max_outputs=2), config, LATE_EVENING_UTC).max_outputs == 2


@pytest.mark.parametrize("max_outputs", [0, MAX_OUTPUTS_LIMIT + 1])
def test_max_outputs_out_of_range_is_refused(max_outputs: int) -> None:
    with pytest.raises(InvalidInputError, match="max_outputs"):
        plan_cycle(CycleRequest(max_outputs=max_outputs), DreamingConfig(), LATE_EVENING_UTC)


def test_the_run_date_is_the_local_date_of_the_profiles_zone() -> None:
    assert (
        plan_cycle(CycleRequest(), DreamingConfig(timezone="UTC"), LATE_EVENING_UTC).run_date == "2026-03-01"
    )
    tokyo = DreamingConfig(timezone="Asia/Tokyo")
    assert plan_cycle(CycleRequest(), tokyo, LATE_EVENING_UTC).run_date == "2026-03-02"
    scheduled = CycleRequest(trigger="scheduled", scheduled_date="2026-02-28")
    assert plan_cycle(scheduled, tokyo, LATE_EVENING_UTC).run_date == "2026-02-28"


def dream(status: DreamStatus, *sources: tuple[str, str], count: int = 2) -> OpenDream:
    return OpenDream("d1", status, count, sources)


def test_a_dream_with_intact_sources_stays_as_it_is_since_only_the_person_reinforces() -> None:
    intact = (("a", "active"), ("b", "active"))
    assert evaluate_dream(dream(DreamStatus.PROPOSED, *intact)) == Evaluation(DreamStatus.PROPOSED)
    assert evaluate_dream(dream(DreamStatus.REINFORCED, *intact)) == Evaluation(DreamStatus.REINFORCED)


def test_one_inactive_or_deleted_source_makes_a_dream_stale_and_says_which() -> None:
    retracted = evaluate_dream(dream(DreamStatus.REINFORCED, ("a", "active"), ("b", "retracted")))
    assert retracted.status is DreamStatus.STALE and "b is retracted" in str(retracted.stale_reason)
    assert retracted.history == "a memory it cites was retracted"
    assert retracted.evidence == (("b", "retracted"),)
    deleted = evaluate_dream(dream(DreamStatus.PROPOSED, ("a", "active")))
    assert deleted.status is DreamStatus.STALE and "1 source(s) deleted" in str(deleted.stale_reason)
    assert deleted.history == "a memory it cites was deleted" and deleted.evidence == ()
    both = evaluate_dream(dream(DreamStatus.PROPOSED, ("a", "superseded"), count=3))
    assert both.history == "3 memories it cites were deleted or superseded"
    assert both.update("d1")["evidence_ids"] == ["a"]


def test_the_row_parser_reads_what_the_batch_query_returns() -> None:
    row = {
        "id": "d9",
        "status": "proposed",
        "source_count": None,
        "sources": [{"id": "x", "status": "active"}],
    }
    assert OpenDream.from_row(row) == OpenDream("d9", DreamStatus.PROPOSED, 0, (("x", "active"),))
