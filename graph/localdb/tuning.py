"""How a managed Neo4j trades the work of warming up against its speed once warm.

A service (a desktop's or a server's Neo4j) runs for hours: the JVM's optimising compiler (C2)
and Cypher's replanning as the statistics move pay for themselves there. An instance that lives
minutes and runs many different queries a few times each (a test run's) never gets that work
back: on the suite's graph tests, C2's compilations were about a third of Neo4j's CPU, and its
statistics, which move every second, had it replan about 600 queries a run.
"""

from __future__ import annotations

import os
from enum import StrEnum

TUNING_VARIABLE = "REVERIE_NEO4J_TUNING"


class Neo4jTuning(StrEnum):
    SERVICE = "service"
    SHORT_LIVED = "short-lived"

    @classmethod
    def from_environment(cls) -> Neo4jTuning:
        """REVERIE_NEO4J_TUNING, `service` when unset. Raises ValueError naming the choices."""
        value = os.environ.get(TUNING_VARIABLE, cls.SERVICE.value).strip().lower()
        try:
            return cls(value)
        except ValueError:
            choices = ", ".join(tuning.value for tuning in cls)
            raise ValueError(f"{TUNING_VARIABLE}={value!r} is not a tuning; give one of {choices}") from None

    def jvm_flags(self) -> tuple[str, ...]:
        # The quick compiler (C1) alone: compiled code somewhat slower, no C2 compilations.
        return ("-XX:TieredStopAtLevel=1",) if self is Neo4jTuning.SHORT_LIVED else ()

    def settings(self) -> tuple[str, ...]:
        # A plan kept for an hour however the statistics move (Neo4j's default: 10 s).
        return ("dbms.cypher.min_replan_interval=1h",) if self is Neo4jTuning.SHORT_LIVED else ()
