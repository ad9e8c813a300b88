"""forget_memory as a host drives it: the words go from the whole database, checked there."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings
from server.app import build_server
from tests.scripted_endpoint import Received, Reply, completion, scripted_endpoint
from tests.server.conftest import CallTool, caller, error_text, settings_for, structured
from tests.server.support import MEMORIES, claim_of, database, promote
from tests.server.test_dream_endpoint import endpoint_settings
from tests.server.test_dream_sampling import judged

pytestmark = pytest.mark.anyio

# Every string property (and string list) of every node and relationship in the database that
# holds `word`, whatever its profile or label: read with the plain driver on purpose.
WORD_ANYWHERE = """
CALL () {
    MATCH (n) UNWIND keys(n) AS key RETURN labels(n) AS owner, key, n[key] AS value
  UNION ALL
    MATCH ()-[r]->() UNWIND keys(r) AS key RETURN [type(r)] AS owner, key, r[key] AS value
}
WITH owner, key, CASE WHEN value IS :: STRING THEN [value]
                      WHEN value IS :: LIST<STRING NOT NULL> THEN value ELSE [] END AS texts
WHERE any(text IN texts WHERE toLower(text) CONTAINS $word)
RETURN owner, key
"""
NODE_BY_ID = "MATCH (n {profile_id: $profile_id, id: $id}) RETURN labels(n) AS labels, properties(n) AS props"


def marker() -> str:
    """A word no other test writes, so a search of the whole database finds only this test's."""
    return "Quorvex" + uuid.uuid4().hex[:6]


async def dream_citing(call: CallTool, fragment_id: str) -> dict[str, Any]:
    run = await call("run_dreaming_cycle", max_outputs=20)
    dream_ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
    for dream_id in dream_ids:
        dream = await call("get_dream", dream_id=dream_id)
        if fragment_id in [source["id"] for source in dream["sources"]]:
            return dream
    raise AssertionError(f"no dream of {len(dream_ids)} cites {fragment_id}")


