"""Dreams the host's own model writes through ordinary tools, where it offers no MCP sampling.

Every host is a language model: it can read the links the dream phase would draw
(`list_candidates`, which writes nothing), judge them, write the good ones in its own words
(`write_dream`), judge the others empty (`judge_empty`), and reword an open dream (`reword`).
Reverie keeps what is its own: which memories a dream may cite, its scores (from the evidence
between the cited memories, never from the host), never the same pair twice (nor a pair judged
empty, which the cycle's finder skips too), the lifecycle, and forgetting.

A dream citing three or four memories is scored by its weakest pair: a link among several
memories is no stronger than its weakest link.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from itertools import combinations
from typing import Any, Final

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import host_queries as hq
from graph.dreams.candidates import FINDING_PATIENCE, find_candidates, pair_evidence
from graph.dreams.evidence import JUDGED_FLOOR_SHARE, CandidatePair, evidence_score, is_restatement
from graph.dreams.generator import LinkGenerator, connections, draft
from graph.dreams.models import (
    CandidateList,
    CandidateMemory,
    DreamCandidate,
    DreamKind,
    DreamStatus,
    HostDreamResult,
    sources_key,
)
from graph.dreams.records import (
    Cited,
    DreamToReword,
    Memory,
    stored_statement_from_row,
)
from graph.dreams.store import NewDream, create_dream, pairs_taken
from graph.dreams.writer import confidence, excerpt, likelihood, rationale
from graph.embedding.keeper import VectorKeeper
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.store import embed_missing
from graph.errors import InvalidInputError, NotFoundError
from graph.memory.claims import check_claim
from graph.memory.models import ClaimInput
from graph.text import one_line
from graph.words_gate import pass_words_gate

MAX_SOURCES: Final = 4
MAX_CANDIDATES: Final = 20
MAX_REVISIONS: Final = 20
CANDIDATE_CHARS: Final = 400
# The longest each text may be, as the sampling path bounds the host model's answer.
TEXT_LIMITS: Final = {"hypothesis": 400, "why": 200, "what_if": 400, "possible_outcome": 400}
WRITER_CHARS: Final = 80
OPEN: Final = (DreamStatus.PROPOSED, DreamStatus.REINFORCED)


def writer_name(client_name: str | None) -> str:
    """`host:<client name>` as the client introduced itself; `host:unknown` without a name."""
    return f"host:{one_line(client_name, WRITER_CHARS) or 'unknown'}"


@dataclass(frozen=True)
class DreamWords:
    """A dream's texts in the host's words; rewording may leave any of them out."""

    hypothesis: str | None = None
    why: str | None = None
    what_if: str | None = None
    possible_outcome: str | None = None
    statement: ClaimInput | None = None

    def texts(self) -> dict[str, str]:
        """The texts given, checked: none blank, none too long."""
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name in TEXT_LIMITS}
        texts = {name: text.strip() for name, text in given.items() if text is not None}
        for name, text in texts.items():
            if not text or len(text) > TEXT_LIMITS[name]:
                raise InvalidInputError(f"{name}: write 1 to {TEXT_LIMITS[name]} characters.")
        return texts

    def stored(self, complete: bool) -> dict[str, Any]:
        """The properties to store; `complete` asks for every text."""
        texts = self.texts()
        missing = [name for name in TEXT_LIMITS if name not in texts]
        if complete and missing:
            raise InvalidInputError(f"a new dream needs {', '.join(missing)} too; nothing was written.")
        if not texts and self.statement is None:
            raise InvalidInputError("nothing to reword: send new texts or a statement.")
        statement = {"statement": self.statement.model_dump_json()} if self.statement else {}
        return texts | statement


# --- candidates ----------------------------------------------------------------------------


async def _model(graph: ProfileGraph, vectors: VectorKeeper | None) -> str | None:
    """The running embedding model, once this process's latest memories have their vectors."""
    if vectors is None:
        return None
    await vectors.settled(graph)
    return vectors.embedder.model_id


