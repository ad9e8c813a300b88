"""The capacity lane's rules: arrivals independent of answers, and the rate it names."""

from __future__ import annotations

import pytest

from bench.capacity import Step, capacity, mix_at
from bench.open_loop import StepTally, arrivals

pytestmark = pytest.mark.unit


def test_arrivals_follow_each_tools_rate_in_time_order() -> None:
    offered = arrivals(mix_at(30.0), 100.0, seed=1)
    counts = {tool: sum(arrival.tool == tool for arrival in offered) for tool in mix_at(30.0)}
    assert 2_800 < counts["recall_memory"] < 3_200
    assert 900 < counts["remember"] < 1_100 and 400 < counts["list_dreams"] < 600
    assert [arrival.at for arrival in offered] == sorted(arrival.at for arrival in offered)
    assert offered == arrivals(mix_at(30.0), 100.0, seed=1) != arrivals(mix_at(30.0), 100.0, seed=2)


def _step(rate: float, recall_seconds: list[float], refused: int = 0) -> Step:
    tally = StepTally()
    for seconds in recall_seconds:
        tally.record("recall_memory", seconds, None)
    for _ in range(refused):
        tally.record("recall_memory", 0.0, "busy")
    return Step(rate, tally, 0.0, 0.0)


def test_capacity_is_the_highest_rate_whose_recall_p95_meets_the_target_without_refusals() -> None:
    fast, slow = [0.05] * 20, [0.05] * 18 + [0.4] * 2
    assert capacity([_step(5, fast), _step(10, fast), _step(20, slow)]) == 10
    assert capacity([_step(5, fast), _step(10, fast, refused=1)]) == 5
    assert capacity([_step(5, slow)]) is None
