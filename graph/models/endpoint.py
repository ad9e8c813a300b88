"""A model of the person's choosing, reached over an OpenAI-compatible chat-completions endpoint.

Ollama, the llama.cpp server, vLLM, LM Studio and hosted APIs all take the same request: POST
`{url}/chat/completions` with a system and a user message. `EndpointModel` is a `HostModel`, so
the dream phase and the claim check use it exactly as they use the host's model over sampling.
Every way the endpoint can fail (an HTTP error, a timeout, a dropped connection, a body that is
not the expected JSON or larger than `MAX_ANSWER_BYTES`, an answer with no text) is a
`HostModelError`, and the caller falls back to its deterministic path. The key is sent in the
Authorization header only: it is never logged, never part of an error message and never in a repr.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Final

import httpx2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.dreams.host_model import HostModelError, HostModelGenerator, HostModelLimits, ModelAnswer

log = logging.getLogger(__name__)

COMPLETIONS_PATH: Final = "/chat/completions"
TEMPERATURE: Final = 0.2
# The most of an answer read: the largest completion asked for (4,000 tokens, each a few bytes
# even escaped) is well under 100 KiB. Reading stops here, so an endpoint that sends hundreds of
# megabytes costs this much memory and no more.
MAX_ANSWER_BYTES: Final = 1024 * 1024
# Statuses with which servers that do not know `response_format` refuse it (LM Studio accepts
# only json_schema, older llama.cpp and vLLM builds answer 400 or 422).
_FORMAT_REFUSALS: Final = frozenset({400, 422})
_HINTS: Final = {
    401: "check REVERIE_MODEL_KEY or REVERIE_MODEL_KEY_FILE",
    403: "check REVERIE_MODEL_KEY or REVERIE_MODEL_KEY_FILE",
    404: "check REVERIE_MODEL_URL (the base, usually ending in /v1) and REVERIE_MODEL_NAME",
    429: "the endpoint is rate-limiting; fewer REVERIE_MODEL_REQUESTS may help",
}


@dataclass(frozen=True)
class EndpointConfig:
    url: str  # the base URL, without a trailing slash or /chat/completions
    model: str
    limits: HostModelLimits
    key: str | None = field(default=None, repr=False)
    verify_claims: bool = False


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")
    content: str | None = None


class _Choice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    message: _Message


class _Completion(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    choices: list[_Choice] = Field(min_length=1)


@dataclass(frozen=True)
class _Reply:
    status: int
    content: bytes  # empty unless the status is 200


class EndpointModel:
    """`HostModel` over an OpenAI-compatible endpoint; one connection pool for the process."""

    def __init__(self, config: EndpointConfig) -> None:
        self.config = config
        headers = {"Authorization": f"Bearer {config.key}"} if config.key else {}
        self._client = httpx2.AsyncClient(
            headers=headers, timeout=httpx2.Timeout(config.limits.timeout_seconds), follow_redirects=False
        )
        # Cleared when the server refuses `response_format`, so later calls do not ask again.
        self._json_mode = True

    def __repr__(self) -> str:
        return f"EndpointModel(url={self.config.url!r}, model={self.config.model!r})"

    @property
    def name(self) -> str:
        return self.config.model

    async def aclose(self) -> None:
        await self._client.aclose()

    async def ask(self, system: str, prompt: str, max_tokens: int) -> ModelAnswer:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            "max_tokens": min(max_tokens, self.config.limits.max_tokens),
            "temperature": TEMPERATURE,
        }
        if self._json_mode:
            reply = await self._post({**body, "response_format": {"type": "json_object"}})
            if reply.status not in _FORMAT_REFUSALS:
                return self._answer(reply)
            # Trigger: a 400 or 422 to a request asking for a JSON answer. Why: some servers do
            # not know response_format. Outcome: asked once more without it (the prompt asks for
            # JSON anyway); a server that refuses that too fails as usual.
            log.info("model endpoint refused response_format (HTTP %s); asking without it", reply.status)
            self._json_mode = False
        return self._answer(await self._post(body))

    async def _post(self, body: dict[str, Any]) -> _Reply:
        try:
            async with self._client.stream("POST", self.config.url + COMPLETIONS_PATH, json=body) as response:
                # Only a 200's body is read: other statuses say all there is to say.
                content = await _bounded_content(response) if response.status_code == 200 else b""
                return _Reply(response.status_code, content)
        except httpx2.TimeoutException as error:
            raise HostModelError(
                f"no answer from the model endpoint in time ({type(error).__name__})"
            ) from None
        except httpx2.HTTPError as error:
            # The error's own text names the URL at most; the key is only in a header.
            raise HostModelError(f"the model endpoint could not be reached: {type(error).__name__}") from None

    def _answer(self, reply: _Reply) -> ModelAnswer:
        if reply.status != 200:
            hint = _HINTS.get(reply.status, "see the endpoint's own log")
            raise HostModelError(f"the model endpoint answered HTTP {reply.status} ({hint})")
        try:
            completion = _Completion.model_validate_json(reply.content)
        except ValidationError as error:
            raise HostModelError(
                f"the model endpoint's answer is not a chat completion ({error.error_count()} problems)"
            ) from None
        text = completion.choices[0].message.content
        if not text or not text.strip():
            raise HostModelError("the model endpoint's answer has no text")
        return ModelAnswer(text=text, model=completion.model or self.config.model)


async def _bounded_content(response: httpx2.Response) -> bytes:
    """The body, decoded, or a `HostModelError` as soon as it is larger than `MAX_ANSWER_BYTES`
    (at once when its Content-Length says so); leaving the stream unread closes its connection."""
    limit = f"larger than the {MAX_ANSWER_BYTES // 1024} KiB an answer may be"
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise HostModelError(f"the model endpoint's answer is {limit} (Content-Length {declared}); not read")
    content = bytearray()
    async for chunk in response.aiter_bytes():
        content += chunk
        if len(content) > MAX_ANSWER_BYTES:
            raise HostModelError(f"the model endpoint's answer is {limit}; reading stopped there")
    return bytes(content)


class EndpointGenerator(HostModelGenerator):
    """Dreams phrased by the endpoint's model, recorded as `endpoint:<model>`."""

    name = "endpoint"
    speaker = "the model at the configured endpoint"
