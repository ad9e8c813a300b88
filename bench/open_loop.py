"""Calls offered at fixed arrival rates, whatever the answers: the latency a person sees at a load.

A closed loop (each client calls again once answered) slows its own offer down as the server
slows, so it measures saturation. Here each tool's calls arrive as a Poisson process of a fixed
rate, drawn from a seed before the step starts, and each call is sent at its time on a client of
a pool, in flight beside however many others are still waiting for their answers. A call still
unanswered `GRACE_S` after the step ends is counted as an error ("no answer"), so an overloaded
rate shows as errors rather than as a step that never ends.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import anyio

from bench.stats import Latency

GRACE_S: Final = 30.0
NO_ANSWER: Final = "no answer within the grace after the step"

# A tool call: None when it succeeded, else the server's message.
Call = Callable[[str, dict[str, Any]], Awaitable[str | None]]


@dataclass(frozen=True)
class Arrival:
    at: float  # seconds after the step began
    tool: str


def arrivals(rates: dict[str, float], seconds: float, seed: int) -> list[Arrival]:
    """Each tool's Poisson arrivals at its rate (calls per second) over `seconds`, in time order."""
    rng = random.Random(seed)
    offered = []
    for tool, rate in rates.items():
        moment = rng.expovariate(rate) if rate > 0 else seconds
        while moment < seconds:
            offered.append(Arrival(moment, tool))
            moment += rng.expovariate(rate)
    return sorted(offered, key=lambda arrival: arrival.at)


@dataclass
class StepTally:
    """Per tool: each answered call's seconds, and the refusals' messages."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)

    def record(self, tool: str, seconds: float, error: str | None) -> None:
        if error is None:
            self.latencies.setdefault(tool, []).append(seconds)
        else:
            self.errors.setdefault(tool, []).append(error)

    def latency(self, tool: str) -> Latency:
        return Latency.of(self.latencies.get(tool, []))

    def error_count(self, tool: str) -> int:
        return len(self.errors.get(tool, []))

    def tools(self) -> list[str]:
        return sorted(set(self.latencies) | set(self.errors))


async def offer(
    schedule: Sequence[Arrival],
    calls: Sequence[Call],
    arguments: Callable[[str], dict[str, Any]],
    seconds: float,
) -> StepTally:
    """Send each arrival at its time on the next of `calls`; wait for the answers (within the grace)."""
    tally = StepTally()
    waiting: Counter[str] = Counter()
    began = time.perf_counter()

    async def one(call: Call, arrival: Arrival, given: dict[str, Any]) -> None:
        waiting[arrival.tool] += 1
        sent = time.perf_counter()
        try:
            error = await call(arrival.tool, given)
        except Exception as failure:  # a dropped connection is an error of the step, not of the bench
            error = f"{type(failure).__name__}: {failure}"[:300]
        waiting[arrival.tool] -= 1
        tally.record(arrival.tool, time.perf_counter() - sent, error)

    with anyio.move_on_after(seconds + GRACE_S):
        async with anyio.create_task_group() as in_flight:
            for index, arrival in enumerate(schedule):
                await anyio.sleep(max(0.0, began + arrival.at - time.perf_counter()))
                in_flight.start_soon(one, calls[index % len(calls)], arrival, arguments(arrival.tool))
    for tool, count in waiting.items():
        for _ in range(count):
            tally.record(tool, 0.0, NO_ANSWER)
    return tally