def _candidate(pair: CandidatePair, score: float) -> DreamCandidate:
    drafted = draft(pair, score, LinkGenerator.name)
    memories = sorted((pair.first, pair.second), key=lambda memory: memory.when())
    return DreamCandidate(
        source_ids=[memory.id for memory in memories],
        memories=[
            CandidateMemory(
                id=memory.id,
                kind=memory.kind,
                text=excerpt(memory.text, None, CANDIDATE_CHARS),
                occurred_at=memory.occurred_at,
                stored_at=memory.created_at,
            )
            for memory in memories
        ],
        shared_terms=drafted.shared_terms,
        why=drafted.why,
        link_score=drafted.link_score,
        likelihood=drafted.likelihood,
        confidence=drafted.confidence,
    )


async def list_candidates(
    graph: ProfileGraph, limit: int, vectors: VectorKeeper | None = None, now: datetime | None = None
) -> CandidateList:
    """The links the dream phase would propose now, best first; nothing is written. Pairs
    dreamed before, rejected or judged empty are not among them."""
    if not 1 <= limit <= MAX_CANDIDATES:
        raise InvalidInputError(f"limit must be 1 to {MAX_CANDIDATES}.")
    model = await _model(graph, vectors)
    pairs = await graph.patient(FINDING_PATIENCE).read(find_candidates, limit, now or utcnow(), model)
    # The host's model judges every candidate, so it gets the wider set, several pairs of one
    # topic included: it asks the person one question of them, the one it finds best.
    chosen = connections(pairs, limit, JUDGED_FLOOR_SHARE, per_topic=False)
    return CandidateList(candidates=[_candidate(pair, score) for pair, score in chosen])


# --- what a dream may cite -----------------------------------------------------------------


def _checked_ids(source_ids: Sequence[str], exactly: int | None = None) -> list[str]:
    ids = [source_id.strip() for source_id in source_ids]
    repeated = sorted({source_id for source_id in ids if ids.count(source_id) > 1})
    if repeated:
        raise InvalidInputError(
            f"source_ids names {', '.join(repeated)} more than once; nothing was written."
        )
    low, high = (exactly, exactly) if exactly else (2, MAX_SOURCES)
    if not low <= len(ids) <= high:
        wanted = f"exactly {exactly}" if exactly else f"2 to {MAX_SOURCES}"
        raise InvalidInputError(f"source_ids: cite {wanted} memories (got {len(ids)}); nothing was written.")
    if any(not 0 < len(source_id) <= 64 for source_id in ids):
        raise InvalidInputError("source_ids: each id has 1 to 64 characters.")
    return ids


def _problem(cited: Cited) -> str:
    if cited.found is None:
        return f"{cited.id} is no memory of this profile"
    if cited.found == "claim":
        return f"{cited.id} is a claim: cite the fact or the fragment it came from"
    if cited.found == "forgotten":
        return f"{cited.id} was forgotten at the person's request"
    return f"{cited.id} is {cited.status}, no longer active"


async def _cited(tx: ProfileTx, ids: list[str]) -> list[Memory]:
    """The live memories `ids` name, in the order given; anything else is refused whole."""
    found = [Cited.from_row(row) for row in await tx.run(hq.CITED, ids=ids)]
    problems = [_problem(cited) for cited in found if cited.memory is None]
    if problems:
        raise InvalidInputError(f"cannot cite {'; '.join(problems)}. Nothing was written.")
    return [cited.memory for cited in found if cited.memory is not None]


def _check_statement(statement: ClaimInput | None, fragment_ids: Sequence[str]) -> None:
    """A statement may rest on the fragments the dream cites, and on nothing else, and must be
    a claim promotion could store (a statement no gate can take would only mislead)."""
    if statement is None:
        return
    check_claim(statement)
    if statement.evidence is not None:
        # Evidence is words of the content a claim comes with: for a statement, the person's
        # own words when they confirm it, which do not exist yet.
        raise InvalidInputError(
            "statement.evidence is not taken: the person's words when they confirm the dream are its "
            "evidence. Leave evidence out. Nothing was written."
        )
    outside = sorted(set(statement.supported_by) - set(fragment_ids))
    if outside:
        raise InvalidInputError(
            f"statement.supported_by may name only fragments the dream cites; {', '.join(outside)} "
            "is not one. Nothing was written."
        )


