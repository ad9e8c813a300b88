"""Dreams phrased and judged by the host's own model, with the deterministic writer behind it.

The pairs and their evidence are chosen exactly as for `LinkGenerator`; the host's model is
asked, for each of the best few, whether the link is worth asking the person about and how to
say it. It answers one small JSON object. A pair it judges empty is dropped. A refusal, an
error, a timeout or an answer that is not the asked-for JSON leaves that pair to the
deterministic writer, so a misbehaving model never fails a cycle. Scores and the rationale's
figures always come from the evidence, never from the model. Model calls happen outside any
database transaction: a managed transaction may be retried, a model call must not be.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graph.base import Frozen
from graph.dreams.evidence import JUDGED_FLOOR_SHARE, CandidatePair, link_score
from graph.dreams.generator import LinkGenerator, Proposal, connections, draft
from graph.dreams.models import DreamDraft
from graph.dreams.writer import excerpt
from graph.text import one_line

log = logging.getLogger(__name__)

# A few extra candidates stand behind those the model judges empty.
SPARE_CANDIDATES: Final = 3
MEMORY_CHARS: Final = 400
MODEL_NAME_CHARS: Final = 100
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

SYSTEM_PROMPT: Final = (
    "You help a personal assistant review its long-term memory of one person. You are shown two "
    "memories and why a program thinks they are connected. Decide whether the connection is worth "
    "asking the person about, and if so say it plainly. Answer with one JSON object and nothing else."
)
_INSTRUCTIONS: Final = """Reply with JSON of exactly this shape:
{"worth_asking": true or false,
 "hypothesis": "one sentence stating the connection, which the person can answer yes or no",
 "why": "one short line: the evidence",
 "what_if": "one sentence: what would follow if the connection is real",
 "possible_outcome": "one sentence: what the assistant could do with it"}
worth_asking is false for small talk, restatements of one thing, or links nobody would care about.
Never invent facts that are not in the two memories."""


class _Outcome(StrEnum):
    PHRASED = "phrased"  # the model's words, with the evidence's scores
    DROPPED = "dropped"  # judged not worth asking: no dream
    FAILED = "failed"  # refusal, error, timeout or malformed answer: the deterministic writer's words


class HostModelError(Exception):
    """The host's model did not answer (refused, failed, or sent something that is not text)."""


class ModelAnswer(Frozen):
    text: str
    # The name the host or the endpoint gives the model that answered, as one short line: it is
    # stored in a dream's generator and rationale, and a claim's verifier, and shown from there.
    model: str

    @field_validator("model")
    @classmethod
    def _one_line(cls, model: str) -> str:
        return one_line(model, MODEL_NAME_CHARS) or "unknown"


class HostModel(Protocol):
    async def ask(self, system: str, prompt: str, max_tokens: int) -> ModelAnswer: ...


@dataclass(frozen=True)
class Question:
    """One request to the host's model, exactly as `HostModel.ask` receives it."""

    system: str
    prompt: str
    max_tokens: int


@dataclass(frozen=True)
class HostModelLimits:
    max_requests: int = 5
    timeout_seconds: float = 30.0
    max_tokens: int = 400


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    worth_asking: bool
    hypothesis: str = Field(min_length=10, max_length=400)
    why: str = Field(min_length=3, max_length=200)
    what_if: str = Field(min_length=3, max_length=400)
    possible_outcome: str = Field(min_length=3, max_length=400)


def prompt_for(pair: CandidatePair, fallback: DreamDraft) -> str:
    def describe(label: str, index: int) -> str:
        memory = (pair.first, pair.second)[index]
        return f"Memory {label} ({memory.when():%d %B %Y}): {excerpt(memory.text, None, MEMORY_CHARS)}"

    return "\n".join(
        [describe("A", 0), describe("B", 1), f"Why they may be connected: {fallback.why}", _INSTRUCTIONS]
    )


def question_for(pair: CandidatePair, fallback: DreamDraft, limits: HostModelLimits) -> Question:
    return Question(SYSTEM_PROMPT, prompt_for(pair, fallback), limits.max_tokens)


def questions(pairs: Sequence[CandidatePair], max_outputs: int, limits: HostModelLimits) -> list[Question]:
    """Every question `HostModelGenerator.propose` may ask of these pairs: all of them when the
    model finds each pair empty (it then asks the spares too), more than it asks otherwise."""
    chosen = connections(pairs, max_outputs + SPARE_CANDIDATES, JUDGED_FLOOR_SHARE)[: limits.max_requests]
    return [question_for(pair, draft(pair, score, LinkGenerator.name), limits) for pair, score in chosen]


def parse_answer(text: str) -> _Answer:
    """The JSON object in the model's text (models often wrap it in a code fence)."""
    found = _JSON_OBJECT.search(text)
    if found is None:
        raise ValueError("no JSON object in the answer")
    try:
        return _Answer.model_validate(json.loads(found.group(0)))
    except (json.JSONDecodeError, ValidationError) as error:
        raise ValueError(f"not the asked-for JSON: {str(error)[:200]}") from error


class HostModelGenerator:
    """The host's model phrases and judges the best candidates; the rest are written as usual."""

    name = "host-model"
    # Who the rationale says phrased the dream; a generator over another model names it.
    speaker = "the host's model"

    def __init__(self, model: HostModel, limits: HostModelLimits | None = None) -> None:
        self._model = model
        self._limits = limits or HostModelLimits()

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal:
        counts = {f"host_model_{outcome}": 0 for outcome in _Outcome}
        drafts: list[DreamDraft] = []
        asked = 0
        for pair, score in connections(pairs, max_outputs + SPARE_CANDIDATES, JUDGED_FLOOR_SHARE):
            if len(drafts) == max_outputs:
                break
            written = draft(pair, score, LinkGenerator.name)
            # Below the floor only the model's judgement can make a pair a dream.
            vouched = link_score(pair) is not None
            if asked >= self._limits.max_requests:
                if vouched:
                    drafts.append(written)
                continue
            asked += 1
            outcome, phrased = await self._phrase(pair, written)
            counts[f"host_model_{outcome}"] += 1
            if outcome is _Outcome.FAILED and vouched:
                drafts.append(written)
            elif phrased is not None:
                drafts.append(phrased)
        return Proposal(drafts, counts)

    async def _phrase(self, pair: CandidatePair, written: DreamDraft) -> tuple[_Outcome, DreamDraft | None]:
        question = question_for(pair, written, self._limits)
        try:
            with anyio.fail_after(self._limits.timeout_seconds):
                answer = await self._model.ask(question.system, question.prompt, question.max_tokens)
            parsed = parse_answer(answer.text)
        except TimeoutError:
            log.warning(
                "host model: no answer within %.0f s for %s", self._limits.timeout_seconds, written.pair_key
            )
            return _Outcome.FAILED, None
        except (HostModelError, ValueError) as error:
            log.warning("host model: unusable answer for %s: %s", written.pair_key, error)
            return _Outcome.FAILED, None
        if not parsed.worth_asking:
            log.info("host model judged %s not worth asking", written.pair_key)
            return _Outcome.DROPPED, None
        return _Outcome.PHRASED, written.model_copy(
            update={
                "hypothesis": parsed.hypothesis,
                "why": parsed.why,
                "what_if": parsed.what_if,
                "possible_outcome": parsed.possible_outcome,
                "generator": f"{self.name}:{answer.model}",
                "rationale": f"{written.rationale} Phrased and judged worth asking by {self.speaker} "
                f"({answer.model}); the scores come from the evidence above.",
            }
        )
