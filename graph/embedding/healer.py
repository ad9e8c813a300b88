"""Vectors left pending by a process that died, embedded in the background by the next server.

A server killed between a `remember` and its vector (a kill -9 during a bulk load left 44% of
2,646 memories without one) used to leave them pending until someone ran `reverie embeddings
backfill`. A server now runs that backfill itself after it starts, for the profiles it serves,
in small batches with a rest after each as long as the batch took, so the model and Neo4j stay
free for recall and remembers about half the time. Passages take turns on the model
(`Embedder`), and a query is never queued behind them. `dreaming_status` shows how far it got.

Several processes serving one profile share the work: each claims its batch before running the
model on it (`store.embed_missing`), so no vector is computed twice, and one that passed over
another's claims looks again once they would have lapsed.

When Neo4j fails, the profile is tried again after a minute; any other failure is logged and
the backfill of that profile stops (the command still writes them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

import anyio

from graph.access import GraphStore, ProfileGraph
from graph.embedding.encoder import Embedder
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import claimed_elsewhere, embed_missing
from graph.errors import DATABASE_FAILURES

log = logging.getLogger(__name__)

HEAL_BATCH: Final = 16
# Seconds of rest per second of work: the backfill takes at most about half of the model's time.
HEAL_REST: Final = 1.0
RETRY_AFTER_S: Final = 60.0
# How often a backfill that passed over another process's claims looks at them again.
CLAIM_POLL_S: Final = 5.0


class HealState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING = "waiting"  # for Neo4j, to try again
    DONE = "done"
    FAILED = "failed"


@dataclass
class HealProgress:
    """One profile's background backfill: where it stands and how many vectors it wrote."""

    state: HealState = HealState.QUEUED
    written: int = 0


class VectorHealer:
    """The background backfill of one server: the profiles it serves, one after another."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._progress: dict[str, HealProgress] = {}

    def progress(self, profile_id: str) -> HealProgress | None:
        return self._progress.get(profile_id)

    async def heal(self, store: GraphStore, profile_ids: Sequence[str]) -> None:
        """Embed every pending memory of these profiles; returns when each is done or failed."""
        for profile_id in profile_ids:
            self._progress[profile_id] = HealProgress()
        for profile_id in profile_ids:
            progress = self._progress[profile_id]
            while progress.state in (HealState.QUEUED, HealState.WAITING):
                await self._heal_one(store.profile(profile_id), progress)
                if progress.state is HealState.WAITING:
                    await anyio.sleep(RETRY_AFTER_S)

    async def _heal_one(self, graph: ProfileGraph, progress: HealProgress) -> None:
        progress.state = HealState.RUNNING

        def count(written: int) -> None:
            progress.written += written

        try:
            await self._embed_all(graph, count)
        except DATABASE_FAILURES as error:
            # Trigger: Neo4j down or past its deadline. Why: the pending vectors are still
            # owed. Outcome: tried again after a while; batches written so far stay written.
            log.warning("background backfill of %s waits for Neo4j: %s", graph.profile_id, error)
            progress.state = HealState.WAITING
            return
        except Exception:
            # Trigger: the model failed. Why: the memories stay findable by their words.
            # Outcome: logged; `reverie embeddings backfill` can still write them.
            log.exception("background backfill of %s failed", graph.profile_id)
            progress.state = HealState.FAILED
            return
        progress.state = HealState.DONE
        if progress.written:
            log.info("background backfill wrote %d vectors of %s", progress.written, graph.profile_id)

    async def _embed_all(self, graph: ProfileGraph, count: Callable[[int], None]) -> None:
        """Every kind, and again while another process holds claims on nodes it passed over (a
        batch in its hands; they are written, or the claims of a process that died lapse)."""
        while True:
            for kind in EmbeddedKind:
                await embed_missing(graph, self.embedder, kind, HEAL_BATCH, on_batch=count, rest=HEAL_REST)
            if not await self._held_elsewhere(graph):
                return
            await anyio.sleep(CLAIM_POLL_S)

    async def _held_elsewhere(self, graph: ProfileGraph) -> bool:
        return any([await claimed_elsewhere(graph, kind, self.embedder.model_id) for kind in EmbeddedKind])