async def _refuse_repeats(tx: ProfileTx, memories: Sequence[Memory]) -> None:
    """Never the same pair twice: not in a dream of any status, nor after it was judged empty."""
    taken = await pairs_taken(tx, [memory.id for memory in memories])
    if taken.dream_id is not None:
        raise InvalidInputError(
            f"dream {taken.dream_id} already links two of these memories (never the same pair twice): "
            "reword it with its dream_id, or cite others. Nothing was written."
        )
    if taken.empty_pair is not None:
        raise InvalidInputError(
            f"the pair {taken.empty_pair} was judged empty before and is never dreamed. Nothing was written."
        )


# --- writing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scores:
    pair: CandidatePair
    score: float
    likelihood: float
    confidence: float


async def _weakest_link(tx: ProfileTx, memories: Sequence[Memory], model: str | None) -> _Scores:
    """The scores of the weakest pair among the cited memories; a restatement links nothing."""
    scored = []
    for pair in await pair_evidence(tx, list(combinations(memories, 2)), model):
        score = 0.0 if is_restatement(pair) else evidence_score(pair)
        scored.append(_Scores(pair, score, likelihood(pair, score), confidence(pair)))
    return min(scored, key=lambda found: (found.likelihood, found.confidence))


def _rationale(scores: _Scores, writer: str, sources: int) -> str:
    weakest = f" These are its weakest pair's, of {sources * (sources - 1) // 2}." if sources > 2 else ""
    return (
        f"{rationale(scores.pair, scores.score)} Worded by {writer}; the scores are Reverie's, from the "
        f"evidence between the cited memories.{weakest}"
    )


@dataclass(frozen=True)
class _Writing:
    ids: list[str]
    words: DreamWords
    writer: str
    model: str | None
    now: datetime


async def _write_in(tx: ProfileTx, writing: _Writing) -> HostDreamResult:
    # Before the checks: two hosts writing about one pair, or a forget of a cited memory, take
    # turns here, and whichever is second sees what the first one wrote.
    await pass_words_gate(tx)
    memories = await _cited(tx, writing.ids)
    _check_statement(writing.words.statement, [m.id for m in memories if m.kind == "fragment"])
    await _refuse_repeats(tx, memories)
    scores = await _weakest_link(tx, memories, writing.model)
    stored = writing.words.stored(complete=True)
    properties = {
        **stored,
        "text": f"{stored['hypothesis']} {stored['what_if']}",
        "rationale": _rationale(scores, writing.writer, len(memories)),
        "likelihood": scores.likelihood,
        "confidence": scores.confidence,
        "link_score": round(scores.score, 3),
        "generator": writing.writer,
        "shared_terms": [term.term for term in scores.pair.shared[:4]],
        "source_count": len(memories),
        # A thread through three or four memories is a theme; two are a link.
        "kind": (DreamKind.LINK if len(memories) == 2 else DreamKind.THEME).value,
    }
    dream_id = await create_dream(tx, NewDream(str(uuid.uuid4()), properties, writing.ids), writing.now)
    if dream_id is None:
        raise InvalidInputError("these memories were dreamed together a moment ago; nothing was written.")
    return HostDreamResult(
        outcome="written",
        dream_id=dream_id,
        generator=writing.writer,
        likelihood=scores.likelihood,
        confidence=scores.confidence,
    )


async def _embedded(graph: ProfileGraph, vectors: VectorKeeper | None) -> None:
    # After the dream's own transaction: the model never runs inside one.
    if vectors is not None:
        await embed_missing(graph, vectors.embedder, EmbeddedKind.DREAM)


async def write_dream(
    graph: ProfileGraph,
    source_ids: Sequence[str],
    words: DreamWords,
    writer: str,
    vectors: VectorKeeper | None = None,
    now: datetime | None = None,
) -> HostDreamResult:
    """A new dream in the host's words, citing 2 to `MAX_SOURCES` live memories of the profile;
    its likelihood and confidence come from the evidence between them."""
    ids = _checked_ids(source_ids)
    words.stored(complete=True)  # refuse bad words before anything is read
    model = await _model(graph, vectors)
    result = await graph.write(_write_in, _Writing(ids, words, writer, model, now or utcnow()))
    await _embedded(graph, vectors)
    return result


