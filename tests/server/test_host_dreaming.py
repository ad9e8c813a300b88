"""A host without MCP sampling dreams through ordinary tools: it lists the candidate links, writes
dreams in its own words (with a statement the person could confirm), rewords them and judges
candidates empty. A real MCP client that offers no sampling, against the real Neo4j and model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp_types import Implementation

from graph.access import ConnectionSettings
from graph.dreams.host import TEXT_LIMITS
from server.app import build_server
from tests.server.conftest import error_text, settings_for, structured
from tests.server.support import MEMORIES, claim_of, database, dream_words, first_dream, remember_all

pytestmark = pytest.mark.anyio

HOST_NAME = "test-host"
SARAMAGO_READ, SARAMAGO_TUTOR = MEMORIES[10], MEMORIES[7]
HERBERT_BAKING, HERBERT_FEEDING = MEMORIES[2], MEMORIES[3]


@dataclass
class Host:
    """An MCP client without sampling, named `HOST_NAME`."""

    client: Client

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        return structured(await self.client.call_tool(name, arguments))

    async def refused(self, name: str, **arguments: Any) -> str:
        return error_text(await self.client.call_tool(name, arguments))

    async def dream_count(self) -> int:
        return sum((await self.call("dreaming_status"))["counts"].values())


async def connect(settings: ConnectionSettings, profile_id: str, mode: ConnectMode) -> Client:
    server = build_server(settings_for(settings, profile_id), "stdio")
    return Client(server, client_info=Implementation(name=HOST_NAME, version="1"), mode=mode)


@pytest.fixture(params=["legacy", "auto"])
async def host(
    request: pytest.FixtureRequest, neo4j_settings: ConnectionSettings, profile_id: str
) -> AsyncIterator[Host]:
    """The handshake-era protocol, and 2026-07-28 (client info in each request's `_meta`)."""
    async with await connect(neo4j_settings, profile_id, request.param) as client:
        yield Host(client)


async def remembered(host: Host) -> dict[str, str]:
    """Every shared memory's text and its fragment id."""
    ids = await remember_all(host.call)
    return dict(zip(MEMORIES, ids, strict=True))


async def test_a_host_without_sampling_lists_candidates_then_writes_a_dream_in_its_own_dream_words(
    host: Host,
) -> None:
    await remembered(host)
    listed = (await host.call("list_dream_candidates", limit=5))["candidates"]
    assert await host.dream_count() == 0  # listing wrote nothing
    assert listed and all(len(c["memories"]) == 2 and c["why"] and c["link_score"] > 0 for c in listed)
    chosen = listed[0]
    assert {m["id"] for m in chosen["memories"]} == set(chosen["source_ids"])
    assert all(m["text"] in MEMORIES and m["occurred_at"] for m in chosen["memories"])

    statement = claim_of("likes", chosen["shared_terms"][0] if chosen["shared_terms"] else "it")
    written = await host.call(
        "write_dream", source_ids=chosen["source_ids"], statement=statement, **dream_words("this thread")
    )

    assert written["outcome"] == "written" and written["generator"] == f"host:{HOST_NAME}"
    assert abs(written["likelihood"] - chosen["likelihood"]) < 0.05  # the evidence's, as listed
    dream = await host.call("get_dream", dream_id=written["dream_id"])
    assert dream["hypothesis"] == dream_words("this thread")["hypothesis"]
    assert dream["generator"] == f"host:{HOST_NAME}" and dream["status"] == "proposed"
    assert {s["id"] for s in dream["sources"]} == set(chosen["source_ids"])
    assert dream["statement"]["predicate"] == "likes" and dream["statement"]["object"] == statement["object"]
    assert (dream["likelihood"], dream["confidence"]) == (written["likelihood"], written["confidence"])
    assert f"Worded by host:{HOST_NAME}" in dream["rationale"]
    again = (await host.call("list_dream_candidates", limit=5))["candidates"]
    assert set(chosen["source_ids"]) not in [set(c["source_ids"]) for c in again]
    assert await host.dream_count() == 1


async def test_a_yes_alone_promotes_with_the_stored_statement_through_the_gates(host: Host) -> None:
    ids = await remembered(host)
    supported = claim_of("likes", "Saramago", supported_by=[ids[SARAMAGO_READ]])
    saramago = await host.call(
        "write_dream",
        source_ids=[ids[SARAMAGO_TUTOR], ids[SARAMAGO_READ]],
        statement=supported,
        **dream_words("Saramago"),
    )
    unsupported = await host.call(
        "write_dream",
        source_ids=[ids[HERBERT_BAKING], ids[HERBERT_FEEDING]],
        statement=claim_of("uses", "rye flour"),
        **dream_words("Herbert"),
    )

    promoted = await host.call(
        "resolve_dream_feedback", dream_id=saramago["dream_id"], decision="promote_candidate", feedback="yes"
    )
    weak = await host.call(
        "resolve_dream_feedback",
        dream_id=unsupported["dream_id"],
        decision="promote_candidate",
        feedback="yes",
    )

    report = promoted["promotion"]
    assert report["used_statement"] is True and promoted["dream"]["status"] == "promoted"
    [claim] = report["claims"]
    assert (claim["predicate"], claim["object"], claim["verdict"]) == ("likes", "Saramago", "entailed")
    assert report["outcome"] == "promoted" and claim["fact"] is not None
    # "yes" says nothing of rye flour, and no memory the statement rests on does: not a fact.
    assert weak["promotion"]["used_statement"] is True
    assert weak["promotion"]["outcome"] == "not_promoted"
    assert weak["promotion"]["claims"][0]["verdict"] != "entailed"
    assert weak["promotion"]["claims"][0]["fact"] is None


async def test_the_same_pair_twice_and_bad_citations_are_refused_and_change_nothing(host: Host) -> None:
    ids = await remembered(host)
    first, second, third = ids[SARAMAGO_TUTOR], ids[SARAMAGO_READ], ids[MEMORIES[6]]
    await host.call("write_dream", source_ids=[first, second], **dream_words("Saramago"))
    claimed = await host.call(
        "remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")]
    )
    retracted = ids[MEMORIES[0]]
    await host.call("retract_memory", id=retracted, reason="said in jest")
    forgotten = ids[MEMORIES[1]]
    await host.call("forget_memory", ids=[forgotten])

    refusals = [
        ("already links", [second, first]),
        ("already links", [first, second, third]),
        ("no memory of this profile", [first, "no-such-memory"]),
        ("is a claim", [first, claimed["claims"][0]["claim_id"]]),
        ("retracted", [first, retracted]),
        ("forgotten", [first, forgotten]),
        ("more than once", [third, third]),
        ("2 to 4", [third]),
    ]
    for expected, source_ids in refusals:
        text = await host.refused("write_dream", source_ids=source_ids, **dream_words("anything"))
        assert expected in text and "othing was written" in text, (expected, text)
    incomplete = await host.refused("write_dream", source_ids=[third, ids[MEMORIES[5]]], hypothesis="A link?")
    assert "why" in incomplete
    outside = claim_of("likes", "novels", supported_by=[ids[MEMORIES[5]]])
    text = await host.refused(
        "write_dream", source_ids=[third, ids[MEMORIES[4]]], statement=outside, **dream_words("x")
    )
    assert "supported_by" in text
    # A statement no promotion could ever store is refused when it is written, not when promoted.
    for statement, expected in (
        (claim_of("owns_bank", "Acme Corp"), "Predicate 'owns_bank' is not supported"),
        (claim_of("born_on", "not a date"), "is not a date"),
        # Its evidence will be the person's words when they confirm it, which do not exist yet.
        (claim_of("likes", "novels", evidence="loved it"), "statement.evidence is not taken"),
    ):
        text = await host.refused(
            "write_dream", source_ids=[third, ids[MEMORIES[4]]], statement=statement, **dream_words("x")
        )
        assert expected in text, text
    assert await host.dream_count() == 1


