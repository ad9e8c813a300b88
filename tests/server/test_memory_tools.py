"""The memory pipeline as a host drives it, through the MCP client against the real Neo4j."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from graph.memory.predicates import PREDICATE_RULES
from tests.server.conftest import CallTool, error_text, structured
from tests.server.support import claim_of, works_at

pytestmark = pytest.mark.anyio


async def first_claim(call: CallTool, content: str, *claims: dict[str, object]) -> dict[str, Any]:
    stored = await call("remember", content=content, claims=list(claims))
    return dict(stored["claims"][0])


async def health(call: CallTool) -> dict[str, int]:
    reflection = await call("reflect_memories", limit=100)
    return dict(reflection["counts"])


def ids_of(found: dict[str, Any], kind: str) -> list[str]:
    return [item["id"] for item in found["results"] if item["kind"] == kind]


async def test_remember_promotes_a_gate_passing_claim_and_recall_finds_it(call: CallTool) -> None:
    stored = await call(
        "remember",
        content="I work at Acme Robotics as a firmware engineer.",
        claims=[works_at("Acme Robotics")],
    )
    assert stored["fragment"]["created"] is True
    [claim] = stored["claims"]
    assert claim["verdict"] == "entailed"
    assert claim["outcome"] == "promoted"
    assert claim["fact"]["object"] == "Acme Robotics"

    found = await call("recall_memory", query="where does the user work? Acme", include_evidence=True)
    kinds = {item["kind"] for item in found["results"]}
    assert {"fact", "fragment"} <= kinds
    fact = next(item for item in found["results"] if item["kind"] == "fact")
    assert fact["id"] == claim["fact"]["id"]
    assert fact["evidence"][0]["text"].startswith("I work at Acme")
    assert found["related_dreams"] == []


# --- dedupe --------------------------------------------------------------------------------


async def test_remember_deduplicates_by_key_then_by_content(client: Client, call: CallTool) -> None:
    first = await call("remember", content="I love jazz records.", idempotency_key="chat-7#1")

    retried = await call("remember", content="I love jazz records. ", idempotency_key="chat-7#1")
    conflict = await client.call_tool(
        "remember", {"content": "A retry with other words.", "idempotency_key": "chat-7#1"}
    )
    restated = await call("remember", content="  i LOVE jazz   records. ")

    assert "already used for different content" in error_text(conflict)
    assert (retried["fragment"]["duplicate_by"], retried["fragment"]["id"]) == (
        "idempotency_key",
        first["fragment"]["id"],
    )
    assert (restated["fragment"]["duplicate_by"], restated["fragment"]["id"]) == (
        "content_hash",
        first["fragment"]["id"],
    )
    assert ids_of(await call("recall_memory", query="jazz records"), "fragment") == [first["fragment"]["id"]]
    assert (await call("recall_memory", query="retry other words"))["results"] == []

    await call("retract_memory", id=first["fragment"]["id"], reason="duplicate import")
    fresh = await call("remember", content="I love jazz records.")
    assert fresh["fragment"]["created"] is True
    assert ids_of(await call("recall_memory", query="jazz records"), "fragment") == [fresh["fragment"]["id"]]


async def test_concurrent_identical_remembers_store_one_fragment(call: CallTool) -> None:
    results = await asyncio.gather(*(call("remember", content="My cat is called Miso.") for _ in range(5)))

    assert len({result["fragment"]["id"] for result in results}) == 1
    assert sum(result["fragment"]["created"] for result in results) == 1
    assert len(ids_of(await call("recall_memory", query="cat Miso"), "fragment")) == 1


# --- gates and verification ----------------------------------------------------------------


async def test_gates_are_named_and_a_second_secondary_source_promotes(call: CallTool) -> None:
    letter = await call(
        "remember",
        content="HR letter: I work at Acme Corp.",
        authority="secondary",
        claims=[works_at("Acme Corp")],
    )
    [gated] = letter["claims"]
    assert (gated["outcome"], gated["failed_gates"]) == ("gate_rejected", ["evidence"])

    payslip = await call(
        "remember",
        content="Payslip: my employer Acme Corp paid me.",
        authority="secondary",
        claims=[works_at("Acme Corp")],
    )
    [promoted] = payslip["claims"]
    assert promoted["claim_id"] == gated["claim_id"]
    assert promoted["outcome"] == "promoted"

    unsure = await call(
        "remember", content="I work at Beta Labs, I think.", claims=[works_at("Beta Labs", extract=0.5)]
    )
    assert unsure["claims"][0]["failed_gates"] == ["extract_confidence"]
    plan = await call(
        "remember",
        content="I plan to work at Gamma Inc.",
        claims=[{**works_at("Gamma Inc"), "modality": "plan"}],
    )
    assert plan["claims"][0]["failed_gates"] == ["modality"]
    facts = ids_of(await call("recall_memory", query="Acme Beta Gamma"), "fact")
    assert facts == [promoted["fact"]["id"]]


async def test_verification_outcomes_reach_the_host(call: CallTool) -> None:
    absent = await call("remember", content="I work at a bakery.", claims=[works_at("Globex")])
    negated = await call("remember", content="I no longer work at Acme Corp.", claims=[works_at("Acme Corp")])

    assert (absent["claims"][0]["verdict"], absent["claims"][0]["status"]) == ("insufficient", "candidate")
    assert absent["claims"][0]["outcome"] == "not_validated"
    assert (negated["claims"][0]["verdict"], negated["claims"][0]["status"]) == ("contradicted", "disputed")
    counts = await health(call)
    assert (counts["candidate_claims"], counts["disputed_claims"]) == (1, 1)
    assert ids_of(await call("recall_memory", query="Globex Acme"), "fact") == []


async def test_an_unsupported_predicate_is_refused_and_stores_nothing(client: Client, call: CallTool) -> None:
    result = await client.call_tool(
        "remember",
        {
            "content": "I work at Acme Corp and live in Paris.",
            "claims": [works_at("Acme Corp"), claim_of("lives_in", "Paris")],
        },
    )

    message = error_text(result)
    assert "'lives_in' is not supported" in message
    assert "works_at" in message and "likes" in message
    assert (await call("recall_memory", query="Acme Paris"))["results"] == []
    assert set((await health(call)).values()) == {0}


# --- conflicts -----------------------------------------------------------------------------


async def test_a_tie_asks_the_person_and_their_answer_supersedes_the_old_fact(call: CallTool) -> None:
    acme = await first_claim(call, "I work at Acme Corp.", works_at("Acme Corp"))
    beta = await first_claim(call, "I work at Beta Labs.", works_at("Beta Labs"))
    assert beta["outcome"] == "clarification_required"
    question = beta["clarification"]
    assert beta["claim_id"] in question["question"]

    found = await call("recall_memory", query="work Acme")
    assert acme["fact"]["id"] in ids_of(found, "fact")
    assert [c["id"] for c in found["clarifications"]] == [question["id"]]

    answer = await call("confirm_memory", claim_id=beta["claim_id"], decision="accept_claim")

    assert answer["resolved_clarification_id"] == question["id"]
    assert answer["claim"]["superseded_fact_id"] == acme["fact"]["id"]
    now = await call("recall_memory", query="work Acme Beta")
    assert ids_of(now, "fact") == [answer["claim"]["fact"]["id"]]
    assert now["clarifications"] == []
    before = await call("recall_memory", query="work Acme Beta", known_at=acme["fact"]["recorded_at"])
    assert ids_of(before, "fact") == [acme["fact"]["id"]]


async def test_keep_existing_and_a_final_claim_refuses_further_answers(
    client: Client, call: CallTool
) -> None:
    acme = await first_claim(call, "I work at Acme Corp.", works_at("Acme Corp"))
    beta = await first_claim(call, "I work at Beta Labs.", works_at("Beta Labs"))

    kept = await call("confirm_memory", claim_id=beta["claim_id"], decision="keep_existing")
    assert kept["claim"]["status"] == "rejected"
    again = await client.call_tool(
        "confirm_memory", {"claim_id": beta["claim_id"], "decision": "accept_claim"}
    )

    message = error_text(again)
    assert "is rejected" in message and "Nothing was changed" in message
    assert ids_of(await call("recall_memory", query="work Acme Beta"), "fact") == [acme["fact"]["id"]]
    assert (await health(call))["open_clarifications"] == 0


# --- retraction ----------------------------------------------------------------------------


async def test_retract_flags_facts_and_hides_what_it_withdraws(client: Client, call: CallTool) -> None:
    stored = await call("remember", content="I work at Acme Corp.", claims=[works_at("Acme Corp")])
    [promoted] = stored["claims"]

    retracted = await call("retract_memory", id=stored["fragment"]["id"], reason="wrong person")

    assert retracted["unsupported_claim_ids"] == [promoted["claim_id"]]
    assert retracted["facts_needing_revalidation"] == [promoted["fact"]["id"]]
    reflection = await call("reflect_memories")
    assert [fact["id"] for fact in reflection["stale_facts"]] == [promoted["fact"]["id"]]
    assert (await call("recall_memory", query="Acme Corp"))["results"] == []
    twice = await call("retract_memory", id=stored["fragment"]["id"], reason="wrong person")
    assert twice["already_retracted"] is True
    assert "No fragment or fact with id 'nope'" in error_text(
        await client.call_tool("retract_memory", {"id": "nope", "reason": "cleanup"})
    )

    likes = await call("remember", content="I love jazz records.", claims=[claim_of("likes", "jazz records")])
    fact_id = likes["claims"][0]["fact"]["id"]
    assert fact_id in ids_of(await call("recall_memory", query="jazz"), "fact")
    assert (await call("retract_memory", id=fact_id, reason="changed their mind"))["kind"] == "fact"
    assert ids_of(await call("recall_memory", query="jazz"), "fact") == []


# --- limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("remember", {"content": "zebra " * 1333 + "zeb"}, "8001 characters; the limit is 8000"),
        ("remember", {"content": "zebra stripes", "labels": [f"tag{i}" for i in range(21)]}, "at most 20"),
        ("remember", {"content": "zebra stripes", "labels": ["x" * 65]}, "each 1 to 64 characters"),
        ("remember", {"content": "zebra stripes", "labels": [""]}, "each 1 to 64 characters"),
        ("remember", {"content": "   "}, "content is empty"),
        ("recall_memory", {"query": "zebra " * 85 + "zeb"}, "513 characters; the limit is 512"),
        ("recall_memory", {"query": "zebra", "limit": 0}, "greater than or equal to 1"),
        ("recall_memory", {"query": "zebra", "limit": 51}, "less than or equal to 50"),
        ("reflect_memories", {"limit": 101}, "less than or equal to 100"),
        ("reflect_memories", {"limit": 0}, "greater than or equal to 1"),
    ],
)
async def test_out_of_range_input_is_a_clear_tool_error_and_changes_nothing(
    client: Client, call: CallTool, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    await call("remember", content="I love jazz records.")
    before = (await health(call), await call("recall_memory", query="jazz zebra", limit=50))

    message = error_text(await client.call_tool(tool, arguments))

    assert expected in message
    assert "internal error" not in message
    assert (await health(call), await call("recall_memory", query="jazz zebra", limit=50)) == before
    assert (await call("recall_memory", query="zebra stripes"))["results"] == []


async def test_input_at_the_limits_is_accepted(call: CallTool) -> None:
    content = ("zebra " * 1334)[:8000]
    stored = await call("remember", content=content, labels=["x" * 64] * 20)
    assert stored["fragment"]["created"] is True
    found = await call("recall_memory", query=("zebra " * 86)[:512], limit=50)
    assert ids_of(found, "fragment") == [stored["fragment"]["id"]]
    assert len((await call("recall_memory", query="zebra", limit=1))["results"]) == 1


# --- fulltext safety -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced jazz',
        "foo~ bar* [x TO y] {a} (b) ^2 \\ / : ! && || jazz",
        "jazz~2",
        "jazz^10",
        "+jazz -records",
        "title:jazz OR text:*",
        "(jazz AND",
        "j?zz* OR jazz*",
        "status:retracted jazz",
        "jazz\u0000records\u200b",
        "Jäzz ジャズ 爵士 jazz",
    ],
)
async def test_lucene_syntax_in_a_query_is_only_ever_words(call: CallTool, query: str) -> None:
    stored = await call("remember", content="I love jazz records.")

    found = await call("recall_memory", query=query)

    assert ids_of(found, "fragment") == [stored["fragment"]["id"]]


@pytest.mark.parametrize("query", ["AND OR NOT", "!!! ??? ...", "\\ / : ^ ~ * ? && ||", "the", "  "])
async def test_a_query_without_topic_words_is_a_clear_error(
    client: Client, call: CallTool, query: str
) -> None:
    await call("remember", content="I love jazz records.")

    message = error_text(await client.call_tool("recall_memory", {"query": query}))

    assert "no searchable words" in message


async def test_a_query_naming_another_profiles_key_finds_nothing_of_theirs(
    call: CallTool, other_client: Client
) -> None:
    await call("remember", content="I love jazz records.")
    other = structured(await other_client.call_tool("remember", {"content": "I love jazz festivals."}))

    found = await call("recall_memory", query="jazz profile_key:* OR status:active festivals")

    assert other["fragment"]["id"] not in ids_of(found, "fragment")
    assert all("festivals" not in item["text"] for item in found["results"])


# --- isolation -----------------------------------------------------------------------------


async def test_another_profile_sees_none_of_this_ones_memory(call: CallTool, other_client: Client) -> None:
    acme = await call("remember", content="I work at Acme Corp.", claims=[works_at("Acme Corp")])
    beta = await first_claim(call, "I work at Beta Labs.", works_at("Beta Labs"))
    assert (await call("recall_memory", query="work Acme Beta"))["clarifications"]

    async def theirs(tool: str, **arguments: Any) -> CallToolResult:
        return await other_client.call_tool(tool, arguments)

    found = structured(await theirs("recall_memory", query="work Acme Beta"))
    assert (found["results"], found["clarifications"]) == ([], [])
    assert set(structured(await theirs("reflect_memories"))["counts"].values()) == {0}
    assert "No claim with id" in error_text(
        await theirs("confirm_memory", claim_id=beta["claim_id"], decision="accept_claim")
    )
    assert "No fragment or fact" in error_text(
        await theirs("retract_memory", id=acme["fragment"]["id"], reason="x")
    )
    assert "No fragment or fact" in error_text(
        await theirs("retract_memory", id=acme["claims"][0]["fact"]["id"], reason="x")
    )
    assert (await health(call))["open_clarifications"] == 1
    assert ids_of(await call("recall_memory", query="Acme"), "fact") == [acme["claims"][0]["fact"]["id"]]


# --- validity ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("valid_from", "valid_to"),
    [("2020-03-01T00:00:00Z", "2023-06-30T00:00:00+00:00"), ("2020-03-01T00:00:00", "2023-06-30")],
)
async def test_valid_at_finds_a_fact_only_inside_its_window(
    call: CallTool, valid_from: str, valid_to: str
) -> None:
    stored = await call(
        "remember",
        content="I work at Acme Corp.",
        claims=[works_at("Acme Corp") | {"valid_from": valid_from, "valid_to": valid_to}],
    )
    fact_id = stored["claims"][0]["fact"]["id"]

    for inside in ("2020-03-01T00:00:00Z", "2021-07-01T12:00:00+02:00", "2023-06-29T23:59:59"):
        assert ids_of(await call("recall_memory", query="Acme", valid_at=inside), "fact") == [fact_id], inside
    for outside in ("2020-02-29T23:59:59Z", "2023-06-30T00:00:00Z", "2025-01-01T00:00:00"):
        assert ids_of(await call("recall_memory", query="Acme", valid_at=outside), "fact") == [], outside


async def test_the_tool_list_names_every_supported_predicate(client: Client) -> None:
    remember_tool = next(tool for tool in (await client.list_tools()).tools if tool.name == "remember")
    claim = remember_tool.input_schema["properties"]["claims"]["items"]["properties"]["predicate"]
    assert claim["enum"] == sorted(PREDICATE_RULES) and "works_at" in claim["enum"]
