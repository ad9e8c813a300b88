"""The connected host's model, reached through MCP sampling, for the dream phase.

Only a client that declared the sampling capability is asked; any other gets the fallback writer,
and the dream phase's counts say why. How the questions travel depends on the protocol era:

- Handshake era (up to 2025-11-25): each question goes to the client as a `sampling/createMessage`
  request while the tool runs, and is awaited for up to the timeout.
- 2026-07-28: a server cannot send a request of its own, so the call takes two rounds (SEP-2322).
  The first computes the candidates read-only (a dry run of the dream phase alone) and answers
  `input_required` with every question at once. It writes nothing: a client may never retry.
  The retry carries the answers; the cycle runs and recomputes its candidates, and each question
  finds its answer under a key derived from its own text, so an answer to a question the cycle
  no longer asks is ignored. The request state holds only when the questions went out, sealed
  by the SDK; answers that come back after the timeout are not used.

A question without a usable answer gets the deterministic writer (`graph/dreams/host_model.py`).
The SDK marks sampling deprecated from 2026-07-28 on (SEP-2577); its warning is silenced here.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import Final, Protocol

from mcp import MCPDeprecationWarning, MCPError
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    InputResponses,
    SamplingMessage,
    TextContent,
)
from mcp_types.version import is_version_at_least

from graph.dreams.cycle import DEFAULT_GENERATOR, CycleRequest, ProgressFn
from graph.dreams.evidence import CandidatePair
from graph.dreams.generator import DreamGenerator, Proposal
from graph.dreams.host_model import (
    HostModelError,
    HostModelGenerator,
    HostModelLimits,
    ModelAnswer,
    Question,
    questions,
)
from graph.dreams.models import DreamRun
from server.context import Ctx

# First protocol version without server-to-client requests: sampling rides `input_required`.
INPUT_REQUIRED_VERSION: Final = "2026-07-28"
TEMPERATURE: Final = 0.2
# Dream-phase counts saying why the host's model was not asked.
NOT_OFFERED: Final = "host_model_not_offered"  # the client did not declare sampling
NO_CHANNEL: Final = "host_model_no_channel"  # handshake era, but no way to send it a request


class CycleFn(Protocol):
    """`run_cycle` with the graph, defaults and vectors of this call bound."""

    def __call__(
        self, request: CycleRequest, *, generator: DreamGenerator, progress: ProgressFn | None = None
    ) -> Awaitable[DreamRun]: ...


def _message(prompt: str) -> SamplingMessage:
    return SamplingMessage(role="user", content=TextContent(type="text", text=prompt))


def _answer_of(result: CreateMessageResult) -> ModelAnswer:
    if not isinstance(result.content, TextContent):
        raise HostModelError(f"the host answered with {result.content.type}, not text")
    return ModelAnswer(text=result.content.text, model=result.model)


class SamplingModel:
    """`HostModel` over one request's MCP session (handshake era)."""

    def __init__(self, ctx: Ctx) -> None:
        self._session = ctx.session

    async def ask(self, system: str, prompt: str, max_tokens: int) -> ModelAnswer:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                result = await self._session.create_message(
                    [_message(prompt)], max_tokens=max_tokens, system_prompt=system, temperature=TEMPERATURE
                )
        except MCPError as error:
            raise HostModelError(f"the host declined or failed: {error}") from error
        return _answer_of(result)


def key_of(question: Question) -> str:
    """The input-request key of a question, re-derived from its text on every round."""
    rendered = json.dumps([question.system, question.prompt, question.max_tokens])
    return "dream-" + hashlib.sha256(rendered.encode()).hexdigest()[:24]


def sampling_request(question: Question) -> CreateMessageRequest:
    params = CreateMessageRequestParams(
        messages=[_message(question.prompt)],
        max_tokens=question.max_tokens,
        system_prompt=question.system,
        temperature=TEMPERATURE,
    )
    return CreateMessageRequest(params=params)


class AnsweredModel:
    """`HostModel` over the answers a 2026-07-28 client sent with its retry."""

    def __init__(self, answers: InputResponses, late: bool) -> None:
        self._answers, self._late = answers, late

    async def ask(self, system: str, prompt: str, max_tokens: int) -> ModelAnswer:
        if self._late:
            raise TimeoutError("the answers came back after the timeout")
        answer = self._answers.get(key_of(Question(system, prompt, max_tokens)))
        if answer is None:
            raise HostModelError("the client sent no answer to this question")
        if not isinstance(answer, CreateMessageResult):
            raise HostModelError(f"the client answered with {type(answer).__name__}, not a sampled message")
        return _answer_of(answer)


class _Noted:
    """Another generator, its dream-phase counts marked with why the host's model was not asked."""

    def __init__(self, inner: DreamGenerator, note: str) -> None:
        self._inner, self._note = inner, note

    @property
    def name(self) -> str:
        return self._inner.name

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal:
        proposal = await self._inner.propose(pairs, max_outputs)
        return Proposal(proposal.drafts, {**proposal.counts, self._note: 1})


class _Planner:
    """Writes no dream; keeps the questions the host model's generator may ask of the candidates."""

    name = "host-model-planner"

    def __init__(self, limits: HostModelLimits) -> None:
        self.limits = limits
        self.questions: list[Question] = []

    async def propose(self, pairs: Sequence[CandidatePair], max_outputs: int) -> Proposal:
        self.questions = questions(pairs, max_outputs, self.limits)
        return Proposal([])


def _asked_late(request_state: str | None, timeout: float) -> bool:
    """Whether the answers come after the timeout; unknown timing counts as late."""
    try:
        asked_at = float(json.loads(request_state or "")["asked_at"])
    except (ValueError, KeyError, TypeError):
        return True
    return time.time() - asked_at > timeout


async def _two_rounds(
    ctx: Ctx, limits: HostModelLimits, request: CycleRequest, cycle: CycleFn, fallback: DreamGenerator
) -> DreamGenerator | InputRequiredResult:
    if ctx.input_responses is not None or ctx.request_state is not None:
        late = _asked_late(ctx.request_state, limits.timeout_seconds)
        return HostModelGenerator(AnsweredModel(ctx.input_responses or {}, late), limits)
    planner = _Planner(limits)
    # Read only, whatever the request says: the dream phase's candidates, and no progress yet.
    await cycle(
        replace(request, dry_run=True, reflect_enabled=False, reevaluate_enabled=False), generator=planner
    )
    if not planner.questions:
        return fallback
    return InputRequiredResult(
        input_requests={key_of(question): sampling_request(question) for question in planner.questions},
        request_state=json.dumps({"asked_at": time.time()}),
    )


def offers_sampling(ctx: Ctx) -> bool:
    """Whether this client declared MCP sampling (on either protocol era)."""
    capabilities = ctx.client_capabilities
    return capabilities is not None and capabilities.sampling is not None


async def dream_generator(
    ctx: Ctx,
    limits: HostModelLimits,
    request: CycleRequest,
    cycle: CycleFn,
    fallback: DreamGenerator = DEFAULT_GENERATOR,
) -> DreamGenerator | InputRequiredResult:
    """The host's model when this client offers sampling, else `fallback`. On a 2026-07-28
    connection's first round: the questions for the client, after a read-only look at the
    candidates; the caller returns them as the tool's result."""
    if not offers_sampling(ctx):
        return _Noted(fallback, NOT_OFFERED)
    version = ctx.protocol_version
    if version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION):
        return await _two_rounds(ctx, limits, request, cycle, fallback)
    if not ctx.session.can_send_request:
        return _Noted(fallback, NO_CHANNEL)
    return HostModelGenerator(SamplingModel(ctx), limits)
