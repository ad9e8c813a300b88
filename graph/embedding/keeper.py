"""The meaning vectors of a process's writes, written after the writes commit.

`remember` stores a memory's words and returns as soon as they are findable; the model then
embeds the memory, together with whatever else was queued meanwhile (in one turn on the model),
and the vectors are written in a transaction of their own, beside the profile's grouped
remembers (`graph.group_commit`) rather than inside one of their groups, so the vector index's
insert at its commit does not hold up the remembers queued behind it. Measured on two cores:
at 1,000 memories remember one at a time 65 against 52 per second with the model in the call,
bulk 137 against 111; bulk at 15,000 memories 142 and 144 per second in transactions of their
own against 122 and 127 in the groups, alternating on one machine. (4ddfc63 had put them in the
groups because recall right after such a load looked slower, measured with Neo4j's JIT cold.)

Nothing reads a stale picture because of it: `settled(graph)` waits until the vectors of every
write this process queued for the profile before the call are written, and the dream phase waits
so before it compares vectors. Several processes may serve one Neo4j, and a recall may reach
another process than the remember did: so `remember` marks, in its own transaction, each memory
it leaves to the keeper (`vector_due`, removed when the vector is written), and a recall's vector
search also reads the profile's newest marked memories (at most `DUE_LIMIT`, through an index on
the mark); when it finds any, the recall queues them here, waits for them and searches again
(`graph/recall/search.py`). Whichever process writes a vector first wins; the other finds it
written and skips it. A profile with nothing due pays one index seek inside the vector search.

A model run or a vector write that fails is logged with its traceback and leaves its memories
without vectors: they stay findable by their words, `reverie embeddings status` and
`dreaming_status` count them as pending, and `reverie embeddings backfill` writes them. So does
a process stopped before its queue was written; a clean shutdown writes the queue first. When
Neo4j itself fails (unreachable, past its deadline), the rest of the profile's queue is left
pending at once, rather than each batch waiting out the same failure in turn.

Each profile's queue is written in that profile's own transactions (the profile is the key of
the queue and every write query is scoped), so a node id of another profile matches nothing.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

import anyio
from anyio.abc import TaskGroup

from graph.access import ProfileGraph, ProfileTx
from graph.embedding import queries as q
from graph.embedding.encoder import Embedder, Vector
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import TextVector, write_vectors
from graph.errors import DATABASE_FAILURES
from graph.rows import Row
from graph.scope import ScopedQuery

log = logging.getLogger(__name__)

# Memories embedded and written together at most; more wait for the next batch.
KEEPER_BATCH: Final = 64
# Memories of other processes a recall embeds at most before it searches: a bulk load through
# another process leaves its older memories to that process (they are found by their words).
DUE_LIMIT: Final = 64


@dataclass(frozen=True)
class Unembedded:
    """A node a write stored (or may have stored) without the model's vector."""

    kind: EmbeddedKind
    id: str


@dataclass(frozen=True)
class MissingVector:
    """A node that lacks the model's vector, with the text it holds: read by the write that
    stored it (`mark_due`), or by the keeper itself just before the model runs."""

    node: Unembedded
    text: str

    @classmethod
    def from_row(cls, kind: EmbeddedKind, row: Row) -> MissingVector:
        """From `MISSING_AMONG[kind]` or `MARK_DUE[kind]`."""
        return cls(Unembedded(kind, str(row["id"])), str(row["text"]))


@dataclass(eq=False)
class _Backlog:
    """One profile's queue: `queued` and `finished` count memories ever queued and ever
    written (or given up), so a waiter knows when everything before it is done."""

    graph: ProfileGraph
    waiting: list[Unembedded | MissingVector] = field(default_factory=list)
    queued: int = 0
    finished: int = 0
    progress: anyio.Event = field(default_factory=anyio.Event)


