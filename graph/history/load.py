"""Writing a planned import into one profile, the way a bulk load of `remember` goes.

Each piece goes through `graph.dreams.memory_writes.remember`, the path of the tools, so the
memory pipeline and its after-step for confirmed dreams both run. Up to `CONCURRENCY` pieces are
in flight, oldest first: a profile's remembers that wait together commit together
(`graph.group_commit`) and their vectors are embedded and written in batches after the commits
(`graph.embedding.keeper`). Each piece carries an idempotency key, and the keys the profile
already holds are looked up before anything is written: a second import of the same file
writes nothing, an interrupted one continues with what is missing, and a key held with other
words is refused before the first write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.dreams import memory_writes
from graph.embedding.keeper import VectorKeeper
from graph.errors import GraphBusyError, GraphTimeoutError, InvalidInputError, ReverieError
from graph.history import queries as q
from graph.history.exports import NOTHING
from graph.history.pieces import Piece, Plan
from graph.memory.models import RememberResult
from graph.memory.pipeline import DEFAULT_VERIFIER, RememberRequest, content_hash
from graph.memory.records import KeyedFragment

# The bulk bench's 16 concurrent clients: enough waiting remembers that each group commit holds
# many, few enough that memory stays flat.
CONCURRENCY: Final = 16
KEYS_BATCH: Final = 1_000
# A write past its deadline or refused as busy is tried again (its key makes that safe: a write
# that did commit is found by it), twice, after a pause that grows; then the import stops.
ATTEMPTS: Final = 3
PAUSE_S: Final = 2.0
PASSING = (GraphTimeoutError, GraphBusyError)

Advance = Callable[[int], None]


class ImportStopped(ReverieError):
    """The import stopped part-way; what it stored stays, and running it again continues."""

    def __init__(self, stored: int, cause: Exception) -> None:
        super().__init__(
            f"the import stopped after storing {stored} memories ({cause}). What was stored stays: "
            "run the same command again and it continues where it stopped."
        )


@dataclass(frozen=True)
class Pending:
    """What of a plan the profile does not hold yet."""

    todo: tuple[Piece, ...]
    already: int  # pieces whose key the profile holds
    forgotten: int  # of those, pieces the person forgot since: never brought back


@dataclass
class Written:
    created: int = 0
    # Stored before under another key (the same words said twice): `remember` keeps one fragment.
    same_words: int = 0

    @property
    def stored(self) -> int:
        return self.created + self.same_words


async def _held(graph: ProfileGraph, keys: Sequence[str]) -> dict[str, KeyedFragment]:
    held: dict[str, KeyedFragment] = {}
    for start in range(0, len(keys), KEYS_BATCH):
        rows = await graph.read(ProfileTx.run, q.HELD_KEYS, keys=list(keys[start : start + KEYS_BATCH]))
        held.update((str(row["key"]), KeyedFragment.from_row(row)) for row in rows)
    return held


async def pending(graph: ProfileGraph, plan: Plan) -> Pending:
    """The plan's pieces the profile lacks; a key it holds with other words is refused."""
    held = await _held(graph, [piece.key for piece in plan.pieces])
    for piece in plan.pieces:
        keyed = held.get(piece.key)
        if keyed is not None and not keyed.forgotten and keyed.content_hash != content_hash(piece.text):
            raise InvalidInputError(
                f"{piece.source}, message {piece.metadata['message']!r}, was imported into profile "
                f"{graph.profile_id!r} before with other words; give the entry a new id to keep both. "
                + NOTHING
            )
    todo = tuple(piece for piece in plan.pieces if piece.key not in held)
    return Pending(todo, len(held), sum(keyed.forgotten for keyed in held.values()))


async def _remember(graph: ProfileGraph, piece: Piece, vectors: VectorKeeper | None) -> RememberResult:
    request = RememberRequest(
        content=piece.text,
        source=piece.source,
        shared=piece.shared,
        idempotency_key=piece.key,
        metadata=piece.metadata,
        occurred_at=piece.occurred_at,
    )
    for attempt in range(1, ATTEMPTS):
        try:
            return await memory_writes.remember(graph, request, DEFAULT_VERIFIER, vectors)
        except PASSING:
            await anyio.sleep(PAUSE_S * attempt)
    return await memory_writes.remember(graph, request, DEFAULT_VERIFIER, vectors)


async def write_pieces(
    graph: ProfileGraph,
    pieces: Sequence[Piece],
    vectors: VectorKeeper | None,
    advance: Advance | None = None,
    concurrency: int = CONCURRENCY,
) -> Written:
    """Store `pieces` in order, `concurrency` at a time; a failure stops the rest (ImportStopped)."""
    written = Written()
    source = iter(pieces)
    failures: list[Exception] = []

    async def worker() -> None:
        # Taking the next piece and awaiting never interleave within one step of the event
        # loop, so the workers share the iterator safely.
        for piece in source:
            if failures:
                return
            try:
                result = await _remember(graph, piece, vectors)
                written.created += result.fragment.created
                written.same_words += not result.fragment.created
                if advance is not None:
                    advance(1)
            except Exception as error:  # every failure stops the import the same way
                failures.append(error)
                return

    async with anyio.create_task_group() as group:
        for _ in range(concurrency):
            group.start_soon(worker)
    if failures:
        raise ImportStopped(written.stored, failures[0]) from failures[0]
    return written
