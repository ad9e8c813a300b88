"""The prompts a host shows as menu entries: they list, render with and without arguments, and
every tool call their text spells out names a listed tool and arguments that tool takes."""

from __future__ import annotations

import logging
import re

import pytest
from mcp import Client, MCPError
from mcp_types import INVALID_PARAMS

pytestmark = pytest.mark.anyio

# A call as the prompts spell it: list_dreams(status="proposed", limit=5).
CALL = re.compile(r"\b([a-z_]+)\(([^()]*)\)")
ARGUMENT = re.compile(r"\b([a-z_]+)=")


async def rendered(client: Client, name: str, arguments: dict[str, str] | None = None) -> str:
    result = await client.get_prompt(name, arguments)
    [message] = result.messages
    assert message.role == "user"
    return message.content.text  # type: ignore[union-attr]


async def test_the_prompts_are_listed_with_their_arguments(client: Client) -> None:
    prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
    assert set(prompts) == {"review_dreams", "dream_now"}
    assert {argument.name for argument in prompts["review_dreams"].arguments or []} == {"status", "count"}
    assert {argument.name for argument in prompts["dream_now"].arguments or []} == {"count"}
    assert all(prompt.description and prompt.title for prompt in prompts.values())
    assert not any(argument.required for prompt in prompts.values() for argument in prompt.arguments or [])


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("review_dreams", None, ['list_dreams(status="proposed", limit=5)', "resolve_dream_feedback("]),
        ("review_dreams", {"status": "stale", "count": "3"}, ['list_dreams(status="stale", limit=3)']),
        # One rule with the finder's: a thing said twice is a duplicate, not an empty pair (issue 44).
        ("dream_now", None, ["list_dream_candidates(limit=5)", 'verdict="empty"', "statement=", "duplicate"]),
        ("dream_now", {"count": "12"}, ["list_dream_candidates(limit=12)"]),
    ],
)
async def test_a_prompt_names_only_tools_and_arguments_that_exist(
    client: Client, name: str, arguments: dict[str, str] | None, expected: list[str]
) -> None:
    tools = {tool.name: set(tool.input_schema["properties"]) for tool in (await client.list_tools()).tools}
    text = await rendered(client, name, arguments)

    assert all(phrase in text for phrase in expected), text
    assert "ask" in text.lower() and "person" in text
    calls = CALL.findall(text)
    assert len(calls) >= 3
    for tool, spelled in calls:
        assert tool in tools, f"{name} names {tool}, which tools/list does not hold"
        assert set(ARGUMENT.findall(spelled)) <= tools[tool], (tool, spelled)


async def test_an_unknown_prompt_or_argument_is_refused_naming_what_exists(client: Client) -> None:
    with pytest.raises(MCPError) as unknown:
        await client.get_prompt("dream_later")
    assert "review_dreams" in str(unknown.value) and "dream_now" in str(unknown.value)
    with pytest.raises(MCPError) as bad_count:
        await client.get_prompt("dream_now", {"count": "lots"})
    assert "1 to 20" in str(bad_count.value)
    with pytest.raises(MCPError) as bad_status:
        await client.get_prompt("review_dreams", {"status": "dreamy"})
    assert "proposed" in str(bad_status.value)


@pytest.mark.parametrize(("name", "argument"), [("review_dreams", "colour"), ("dream_now", "status")])
async def test_an_argument_the_prompt_does_not_take_is_invalid_params_naming_it(
    client: Client, caplog: pytest.LogCaptureFixture, name: str, argument: str
) -> None:
    with pytest.raises(MCPError) as refused:
        await client.get_prompt(name, {argument: "x", "count": "3"})
    assert refused.value.error.code == INVALID_PARAMS
    assert repr(argument) in refused.value.error.message and "count" in refused.value.error.message
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.levelno >= logging.ERROR]
