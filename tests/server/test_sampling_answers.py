"""How a 2026-07-28 retry's answers reach the dream generator: each question finds its answer
under the key it derives from its own text, and nothing else stands in for it."""

from __future__ import annotations

import pytest
from mcp_types import CreateMessageResult, ElicitResult, InputResponses, TextContent

from graph.dreams.host_model import HostModelError, Question
from server.sampling import AnsweredModel, key_of, sampling_request

pytestmark = [pytest.mark.unit, pytest.mark.anyio]
ASKED = Question("system", "Memory A ... Memory B ...", 400)


def said(text: str) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="m")


def test_a_key_depends_on_every_part_of_the_question_and_nothing_else() -> None:
    assert key_of(ASKED) == key_of(Question("system", "Memory A ... Memory B ...", 400))
    others = [
        Question("other", ASKED.prompt, 400),
        Question("system", "Memory A", 400),
        Question("system", ASKED.prompt, 300),
    ]
    assert len({key_of(ASKED), *map(key_of, others)}) == 4
    params = sampling_request(ASKED).params
    assert (params.system_prompt, params.max_tokens, params.messages[0].content) == (
        "system",
        400,
        TextContent(type="text", text=ASKED.prompt),
    )


async def test_the_answer_under_the_questions_key_is_used() -> None:
    answers: InputResponses = {key_of(ASKED): said("yes"), "dream-other": said("no")}
    answer = await AnsweredModel(answers, late=False).ask(ASKED.system, ASKED.prompt, ASKED.max_tokens)
    assert (answer.text, answer.model) == ("yes", "m")


@pytest.mark.parametrize(
    "answers",
    [
        {},
        {"dream-other": said("an answer to another question")},
        {key_of(ASKED): ElicitResult(action="accept", content={"x": 1})},
    ],
    ids=["missing", "another key", "not a sampled message"],
)
async def test_without_an_answer_of_its_own_the_question_fails(answers: InputResponses) -> None:
    with pytest.raises(HostModelError):
        await AnsweredModel(answers, late=False).ask(ASKED.system, ASKED.prompt, ASKED.max_tokens)


async def test_answers_that_came_late_are_not_used() -> None:
    with pytest.raises(TimeoutError):
        await AnsweredModel({key_of(ASKED): said("yes")}, late=True).ask(ASKED.system, ASKED.prompt, 400)