class VectorKeeper:
    """The running model as memory code uses it: query vectors now, passage vectors after commit."""

    def __init__(self, embedder: Embedder, group: TaskGroup) -> None:
        self.embedder = embedder
        self._group = group
        self._backlogs: dict[str, _Backlog] = {}

    def keep(self, graph: ProfileGraph, nodes: Sequence[Unembedded | MissingVector]) -> None:
        """Embed `nodes` (stored by a committed write of `graph`'s profile) in the background.
        Those given with their text are taken as lacking the vector; the others are read first."""
        if not nodes:
            return
        backlog = self._backlogs.get(graph.profile_id)
        if backlog is None:
            backlog = self._backlogs[graph.profile_id] = _Backlog(graph)
            self._group.start_soon(self._drain, backlog)
        backlog.waiting.extend(nodes)
        backlog.queued += len(nodes)

    async def settled(self, graph: ProfileGraph) -> None:
        """Return once the vectors queued for this profile before the call are written."""
        backlog = self._backlogs.get(graph.profile_id)
        if backlog is None:
            return
        target = backlog.queued
        while backlog.finished < target:
            await backlog.progress.wait()

    async def _drain(self, backlog: _Backlog) -> None:
        graph = backlog.graph
        try:
            while backlog.waiting:
                batch, backlog.waiting = backlog.waiting[:KEEPER_BATCH], backlog.waiting[KEEPER_BATCH:]
                try:
                    await self._write_batch(graph, batch)
                except DATABASE_FAILURES as error:
                    # Trigger: Neo4j unreachable, past its deadline or busy. Why: every batch
                    # left would wait out the same failure in turn (minutes, at a shutdown).
                    # Outcome: this batch and the rest are left pending, with one warning.
                    batch, backlog.waiting = batch + backlog.waiting, []
                    _left_pending(graph, len(batch), str(error))
                except Exception:
                    # Trigger: the model or the write failed otherwise. Why: the memories are
                    # stored and findable by their words. Outcome: logged with the traceback,
                    # and this batch is left pending; the next batches are tried.
                    log.exception("vector batch failed for profile %s", graph.profile_id)
                    _left_pending(graph, len(batch), "the model or the write failed")
                backlog.finished += len(batch)
                backlog.progress.set()
                backlog.progress = anyio.Event()
        finally:
            if backlog.waiting:
                _left_pending(graph, len(backlog.waiting), "the server stopped first")
            # Nothing is left to write (or the process is stopping): waiters must not hang.
            backlog.finished = backlog.queued
            backlog.progress.set()
            del self._backlogs[graph.profile_id]

    async def _write_batch(self, graph: ProfileGraph, batch: list[Unembedded | MissingVector]) -> None:
        # A node queued without its text is read now, and skipped when it has the vector already
        # (a restated claim, a fact promoted from a claim that had one). One queued with its text
        # was read by the write that stored it: no read transaction a remember (with the due mark
        # set on create, about 2 ms of Neo4j's CPU and 3 of this process's, docs/benchmarks.md).
        # A node forgotten or reworded since gets no vector of the old text: the write checks it.
        known = [item for item in batch if isinstance(item, MissingVector)]
        unread = [item for item in batch if isinstance(item, Unembedded)]
        missing = known + (await graph.read(_missing_among, self.embedder.model_id, unread) if unread else [])
        if not missing:
            return
        # A fact has its claim's text: each text goes through the model once.
        texts = list(dict.fromkeys(item.text for item in missing))
        by_text = dict(zip(texts, await self.embedder.passages(texts), strict=True))
        await graph.write(_write_all, self.embedder.model_id, missing, by_text)


def _left_pending(graph: ProfileGraph, count: int, reason: str) -> None:
    log.warning(
        "%d memories of profile %s stay without vectors (%s); they are found by their words, and "
        "`reverie embeddings backfill --profile %s` writes their vectors",
        count,
        graph.profile_id,
        reason,
        graph.profile_id,
    )


async def mark_due(
    tx: ProfileTx, model_id: str, nodes: Sequence[Unembedded], now: datetime
) -> list[MissingVector]:
    """Mark those of `nodes` (stored by `tx`) that lack `model_id`'s vector as owed it, for any
    process to write; returns them with their texts, for this process's keeper."""
    return await _each_kind(tx, q.MARK_DUE, model_id, nodes, now=now)


async def _missing_among(tx: ProfileTx, model_id: str, batch: Sequence[Unembedded]) -> list[MissingVector]:
    return await _each_kind(tx, q.MISSING_AMONG, model_id, batch)


async def _each_kind(
    tx: ProfileTx,
    queries: Mapping[EmbeddedKind, ScopedQuery],
    model_id: str,
    nodes: Sequence[Unembedded],
    **params: object,
) -> list[MissingVector]:
    """One of `queries` per kind among `nodes`, with their ids: the nodes it returns."""
    found = []
    for kind in {node.kind for node in nodes}:
        ids = [node.id for node in nodes if node.kind is kind]
        rows = await tx.run(queries[kind], ids=ids, model=model_id, **params)
        found += [MissingVector.from_row(kind, row) for row in rows]
    return found


async def _write_all(
    tx: ProfileTx, model_id: str, missing: list[MissingVector], by_text: dict[str, Vector]
) -> None:
    for kind in EmbeddedKind:
        vectors = [
            TextVector(item.node.id, item.text, by_text[item.text])
            for item in missing
            if item.node.kind is kind
        ]
        await write_vectors(tx, kind, model_id, vectors)


@asynccontextmanager
async def keeping(embedder: Embedder | None) -> AsyncIterator[VectorKeeper | None]:
    """A keeper for the block's lifetime (None when the semantic lane is off). Leaving the block
    waits until every queued vector is written."""
    if embedder is None:
        yield None
        return
    async with anyio.create_task_group() as group:
        yield VectorKeeper(embedder, group)