async def test_each_text_of_write_dream_states_the_limit_the_server_applies(host: Host) -> None:
    [tool] = [tool for tool in (await host.client.list_tools()).tools if tool.name == "write_dream"]
    properties = tool.input_schema["properties"]
    stated = {name: properties[name]["maxLength"] for name in TEXT_LIMITS}
    assert stated == TEXT_LIMITS
    ids = await remembered(host)
    text = await host.refused(
        "write_dream",
        source_ids=[ids[SARAMAGO_TUTOR], ids[SARAMAGO_READ]],
        **(dream_words("Saramago") | {"why": "x" * (TEXT_LIMITS["why"] + 1)}),
    )
    assert "why" in text and await host.dream_count() == 0


async def test_a_pair_judged_empty_is_never_listed_nor_dreamed_by_the_cycle_again(host: Host) -> None:
    await remembered(host)
    [candidate] = (await host.call("list_dream_candidates", limit=1))["candidates"]
    pair = set(candidate["source_ids"])

    def drafted(run: dict[str, Any]) -> list[set[str]]:
        return [set(draft["source_ids"]) for draft in run["would_create"]]

    assert pair in drafted(await host.call("run_dreaming_cycle", max_outputs=1, dry_run=True))
    judged = await host.call("write_dream", source_ids=candidate["source_ids"], verdict="empty")
    assert judged == {
        "outcome": "judged_empty",
        "dream_id": None,
        "generator": f"host:{HOST_NAME}",
        "likelihood": None,
        "confidence": None,
    }

    listed = (await host.call("list_dream_candidates", limit=20))["candidates"]
    assert pair not in [set(c["source_ids"]) for c in listed]
    assert pair not in drafted(await host.call("run_dreaming_cycle", max_outputs=20, dry_run=True))
    run = await host.call("run_dreaming_cycle", max_outputs=20)
    for dream_id in next(p for p in run["phases"] if p["phase"] == "dream")["dream_ids"]:
        dream = await host.call("get_dream", dream_id=dream_id)
        assert {s["id"] for s in dream["sources"]} != pair
    assert "judged empty" in await host.refused("write_dream", source_ids=list(pair), **dream_words("x"))
    assert "judged empty" in await host.refused("write_dream", source_ids=list(pair), verdict="empty")
    with_words = await host.refused("write_dream", source_ids=list(pair), verdict="empty", hypothesis="Hm.")
    assert "only the two source_ids" in with_words