async def test_forgetting_leaves_the_words_nowhere_in_the_database(
    client: Client, call: CallTool, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    word = marker()
    said = f"I love training with coach {word} for the Lisbon marathon, long runs on Sundays."
    stored = await call(
        "remember", content=said, idempotency_key="chat-7", claims=[claim_of("likes", f"coach {word}")]
    )
    fragment_id = stored["fragment"]["id"]
    for text in MEMORIES:
        await call("remember", content=text)
    dream = await dream_citing(call, fragment_id)
    words = f"Yes, I love how coach {word} sent me to the physio about my knee."
    promoted = await promote(call, dream["id"], words, claim_of("likes", f"coach {word}"))
    confirmation_id = promoted["promotion"]["fragment_id"]
    found_before = await database(neo4j_settings, WORD_ANYWHERE, word=word.lower())
    assert {row["key"] for row in found_before} >= {"text", "object", "feedback"}  # the check can see them

    result = await call("forget_memory", ids=[fragment_id], reason="asked in chat")

    assert result["forgotten"] == [{"id": fragment_id, "kind": "fragment", "already_forgotten": False}]
    cascaded = {(item["kind"], item["id"]) for item in result["cascaded"]}
    assert ("fragment", confirmation_id) in cascaded
    assert {kind for kind, _ in cascaded} == {"fragment", "claim", "fact"}
    assert dream["id"] in result["dreams_erased"]
    assert await database(neo4j_settings, WORD_ANYWHERE, word=word.lower()) == []
    [tombstone] = await database(neo4j_settings, NODE_BY_ID, profile_id=profile_id, id=fragment_id)
    assert tombstone["labels"] == ["Forgotten"]
    assert set(tombstone["props"]) == {
        "profile_id", "id", "kind", "status", "idempotency_key", "forgotten_at", "reason"
    }  # fmt: skip
    recalled = await call("recall_memory", query=f"coach {word} marathon")
    gone = {fragment_id, confirmation_id} | {item_id for _, item_id in cascaded}
    assert recalled["results"] and not gone & {item["id"] for item in recalled["results"]}
    assert word not in str(recalled["results"]) + str(recalled["related_dreams"])
    assert dream["id"] not in str(recalled["related_dreams"])
    erased = await call("get_dream", dream_id=dream["id"])
    assert erased["status"] == "promoted" and erased["rationale"] == "" and "erased" in erased["hypothesis"]
    assert {source["kind"] for source in erased["sources"]} >= {"forgotten"}
    assert [entry["feedback"] for entry in erased["feedback"]] == [None]
    [stored_dream] = await database(neo4j_settings, NODE_BY_ID, profile_id=profile_id, id=dream["id"])
    assert not {"embedding", "embedding_model", "text", "why", "shared_terms"} & set(stored_dream["props"])
    replay = await client.call_tool("remember", {"content": said, "idempotency_key": "chat-7"})
    assert "asked to forget" in error_text(replay)
    again = await call("forget_memory", ids=[fragment_id])
    assert again["forgotten"][0]["already_forgotten"] is True and again["cascaded"] == []


async def test_open_dreams_citing_a_forgotten_memory_become_stale_without_their_texts(
    call: CallTool, neo4j_settings: ConnectionSettings
) -> None:
    word = marker()
    said = f"My sister Ana and I restore tiled buildings in Lisbon with {word} glaze."
    fragment_id = (await call("remember", content=said))["fragment"]["id"]
    for text in MEMORIES:
        await call("remember", content=text)
    dream = await dream_citing(call, fragment_id)
    assert dream["status"] == "proposed"

    result = await call("forget_memory", ids=[fragment_id])

    erased = await call("get_dream", dream_id=dream["id"])
    assert erased["status"] == "stale" and erased["stale_reason"] == "a memory it cited was forgotten"
    assert erased["why"] is None and said[:40] not in str(erased)
    assert dream["id"] in result["dreams_erased"]
    assert dream["id"] not in [
        item["id"] for item in (await call("list_dreams", status="proposed"))["dreams"]
    ]
    partner = next(source for source in erased["sources"] if source["kind"] != "forgotten")
    assert partner["active"] is True and partner["text"]  # the other memory is the person's still
    assert await database(neo4j_settings, WORD_ANYWHERE, word=word.lower()) == []


async def test_forgetting_a_fact_takes_its_claim_and_names_the_fragments_that_still_say_it(
    call: CallTool,
) -> None:
    stored = await call(
        "remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")]
    )
    [claim] = stored["claims"]
    fact_id = claim["fact"]["id"]

    result = await call("forget_memory", ids=[fact_id])

    assert result["forgotten"] == [{"id": fact_id, "kind": "fact", "already_forgotten": False}]
    assert result["cascaded"] == [{"id": claim["claim_id"], "kind": "claim", "already_forgotten": False}]
    assert result["still_said_in"] == [stored["fragment"]["id"]]
    found = await call("recall_memory", query="Acme Corp")
    assert [(item["kind"], item["id"]) for item in found["results"]] == [
        ("fragment", stored["fragment"]["id"])
    ]
    await call("forget_memory", ids=result["still_said_in"])
    assert (await call("recall_memory", query="Acme Corp"))["results"] == []


async def test_a_whole_history_of_one_slot_can_be_forgotten_at_once(
    call: CallTool, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    acme = await call("remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")])
    beta = await call("remember", content="I work at Beta Labs.", claims=[claim_of("works_at", "Beta Labs")])
    answer = await call("confirm_memory", claim_id=beta["claims"][0]["claim_id"], decision="accept_claim")
    assert answer["claim"]["superseded_fact_id"] == acme["claims"][0]["fact"]["id"]

    result = await call("forget_memory", ids=[acme["fragment"]["id"], beta["fragment"]["id"]])

    assert sorted(item["kind"] for item in result["cascaded"]) == ["claim", "claim", "fact", "fact"]
    assert (await call("recall_memory", query="work Acme Beta"))["results"] == []
    left = await database(
        neo4j_settings,
        "MATCH (n {profile_id: $profile_id}) RETURN labels(n) AS labels",
        profile_id=profile_id,
    )
    assert sorted(label for row in left for label in row["labels"]) == ["Forgotten"] * 6 + ["Profile"]


async def test_a_claim_said_twice_survives_forgetting_one_of_the_fragments(call: CallTool) -> None:
    first = await call("remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")])
    second = await call(
        "remember", content="Still at Acme Corp, since 2019.", claims=[claim_of("works_at", "Acme Corp")]
    )
    fact_id = first["claims"][0]["fact"]["id"]

    result = await call("forget_memory", ids=[first["fragment"]["id"]])

    assert result["cascaded"] == [] and result["claims_losing_support"] == []
    found = await call("recall_memory", query="Acme Corp", include_evidence=True)
    fact = next(item for item in found["results"] if item["kind"] == "fact")
    assert fact["id"] == fact_id and fact["status"] == "active"
    assert [evidence["fragment_id"] for evidence in fact["evidence"]] == [second["fragment"]["id"]]


