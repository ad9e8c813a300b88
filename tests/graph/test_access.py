"""The profile door to Neo4j, against the real server: what it refuses, and what it keeps apart."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import anyio
import pytest
from neo4j.exceptions import ClientError

from graph.access import ConnectionSettings, GraphStore, ProfileGraph, ProfileTx
from graph.errors import InvalidInputError, MissingRowError, ProfileOverrideError
from graph.memory import pipeline
from graph.memory.models import ClaimInput, RememberResult
from graph.memory.reflect import reflect
from graph.recall.request import RecallRequest
from graph.recall.search import recall
from graph.schema import RETIRED_INDEXES, SCHEMA_STATEMENTS, _name_in, ensure_schema
from graph.scope import ScopedQuery

pytestmark = pytest.mark.anyio
Work = Callable[[ProfileTx], Awaitable[dict[str, Any] | None]]

CREATE_MARKER = ScopedQuery(
    "test_create_marker",
    "CREATE (f:SourceFragment {profile_id: $profile_id, profile_key: $profile_key, id: $id, "
    "text: 'marker', status: 'active'}) RETURN f.id AS id",
)
COUNT_MARKER = ScopedQuery(
    "test_count_marker",
    "MATCH (f:SourceFragment {profile_id: $profile_id, id: $id}) RETURN count(f) AS n",
)


async def nodes_with_id(store: GraphStore, node_id: str) -> int:
    """Counted over every profile, straight through the driver."""
    records, _, _ = await store.driver.execute_query(
        "MATCH (n) WHERE n.id = $id RETURN count(n) AS n", {"id": node_id}, database_=store.settings.database
    )
    return int(records[0]["n"])


def marker_work(marker: str) -> tuple[Work, Work]:
    """Units of work that create the marker node and count it in the graph's own profile."""

    async def create(tx: ProfileTx) -> dict[str, Any] | None:
        return await tx.single(CREATE_MARKER, id=marker)

    async def count(tx: ProfileTx) -> dict[str, Any] | None:
        return await tx.single(COUNT_MARKER, id=marker)

    return create, count


async def test_run_refuses_raw_cypher_and_writes_nothing(graph: ProfileGraph, store: GraphStore) -> None:
    marker = str(uuid.uuid4())

    async def raw(tx: ProfileTx) -> None:
        await tx.run(CREATE_MARKER, id=marker)  # written first, so the refusal must roll it back
        await tx.run(CREATE_MARKER.text, id=marker)  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="only ScopedQuery"):
        await graph.write(raw)
    assert await nodes_with_id(store, marker) == 0


FIND_MARKER = ScopedQuery(
    "test_find_marker",
    "MATCH (f:SourceFragment {profile_id: $profile_id, id: $id}) RETURN f.id AS id",
)


async def test_a_row_that_must_exist_and_does_not_is_a_typed_error_that_rolls_back(
    graph: ProfileGraph, store: GraphStore
) -> None:
    marker = str(uuid.uuid4())

    async def needs_a_missing_row(tx: ProfileTx) -> None:
        assert (await tx.one(CREATE_MARKER, id=marker))["id"] == marker
        await tx.one(FIND_MARKER, id="no-such-node")

    with pytest.raises(MissingRowError, match="test_find_marker") as raised:
        await graph.write(needs_a_missing_row)
    assert raised.value.query_name == "test_find_marker" and "Try the request again" in str(raised.value)
    assert await nodes_with_id(store, marker) == 0


OVERRIDES: dict[str, dict[str, Any]] = {
    "profile_id": {"profile_id": "someone-else"},
    "profile_key": {"profile_key": "someoneelse"},
    "nested dict": {"fields": {"text": "x", "profile_id": "someone-else"}},
    "list of dicts": {"rows": [{"id": "a"}, {"id": "b", "profile_id": "someone-else"}]},
    "nested profile_key": {"fields": {"profile_key": "someoneelse"}},
}


@pytest.mark.parametrize("params", list(OVERRIDES.values()), ids=list(OVERRIDES))
async def test_run_refuses_profile_overrides_and_writes_nothing(
    graph: ProfileGraph, store: GraphStore, params: dict[str, Any]
) -> None:
    marker = str(uuid.uuid4())

    async def override(tx: ProfileTx) -> None:
        await tx.run(CREATE_MARKER, id=marker)
        await tx.run(CREATE_MARKER, id=str(uuid.uuid4()), **params)

    with pytest.raises(ProfileOverrideError, match="do not pass"):
        await graph.write(override)
    assert await nodes_with_id(store, marker) == 0


async def test_a_clean_write_lands_in_its_own_profile_only(
    graph: ProfileGraph, other_graph: ProfileGraph, store: GraphStore
) -> None:
    marker = str(uuid.uuid4())

    create, count = marker_work(marker)
    assert await graph.write(create) == {"id": marker}
    assert await graph.read(count) == {"n": 1}
    assert await other_graph.read(count) == {"n": 0}
    records, _, _ = await store.driver.execute_query(
        "MATCH (n {id: $id}) RETURN n.profile_id AS profile",
        {"id": marker},
        database_=store.settings.database,
    )
    assert [record["profile"] for record in records] == [graph.profile_id]


@pytest.mark.parametrize(
    "bad_id",
    ["", "has space", "-leading-dash", ".dot", "x" * 65, "semi;colon", "quote'", "new\nline", "ünïcode"],
)
async def test_an_invalid_profile_id_is_refused(store: GraphStore, bad_id: str) -> None:
    with pytest.raises(InvalidInputError, match="Invalid profile id"):
        store.profile(bad_id)