async def test_rewording_keeps_the_earlier_words_and_their_writer_in_history(host: Host) -> None:
    await remembered(host)
    dream = await first_dream(host.call)
    assert dream["generator"] == "links-v3"

    reworded = await host.call("write_dream", dream_id=dream["id"], hypothesis="A plainer question?")
    await host.call("write_dream", dream_id=dream["id"], why="Said twice, weeks apart.")

    assert reworded["outcome"] == "reworded" and reworded["likelihood"] == dream["likelihood"]
    now = await host.call("get_dream", dream_id=dream["id"])
    assert (now["hypothesis"], now["why"]) == ("A plainer question?", "Said twice, weeks apart.")
    assert now["what_if"] == dream["what_if"] and now["generator"] == f"host:{HOST_NAME}"
    first, second = now["revisions"]
    assert (first["generator"], first["hypothesis"], first["why"]) == (
        "links-v3",
        dream["hypothesis"],
        dream["why"],
    )
    assert (second["generator"], second["hypothesis"]) == (f"host:{HOST_NAME}", "A plainer question?")
    mixed = await host.refused("write_dream", dream_id=dream["id"], source_ids=["a", "b"], why="x")
    assert "without source_ids" in mixed
    await host.call("resolve_dream_feedback", dream_id=dream["id"], decision="reject")
    final = await host.refused("write_dream", dream_id=dream["id"], hypothesis="Again?")
    assert "only open dreams" in final
    assert len((await host.call("get_dream", dream_id=dream["id"]))["revisions"]) == 2


async def test_another_profiles_memories_and_dreams_are_out_of_reach(
    host: Host, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    ids = await remembered(host)
    mine = await host.call(
        "write_dream", source_ids=[ids[SARAMAGO_TUTOR], ids[SARAMAGO_READ]], **dream_words("x")
    )
    async with await connect(neo4j_settings, profile_id + "-other", "legacy") as client:
        stranger = Host(client)
        own = [(await stranger.call("remember", content=text))["fragment"]["id"] for text in MEMORIES[:4]]
        text = await stranger.refused(
            "write_dream", source_ids=[own[0], ids[MEMORIES[5]]], **dream_words("x")
        )
        assert "no memory of this profile" in text
        empty = await stranger.refused("write_dream", source_ids=[own[0], ids[MEMORIES[5]]], verdict="empty")
        assert "no memory of this profile" in empty
        reword = await stranger.refused("write_dream", dream_id=mine["dream_id"], hypothesis="Mine now?")
        assert "No dream" in reword
        listed = (await stranger.call("list_dream_candidates", limit=20))["candidates"]
        assert {m for c in listed for m in c["source_ids"]} <= set(own)
        assert await stranger.dream_count() == 0
    kept = await host.call("get_dream", dream_id=mine["dream_id"])
    assert kept["revisions"] == [] and kept["hypothesis"] == dream_words("x")["hypothesis"]


async def test_forgetting_a_cited_memory_erases_the_host_dreams_words_statement_and_history(
    host: Host, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    ids = await remembered(host)
    secret = "Quetzalbread"
    written = await host.call(
        "write_dream",
        source_ids=[ids[HERBERT_BAKING], ids[HERBERT_FEEDING]],
        statement=claim_of("has_goal", f"bake {secret}", supported_by=[ids[HERBERT_BAKING]]),
        **dream_words(secret),
    )
    await host.call("write_dream", dream_id=written["dream_id"], hypothesis=f"Is {secret} the point?")

    forgotten = await host.call("forget_memory", ids=[ids[HERBERT_FEEDING]])

    assert forgotten["dreams_erased"] == [written["dream_id"]]
    dream = await host.call("get_dream", dream_id=written["dream_id"])
    assert dream["statement"] is None and dream["revisions"] == [] and dream["status"] == "stale"
    assert secret not in dream["hypothesis"] and dream["generator"] == f"host:{HOST_NAME}"
    rows = await database(
        neo4j_settings,
        "MATCH (n) WHERE n.profile_id = $profile_id RETURN labels(n) AS labels, properties(n) AS props",
        profile_id=profile_id,
    )
    assert not [row for row in rows if secret in str(row["props"])]
    assert not [row for row in rows if "DreamRevision" in row["labels"]]
