"""Manual dreaming cycles started from the review page, run in the background.

A cycle takes seconds; the page starts it, returns at once, and shows its progress on the next
loads. The run itself (status, phases, error) is recorded in the graph by `run_cycle` as for
any cycle; this only keeps what the graph cannot know yet: how far the current one has got.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from graph.dreams.cycle import ProgressFn
from graph.errors import ReverieError
from server.errors import logged_internal_error

log = logging.getLogger(__name__)

CycleStarter = Callable[[ProgressFn], Awaitable[object]]


@dataclass
class CycleProgress:
    step: float = 0
    # Unknown until the cycle reports its first step (it knows how many phases it will run).
    total: float | None = None
    message: str = "starting"
    done: bool = False
    problem: str | None = None


@dataclass
class ManualCycles:
    """The latest manual cycle of each profile, while it runs and until its outcome is seen."""

    _progress: dict[str, CycleProgress] = field(default_factory=dict)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def running(self, profile: str) -> bool:
        current = self._progress.get(profile)
        return current is not None and not current.done

    def start(self, profile: str, cycle: CycleStarter) -> None:
        progress = CycleProgress()
        self._progress[profile] = progress

        async def report(step: float, total: float, message: str) -> None:
            progress.step, progress.total, progress.message = step, total, message

        async def run() -> None:
            try:
                await cycle(report)
            except ReverieError as error:
                progress.problem = str(error)
            except Exception:
                progress.problem = logged_internal_error(f"Manual cycle of {profile!r}")
            finally:
                progress.done = True

        # The task is kept so it is not collected mid-run; it removes itself when done.
        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def look(self, profile: str) -> CycleProgress | None:
        """The profile's current cycle, or the outcome of its last one (shown once)."""
        current = self._progress.get(profile)
        if current is not None and current.done:
            del self._progress[profile]
        return current
