"""Recall signals: which memories recall returned, how often and to which questions.

`RecallSignals.note` only queues what a recall returned; the queue of each profile is written a
moment later (`FLUSH_AFTER`), every recall queued meanwhile in one transaction, by a task of
its own. So a recall is never slower for it, and never fails for it: a read-only token's recall
queues alike, and a write that fails is logged and dropped (signals are hints, not memories).
Each memory returned gets `recall_count` and `last_recalled_at`; each recall's question, time
and results join the profile's log of its newest `QUESTION_LOG` questions. `reflect_memories`
shows both and the dream finder can read them (`graph/memory/recalled.py`). A clean shutdown
writes what is queued.

A recall noted with a delivery key (the tool layer derives it from what a balancer's retry of the
same request repeats exactly) counts once however often it is delivered within `DELIVERY_WINDOW`,
on one process or several: the first write to claim the key in the graph counts it.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

import anyio
from anyio.abc import TaskGroup

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.recall import signal_queries as q
from graph.recall.models import RecallResult
from graph.words_gate import pass_words_gate

log = logging.getLogger(__name__)

QUESTION_LOG: Final = 200
# Two seconds were tried (each write is a transaction of its own, 6% of the HTTP server's time in
# the bench), with no measurable gain in recall.
FLUSH_AFTER: Final = 0.5
# How long a delivery key is remembered: longer than a balancer waits for an answer before it
# sends the request again (`timeout server 300s` in bench/balancer.py).
DELIVERY_WINDOW: Final = timedelta(minutes=10)


@dataclass(frozen=True)
class Recalled:
    """One recall as the signals keep it."""

    query: str
    at: datetime
    # (kind, id) of each result, best first.
    results: tuple[tuple[str, str], ...]
    # What names this delivery of the request, the same on a retry; None: always counted.
    delivery: str | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(memory_id for _, memory_id in self.results)

    @classmethod
    def of(cls, result: RecallResult, at: datetime, delivery: str | None = None) -> Recalled:
        return cls(result.query, at, tuple((item.kind, item.id) for item in result.results), delivery)


def counted_once(recalls: list[Recalled], claimed: set[str]) -> list[Recalled]:
    """The recalls to count: those without a delivery key, and the first of each key this write
    claimed (a retry to the same process may sit in the same queue)."""
    seen: set[str] = set()
    counted = []
    for recall in recalls:
        if recall.delivery is not None:
            if recall.delivery not in claimed or recall.delivery in seen:
                continue
            seen.add(recall.delivery)
        counted.append(recall)
    return counted


def signal_rows(recalls: list[Recalled]) -> dict[str, object]:
    """The parameters of one write: the questions to log, each memory's added count with the
    position in `at` of the last recall that returned it, and `at`, each recall's time (a time
    per recall rather than per memory returned, since the driver packs a datetime slowly)."""
    times: Counter[tuple[str, str]] = Counter(pair for recall in recalls for pair in recall.results)
    last = {pair: position for position, recall in enumerate(recalls) for pair in recall.results}
    counts: dict[str, list[dict[str, object]]] = {"fact": [], "claim": [], "fragment": []}
    for (kind, memory_id), count in times.items():
        counts[kind].append({"id": memory_id, "times": count, "last": last[(kind, memory_id)]})
    questions = [
        {
            "id": str(uuid.uuid4()),
            "query": recall.query,
            "at": recall.at,
            "memory_ids": [i for _, i in recall.results],
        }
        for recall in recalls
    ]
    return {"questions": questions, "counts": counts, "at": [recall.at for recall in recalls]}


async def _claimed(tx: ProfileTx, recalls: list[Recalled]) -> set[str]:
    """The delivery keys of `recalls` that no write claimed within the window, now claimed."""
    keys = list(dict.fromkeys(recall.delivery for recall in recalls if recall.delivery is not None))
    if not keys:
        return set()
    now = utcnow()
    await tx.run(q.DROP_OLD_DELIVERIES, since=now - DELIVERY_WINDOW)
    rows = await tx.run(q.CLAIM_DELIVERIES, keys=keys, now=now, claim=str(uuid.uuid4()))
    return {str(row["key"]) for row in rows}


async def _write(tx: ProfileTx, recalls: list[Recalled]) -> None:
    # The questions name the memories they returned; a forget of one of them goes first or after.
    await pass_words_gate(tx, existing_profile_only=True)
    counted = counted_once(recalls, await _claimed(tx, recalls))
    if not counted:
        return
    rows = signal_rows(counted)
    await tx.run(q.LOG_QUESTIONS, questions=rows["questions"], keep=QUESTION_LOG)
    await tx.run(q.COUNT_RECALLS, counts=rows["counts"], at=rows["at"])


@dataclass(eq=False)
class _Queue:
    graph: ProfileGraph
    recalls: list[Recalled] = field(default_factory=list)


class RecallSignals:
    """Queues what recalls returned and writes it in the background, per profile."""

    def __init__(self, group: TaskGroup) -> None:
        self._group = group
        self._queues: dict[str, _Queue] = {}
        self._closing = anyio.Event()

    def note(self, graph: ProfileGraph, result: RecallResult, delivery: str | None = None) -> None:
        """Queue a recall's results; returns at once and never raises. A `delivery` key counts
        the recall once however often the same request is delivered within `DELIVERY_WINDOW`."""
        queue = self._queues.get(graph.profile_id)
        if queue is None:
            queue = self._queues[graph.profile_id] = _Queue(graph)
            self._group.start_soon(self._flush, queue)
        queue.recalls.append(Recalled.of(result, utcnow(), delivery))

    async def _flush(self, queue: _Queue) -> None:
        with anyio.move_on_after(FLUSH_AFTER):
            await self._closing.wait()
        # Recalls noted from here on start the next queue of the profile.
        del self._queues[queue.graph.profile_id]
        try:
            await queue.graph.write(_write, queue.recalls)
        except Exception:
            log.warning("recall signals: %d recalls not recorded", len(queue.recalls), exc_info=True)

    def close(self) -> None:
        """Write what is queued now, without waiting out the delay."""
        self._closing.set()


@asynccontextmanager
async def signalling() -> AsyncIterator[RecallSignals]:
    """Recall signals for the block's lifetime; leaving it writes what is queued."""
    async with anyio.create_task_group() as group:
        signals = RecallSignals(group)
        try:
            yield signals
        finally:
            signals.close()