@pytest.mark.parametrize("good_id", ["a", "alice", "A.b_c-d@example.org", "0" * 64])
async def test_valid_profile_ids_are_accepted(store: GraphStore, good_id: str) -> None:
    assert store.profile(good_id).profile_id == good_id


SHARED_CONTENT = "I work at Acme Robotics as a firmware engineer."


def shared_request() -> pipeline.RememberRequest:
    return pipeline.RememberRequest(
        content=SHARED_CONTENT,
        claims=[
            ClaimInput(
                subject="user",
                predicate="works_at",
                object="Acme Robotics",
                extract_conf=0.9,
                resolution_conf=0.8,
            ),
            ClaimInput(
                subject="user", predicate="likes", object="Porto", extract_conf=0.9, resolution_conf=0.8
            ),
        ],
    )


def ids_of(result: RememberResult) -> set[str]:
    ids = {result.fragment.id}
    for claim in result.claims:
        ids.add(claim.claim_id)
        if claim.fact is not None:
            ids.add(claim.fact.id)
    return ids


async def test_two_profiles_with_the_same_content_never_see_each_other(
    graph: ProfileGraph, other_graph: ProfileGraph
) -> None:
    results: dict[str, RememberResult] = {}

    async def remember_in(target: ProfileGraph) -> None:
        results[target.profile_id] = await pipeline.remember(target, shared_request())

    # Both at once: deduplication and the unique constraints must be per profile.
    async with anyio.create_task_group() as group:
        group.start_soon(remember_in, graph)
        group.start_soon(remember_in, other_graph)
    mine, theirs = results[graph.profile_id], results[other_graph.profile_id]
    for result in (mine, theirs):
        assert result.fragment.created is True
        assert result.fragment.duplicate_of is None
        assert [claim.outcome for claim in result.claims] == ["promoted", "not_validated"]
    my_ids, their_ids = ids_of(mine), ids_of(theirs)
    assert len(my_ids) == len(their_ids) == 4
    assert not my_ids & their_ids

    only_mine = await pipeline.remember(
        graph, pipeline.RememberRequest(content="I play the theremin on Sundays.")
    )

    for target, own, foreign in ((graph, my_ids, their_ids), (other_graph, their_ids, my_ids)):
        found = await recall(target, RecallRequest(query="Acme Robotics firmware Porto", limit=50))
        found_ids = {item.id for item in found.results}
        assert found_ids <= own, f"{target.profile_id} recalled ids outside its profile"
        assert found_ids & own, f"{target.profile_id} recalled nothing of its own"
        assert not found_ids & foreign

    theremin_mine = await recall(graph, RecallRequest(query="theremin"))
    assert [item.id for item in theremin_mine.results] == [only_mine.fragment.id]
    theremin_theirs = await recall(other_graph, RecallRequest(query="theremin"))
    assert theremin_theirs.results == []

    later = pipeline.utcnow() + timedelta(days=3)
    for target, result in ((graph, mine), (other_graph, theirs)):
        health = await reflect(target, stale_after_days=1, now=later)
        fact_ids = {claim.fact.id for claim in result.claims if claim.fact is not None}
        candidate_ids = {claim.claim_id for claim in result.claims if claim.outcome == "not_validated"}
        assert {fact.id for fact in health.stale_facts} == fact_ids
        assert {claim.id for claim in health.candidate_claims} == candidate_ids
        assert health.counts.stale_facts == 1
        assert health.counts.candidate_claims == 1


async def _schema_names(store: GraphStore) -> tuple[set[str], set[str]]:
    database = store.settings.database
    indexes, _, _ = await store.driver.execute_query("SHOW INDEXES YIELD name", database_=database)
    constraints, _, _ = await store.driver.execute_query("SHOW CONSTRAINTS YIELD name", database_=database)
    return {record["name"] for record in indexes}, {record["name"] for record in constraints}


async def test_ensure_schema_is_idempotent(store: GraphStore, neo4j_settings: ConnectionSettings) -> None:
    before = await _schema_names(store)
    indexes, constraints = before
    assert {"fragment_text", "claim_text", "fact_text", "dream_text", "fact_status_recorded"} <= indexes
    assert {"profile_unique", "fragment_idempotency", "fact_slot", "dream_pair"} <= constraints
    await ensure_schema(store.driver, neo4j_settings.database)
    await ensure_schema(store.driver, neo4j_settings.database)
    assert await _schema_names(store) == before
    # ensure_schema skips a statement whose object it finds by name: every one names its own.
    named = {_name_in(statement) for statement in SCHEMA_STATEMENTS}
    assert len(named) == len(SCHEMA_STATEMENTS) and named <= indexes | constraints
    assert not {_name_in(statement) for statement in RETIRED_INDEXES} & (indexes | constraints)


async def test_reads_alone_see_their_own_profile_only_refuse_what_read_refuses_and_never_write(
    graph: ProfileGraph, other_graph: ProfileGraph, store: GraphStore
) -> None:
    marker = str(uuid.uuid4())

    create, count = marker_work(marker)

    async def raw(tx: ProfileTx) -> None:
        await tx.run(COUNT_MARKER.text, id=marker)  # type: ignore[arg-type]

    async def override(tx: ProfileTx) -> None:
        await tx.run(COUNT_MARKER, id=marker, profile_id=other_graph.profile_id)

    await graph.write(create)
    assert (await graph.read_alone(count), await other_graph.read_alone(count)) == ({"n": 1}, {"n": 0})
    with pytest.raises(TypeError, match="only ScopedQuery"):
        await graph.read_alone(raw)
    with pytest.raises(ProfileOverrideError, match="do not pass"):
        await other_graph.read_alone(override)
    with pytest.raises(ClientError, match="read access mode"):
        await other_graph.read_alone(create)
    assert await nodes_with_id(store, marker) == 1
