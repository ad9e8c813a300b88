"""The endpoint client against a scripted OpenAI-compatible server on 127.0.0.1: what it sends,
what it takes from the answer, every failure as `HostModelError` (an oversized answer too, read no
further than the limit), and a key that never shows."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator

import pytest

from graph.dreams.host_model import HostModelError, HostModelLimits
from graph.models.endpoint import MAX_ANSWER_BYTES, EndpointConfig, EndpointModel
from tests.scripted_endpoint import (
    ANSWERING_MODEL,
    KEY,
    Received,
    Reply,
    ScriptedEndpoint,
    completion,
    error,
    padded,
    scripted_endpoint,
)

pytestmark = [pytest.mark.anyio, pytest.mark.unit]
# Ample for a scripted answer on a loaded machine; the slow endpoint's test shortens it.
TIMEOUT = 10.0
SHORT_TIMEOUT = 0.5
CONFIGURED = "configured-model"


@pytest.fixture
def script() -> list[Reply]:
    """The replies the server gives, in order; the last one repeats."""
    return [completion('{"ok": true}')]


@pytest.fixture
def endpoint(script: list[Reply]) -> Iterator[ScriptedEndpoint]:
    def answer(received: Received) -> Reply:
        return script.pop(0) if len(script) > 1 else script[0]

    with scripted_endpoint(answer) as served:
        yield served


@pytest.fixture
def timeout_seconds() -> float:
    return TIMEOUT


@pytest.fixture
async def model(endpoint: ScriptedEndpoint, timeout_seconds: float) -> AsyncIterator[EndpointModel]:
    limits = HostModelLimits(timeout_seconds=timeout_seconds, max_tokens=300)
    client = EndpointModel(EndpointConfig(url=endpoint.url, model=CONFIGURED, limits=limits, key=KEY))
    yield client
    await client.aclose()


async def test_a_question_is_one_chat_completion_with_bounded_tokens_and_a_json_answer(
    model: EndpointModel, endpoint: ScriptedEndpoint
) -> None:
    answer = await model.ask("be brief", "is this JSON?", max_tokens=1000)
    assert (answer.text, answer.model) == ('{"ok": true}', ANSWERING_MODEL)
    [sent] = endpoint.received
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == f"Bearer {KEY}"
    assert sent.body["model"] == CONFIGURED
    assert sent.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "is this JSON?"},
    ]
    assert sent.body["max_tokens"] == 300  # the configured bound, not the caller's 1000
    assert sent.body["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("script", [[completion("{}", model=None)]])
async def test_an_answer_without_a_model_name_is_recorded_under_the_configured_one(
    model: EndpointModel,
) -> None:
    assert (await model.ask("s", "p", 100)).model == CONFIGURED


@pytest.mark.parametrize("script", [[error(400), completion('{"ok": 1}')]])
async def test_a_server_that_refuses_response_format_is_asked_again_without_it_once_for_all(
    model: EndpointModel, endpoint: ScriptedEndpoint
) -> None:
    assert (await model.ask("s", "p", 100)).text == '{"ok": 1}'
    assert (await model.ask("s", "p", 100)).text == '{"ok": 1}'
    formats = ["response_format" in sent.body for sent in endpoint.received]
    assert formats == [True, False, False]


MISBEHAVIOURS = {
    "server error": error(500),
    "rate limited": error(429),
    "bad key": error(401),
    "refuses with or without response_format": error(422),
    "slow": Reply(body=completion("{}").body, delay=SHORT_TIMEOUT * 4),
    "garbage": Reply(body=b"<html>502 Bad Gateway</html>"),
    "dropped connection": Reply(drop=True),
    "no choices": Reply(body=json.dumps({"model": "m", "choices": []}).encode()),
    "no text": Reply(
        body=json.dumps({"choices": [{"message": {"role": "assistant", "content": None}}]}).encode()
    ),
}


@pytest.mark.parametrize(
    ("script", "timeout_seconds"),
    [([reply], SHORT_TIMEOUT if reply.delay else TIMEOUT) for reply in MISBEHAVIOURS.values()],
    ids=list(MISBEHAVIOURS),
)
async def test_every_failure_of_the_endpoint_is_a_host_model_error_without_the_key(
    model: EndpointModel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(HostModelError) as raised:
        await model.ask("s", "p", 100)
    assert KEY not in str(raised.value) and KEY not in repr(raised.value)
    assert KEY not in caplog.text and KEY not in repr(model)


async def test_an_endpoint_where_nothing_listens_is_a_host_model_error() -> None:
    limits = HostModelLimits(timeout_seconds=TIMEOUT)
    closed = EndpointModel(EndpointConfig(url="http://127.0.0.1:9/v1", model="m", limits=limits, key=KEY))
    with pytest.raises(HostModelError, match="could not be reached"):
        await closed.ask("s", "p", 100)
    await closed.aclose()


# Far more than the limit, so that reading stops long before the body ends.
HUGE = 32 * MAX_ANSWER_BYTES


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ([padded('{"ok": 1}', HUGE), completion('{"ok": true}')], "Content-Length"),
        ([padded('{"ok": 1}', HUGE, chunked=True), completion('{"ok": true}')], "reading stopped"),
    ],
    ids=["content-length", "chunked"],
)
async def test_an_answer_larger_than_the_limit_is_not_read_past_it(
    model: EndpointModel, endpoint: ScriptedEndpoint, message: str
) -> None:
    with pytest.raises(HostModelError, match=f"larger than the 1024 KiB.*{message}"):
        await model.ask("s", "p", 100)
    # The client hung up: what the server got out is the limit plus what the sockets buffer.
    assert endpoint.written[0] < HUGE // 4
    assert (await model.ask("s", "p", 100)).text == '{"ok": true}'


@pytest.mark.parametrize("script", [[padded('{"ok": true}', MAX_ANSWER_BYTES // 2, chunked=True)]])
async def test_an_answer_within_the_limit_is_read_whole_however_it_is_framed(model: EndpointModel) -> None:
    assert (await model.ask("s", "p", 100)).text == '{"ok": true}'


@pytest.mark.parametrize("script", [[completion("{}", model="evil\n2026 ERROR\x1b[31m\u2028x" + "y" * 200)]])
async def test_the_answering_models_name_is_kept_as_one_clean_short_line(model: EndpointModel) -> None:
    assert (await model.ask("s", "p", 100)).model == ("evil 2026 ERROR [31m x" + "y" * 200)[:100]
