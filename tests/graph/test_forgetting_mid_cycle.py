"""What a person forgets while a cycle runs stays forgotten: in every window of the cycle (between
its phases, while a slow model words the dreams, while the new dreams' vectors are computed) and
when the forget and a dream's write reach Neo4j at the same moment."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from graph.access import ConnectionSettings, ProfileGraph, ProfileTx
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.evidence import CandidatePair
from graph.dreams.generator import LinkGenerator, Proposal
from graph.dreams.store import NewDream, create_dream
from graph.embedding.encoder import Embedder, Vector
from graph.embedding.keeper import VectorKeeper, keeping
from graph.forgetting.cascade import forget
from graph.memory.pipeline import RememberRequest, remember
from graph.scope import ScopedQuery
from graph.words_gate import pass_words_gate
from tests.graph.memory_support import T0, read
from tests.server.support import MEMORIES, database
from tests.server.test_forgetting import WORD_ANYWHERE

pytestmark = pytest.mark.anyio
Hold = Callable[[], Awaitable[None]]

DREAM_VECTORS = ScopedQuery(
    "test_dream_vectors",
    "MATCH (d:Dream {profile_id: $profile_id, id: $id}) RETURN d.embedding IS NOT NULL AS embedded",
)


class Secret:
    """Two memories that share a rare clinic's name, one of them holding a word of its own."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:5]
        self.word = f"zarvexil{tag}"
        self.clinic = f"Quintela{tag}"
        self.private = f"Doctor Almeida at the {self.clinic} clinic confirmed my {self.word} diagnosis."
        self.kept = f"Booked the follow-up at the {self.clinic} clinic with Doctor Almeida for March."


async def remembered(graph: ProfileGraph, secret: Secret, vectors: VectorKeeper) -> tuple[str, str]:
    for day, text in enumerate(MEMORIES):
        await remember(
            graph, RememberRequest(content=text, occurred_at=T0 + timedelta(days=day)), vectors=vectors
        )
    private = await remember(graph, RememberRequest(content=secret.private, occurred_at=T0), vectors=vectors)
    kept = await remember(
        graph, RememberRequest(content=secret.kept, occurred_at=T0 + timedelta(days=40)), vectors=vectors
    )
    await vectors.settled(graph)
    return private.fragment.id, kept.fragment.id


class HoldingGenerator:
    """The deterministic writer, answering only once `hold` returns: a slow model."""

    def __init__(self, hold: Hold) -> None:
        self.hold, self.inner, self.drafted = hold, LinkGenerator(), ""

    @property
    def name(self) -> str:
        return self.inner.name

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal:
        proposal = await self.inner.propose(pairs, max_outputs)
        self.drafted = " ".join(draft.hypothesis for draft in proposal.drafts).lower()
        await self.hold()
        return proposal


class HoldingEmbedder(Embedder):
    """The real model, which once armed waits for `hold` before it embeds a text holding `word`."""

    def __init__(self, real: Embedder, word: str, hold: Hold) -> None:
        self.__dict__.update(real.__dict__)
        self.word, self.hold, self.armed, self.embedded = word, hold, False, ""

    async def passages(self, texts: Sequence[str]) -> list[Vector]:
        if self.armed and any(self.word in text.lower() for text in texts):
            self.embedded = " ".join(texts).lower()
            await self.hold()
        return await super().passages(texts)


@pytest.mark.parametrize(
    "window", ["after reflect", "after re_evaluate", "while the model words", "while embedding"]
)
async def test_a_memory_forgotten_in_any_window_of_a_cycle_leaves_its_words_nowhere(
    graph: ProfileGraph, embedder: Embedder, neo4j_settings: ConnectionSettings, window: str
) -> None:
    secret = Secret()
    erased: list[str] = []
    ids: dict[str, str] = {}

    async def forget_now() -> None:
        erased.extend((await forget(graph, [ids["private"]], reason="asked mid-cycle")).dreams_erased)

    async def at_phase(done: float, total: float, message: str) -> None:
        if message == f"{window.removeprefix('after ')} done":
            await forget_now()

    holding = HoldingEmbedder(
        embedder, secret.word, forget_now if window == "while embedding" else anyio.lowlevel.checkpoint
    )
    generator = HoldingGenerator(
        forget_now if window == "while the model words" else anyio.lowlevel.checkpoint
    )
    async with keeping(holding) as vectors:
        assert vectors is not None
        ids["private"], ids["kept"] = await remembered(graph, secret, vectors)
        holding.armed = True
        run = await run_cycle(
            graph, DreamingConfig(), CycleRequest(max_outputs=10), generator, at_phase, vectors=vectors
        )

    assert run.status == "completed"
    if not window.startswith("after "):
        assert secret.word in generator.drafted  # the night did draft the private words
    if window == "while embedding":
        assert secret.word in holding.embedded and erased  # stored, then erased by the forget
        for dream_id in erased:
            assert await read(graph, DREAM_VECTORS, id=dream_id) == [{"embedded": False}]
    assert await database(neo4j_settings, WORD_ANYWHERE, word=secret.word) == []
    assert (
        await database(neo4j_settings, WORD_ANYWHERE, word=secret.clinic.lower()) != []
    )  # the kept memory stays


async def test_a_forget_waits_for_a_dream_being_written_and_then_erases_it(
    graph: ProfileGraph, vectors: VectorKeeper, neo4j_settings: ConnectionSettings
) -> None:
    secret = Secret()
    private, kept = await remembered(graph, secret, vectors)
    written, release = anyio.Event(), anyio.Event()
    outcome: dict[str, Any] = {}

    async def write_then_wait(tx: ProfileTx) -> str | None:
        await pass_words_gate(tx)
        fields = {"hypothesis": secret.private, "text": secret.private, "kind": "link", "status": "proposed"}
        dream_id = await create_dream(tx, NewDream(str(uuid.uuid4()), fields, [private, kept]), T0)
        written.set()
        await release.wait()
        return dream_id

    async def dreamer() -> None:
        outcome["dream"] = await graph.write(write_then_wait)

    async def forgetter() -> None:
        await written.wait()
        outcome["forget"] = await forget(graph, [private])

    async with anyio.create_task_group() as group:
        group.start_soon(dreamer)
        group.start_soon(forgetter)
        await written.wait()
        await anyio.sleep(1)
        assert "forget" not in outcome  # the forget waits at the gate while the dream is uncommitted
        release.set()

    assert outcome["dream"] is not None
    assert outcome["dream"] in outcome["forget"].dreams_erased
    assert await database(neo4j_settings, WORD_ANYWHERE, word=secret.word) == []


async def test_a_dream_written_after_a_forget_is_not_written_at_all(
    graph: ProfileGraph, vectors: VectorKeeper, neo4j_settings: ConnectionSettings
) -> None:
    secret = Secret()
    private, kept = await remembered(graph, secret, vectors)
    await forget(graph, [private])

    async def write(tx: ProfileTx) -> str | None:
        await pass_words_gate(tx)
        fields = {"hypothesis": secret.private, "text": secret.private, "kind": "link"}
        return await create_dream(tx, NewDream(str(uuid.uuid4()), fields, [private, kept]), T0)

    assert await graph.write(write) is None
    assert await database(neo4j_settings, WORD_ANYWHERE, word=secret.word) == []