async def test_a_question_about_a_forgotten_fact_goes_and_its_rival_is_a_candidate_again(
    call: CallTool,
) -> None:
    acme = await call("remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")])
    beta = await call("remember", content="I work at Beta Labs.", claims=[claim_of("works_at", "Beta Labs")])
    [rival] = beta["claims"]
    assert rival["outcome"] == "clarification_required"

    result = await call("forget_memory", ids=[acme["claims"][0]["fact"]["id"]])

    assert result["claims_no_longer_disputed"] == [rival["claim_id"]]
    health = await call("reflect_memories")
    assert health["counts"]["open_clarifications"] == 0 and health["counts"]["disputed_claims"] == 0
    assert [claim["id"] for claim in health["candidate_claims"]] == [rival["claim_id"]]
    accepted = await call("confirm_memory", claim_id=rival["claim_id"], decision="accept_claim")
    assert accepted["claim"]["outcome"] == "promoted"


async def test_bad_requests_change_nothing_and_say_what_to_do(client: Client, call: CallTool) -> None:
    kept = (await call("remember", content="I keep bees on the roof."))["fragment"]["id"]

    unknown = await client.call_tool("forget_memory", {"ids": [kept, "no-such-id"]})
    too_many = await client.call_tool("forget_memory", {"ids": [f"id-{n}" for n in range(101)]})
    long_reason = await client.call_tool("forget_memory", {"ids": [kept], "reason": "x" * 201})

    assert "No fragment, claim or fact with id 'no-such-id'" in error_text(unknown)
    assert error_text(too_many) and error_text(long_reason)
    assert [item["id"] for item in (await call("recall_memory", query="bees roof"))["results"]] == [kept]


async def test_another_profile_can_neither_forget_nor_see_a_memory(
    call: CallTool, neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    mine = (await call("remember", content="I keep bees on the roof."))["fragment"]["id"]
    other = build_server(settings_for(neo4j_settings, profile_id + "-other"), "stdio")
    async with Client(other) as stranger:
        refused = await stranger.call_tool("forget_memory", {"ids": [mine]})
        assert "No fragment, claim or fact" in error_text(refused)
        theirs = structured(await stranger.call_tool("remember", {"content": "I keep bees on the roof."}))
        structured(await stranger.call_tool("forget_memory", {"ids": [theirs["fragment"]["id"]]}))
    assert [item["id"] for item in (await call("recall_memory", query="bees roof"))["results"]] == [mine]


async def test_a_memory_forgotten_while_a_slow_model_words_a_dream_never_comes_back_in_it(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    word = marker()
    private = f"The Vellmoor clinic confirmed my {word} diagnosis after the scan, doctor Almeida said."
    asked, release = threading.Event(), threading.Event()

    def slow_model(received: Received) -> Reply:
        if word.lower() in received.prompt.lower():
            asked.set()
            release.wait(timeout=60)  # answers after the person has forgotten
            return completion(judged(True, hypothesis=f"Does '{private}' tie in with the follow-up?"))
        return completion(judged(False))

    with scripted_endpoint(slow_model) as endpoint:
        settings = endpoint_settings(neo4j_settings, profile_id, endpoint, reverie_model_timeout=60.0)
        async with Client(build_server(settings, "stdio")) as client:
            call = caller(client)
            private_id = (await call("remember", content=private))["fragment"]["id"]
            await call(
                "remember", content="Booked the Vellmoor clinic follow-up with doctor Almeida for March."
            )
            result: dict[str, Any] = {}

            async def cycle() -> None:
                result["run"] = await call("run_dreaming_cycle", max_outputs=5)

            async with anyio.create_task_group() as group:
                group.start_soon(cycle)
                assert await anyio.to_thread.run_sync(asked.wait, 60)
                forgotten = await call("forget_memory", ids=[private_id], reason="private")
                release.set()
            listed = await call("list_dreams", limit=50)

    assert forgotten["dreams_erased"] == []  # nothing was written yet when the person forgot
    assert result["run"]["status"] == "completed"
    assert word not in str(listed)
    assert await database(neo4j_settings, WORD_ANYWHERE, word=word.lower()) == []
