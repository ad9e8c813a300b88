"""A monotonic clock a test moves by hand, for code that takes its clock as an argument."""

from __future__ import annotations


class ManualClock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