async def _judge_in(tx: ProfileTx, ids: list[str], writer: str, now: datetime) -> HostDreamResult:
    await pass_words_gate(tx)  # a dream of this pair being written meanwhile goes first or after
    memories = await _cited(tx, ids)
    await _refuse_repeats(tx, memories)
    row = await tx.one(
        hq.JUDGE_EMPTY, pair_key=sources_key(ids), id=str(uuid.uuid4()), writer=writer, now=now
    )
    if not row["created"]:
        raise InvalidInputError("this pair was judged empty a moment ago; nothing was written.")
    return HostDreamResult(
        outcome="judged_empty", dream_id=None, generator=writer, likelihood=None, confidence=None
    )


async def judge_empty(
    graph: ProfileGraph, source_ids: Sequence[str], writer: str, now: datetime | None = None
) -> HostDreamResult:
    """Record that two memories make no dream: neither the host nor the cycle proposes them again."""
    ids = _checked_ids(source_ids, exactly=2)
    return await graph.write(_judge_in, ids, writer, now or utcnow())


# --- rewording -----------------------------------------------------------------------------


async def _reword_in(
    tx: ProfileTx, dream_id: str, words: DreamWords, writer: str, now: datetime
) -> HostDreamResult:
    await pass_words_gate(tx)  # a forget erasing this dream meanwhile goes first or after
    row = await tx.single(hq.LOCK_FOR_REWORDING, id=dream_id, now=now)
    if row is None:
        raise NotFoundError("dream", dream_id)
    dream = DreamToReword.from_row(row)
    if dream.status not in OPEN:
        raise InvalidInputError(
            f"dream {dream_id} is {dream.status.value}: only open dreams (proposed, reinforced) can be "
            "reworded. Nothing was changed."
        )
    if dream.revisions >= MAX_REVISIONS:
        raise InvalidInputError(f"dream {dream_id} was reworded {MAX_REVISIONS} times already; leave it be.")
    _check_statement(words.statement, dream.fragment_ids)
    properties = {**words.stored(complete=False), "generator": writer}
    await tx.run(hq.REWORD, id=dream_id, revision_id=str(uuid.uuid4()), fields=properties, now=now)
    return HostDreamResult(
        outcome="reworded",
        dream_id=dream_id,
        generator=writer,
        likelihood=dream.likelihood,
        confidence=dream.confidence,
    )


async def reword(
    graph: ProfileGraph,
    dream_id: str,
    words: DreamWords,
    writer: str,
    vectors: VectorKeeper | None = None,
    now: datetime | None = None,
) -> HostDreamResult:
    """New words for an open dream; the earlier ones, and who wrote them, stay in its history.
    Its sources and scores do not change: they are the evidence's."""
    words.stored(complete=False)
    result = await graph.write(_reword_in, dream_id, words, writer, now or utcnow())
    await _embedded(graph, vectors)
    return result


async def stored_statement(tx: ProfileTx, dream_id: str) -> ClaimInput | None:
    """The statement a dream holds for the person to confirm, if any."""
    row = await tx.single(hq.STORED_STATEMENT, id=dream_id)
    return stored_statement_from_row(row) if row is not None else None


# --- one entry for the tool ----------------------------------------------------------------


@dataclass(frozen=True)
class HostRequest:
    """What write_dream asked: new words for `source_ids`, or for dream `dream_id`, or the
    verdict that `source_ids` make no dream."""

    writer: str
    words: DreamWords
    source_ids: Sequence[str] = ()
    dream_id: str | None = None
    empty: bool = False


async def apply(
    graph: ProfileGraph, request: HostRequest, vectors: VectorKeeper | None = None
) -> HostDreamResult:
    if request.dream_id is not None:
        if request.source_ids or request.empty:
            raise InvalidInputError(
                "dream_id rewords a dream whose sources stay; send it without source_ids or verdict."
            )
        return await reword(graph, request.dream_id, request.words, request.writer, vectors)
    if request.empty:
        if request.words != DreamWords():
            raise InvalidInputError("verdict empty takes only the two source_ids; nothing was written.")
        return await judge_empty(graph, request.source_ids, request.writer)
    return await write_dream(graph, request.source_ids, request.words, request.writer, vectors)
