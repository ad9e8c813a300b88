"""Helpers the server tests share: what a host remembers, claims in `remember`'s shape, dream
steps, a failed start, and the database read directly (cross-profile, with the plain driver)."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncGraphDatabase

from graph.access import ConnectionSettings
from tests.server.conftest import CallTool, run_reverie

MEMORIES = [
    "I started training for the Lisbon marathon in April; long runs on Sundays.",
    "My knee has been sore after long runs, the physio suggested strength work.",
    "I love baking sourdough bread on weekends, my starter is called Herbert.",
    "Herbert the sourdough starter needs feeding twice a day with rye flour.",
    "We are planning a trip to Lisbon in October to visit my sister Ana.",
    "Ana works as an architect in Lisbon and restores old tiled buildings.",
    "I have been learning Portuguese with a tutor every Tuesday evening.",
    "My Portuguese tutor recommended reading Saramago novels to practise.",
    "I switched my team's CI to GitHub Actions and builds got faster.",
    "Our flaky integration tests in CI keep failing on the Neo4j container.",
    "I read a Saramago novel on the flight, Blindness, and loved it.",
    "The physio said to reduce mileage before the marathon taper.",
]


async def remember_all(call: CallTool) -> list[str]:
    ids = []
    for text in MEMORIES:
        ids.append((await call("remember", content=text))["fragment"]["id"])
    return ids


ANY_NODE = "MATCH (n) WHERE n.profile_id = $profile_id RETURN count(n) AS nodes"


# What a plain HTTP client sends with every MCP request to the Streamable HTTP endpoint.
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "reverie-tests", "version": "0"},
    },
}


# --- claims in remember's shape -------------------------------------------------------------


def claim_of(
    predicate: str, obj: str, extract: float = 0.9, resolution: float = 0.9, **extra: object
) -> dict[str, object]:
    return {
        "subject": "user",
        "predicate": predicate,
        "object": obj,
        "extract_conf": extract,
        "resolution_conf": resolution,
        **extra,
    }


def works_at(company: str, extract: float = 0.9, resolution: float = 0.8) -> dict[str, object]:
    return claim_of("works_at", company, extract, resolution)


# --- dreams --------------------------------------------------------------------------------


async def first_dream(call: CallTool, **arguments: object) -> dict[str, object]:
    run = await call("run_dreaming_cycle", **arguments)
    dream_ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
    assert dream_ids, run
    return await call("get_dream", dream_id=dream_ids[0])


async def promote(call: CallTool, dream_id: object, words: str, *claims: dict[str, object]) -> dict[str, Any]:
    return await call(
        "resolve_dream_feedback",
        dream_id=dream_id,
        decision="promote_candidate",
        feedback=words,
        claims=list(claims),
    )


def dream_words(subject: str) -> dict[str, str]:
    """A dream's four texts as a host writes them with `write_dream`."""
    return {
        "hypothesis": f"The person keeps coming back to {subject}.",
        "why": f"Both memories name {subject}.",
        "what_if": f"What if {subject} matters more than either mention shows?",
        "possible_outcome": f"Ask about {subject} when it comes up again.",
    }


async def fill(call: CallTool) -> None:
    """One of every kind of node a profile can hold."""
    for text in MEMORIES:
        await call("remember", content=text)
    await call("remember", content="I work at Acme Corp.", claims=[claim_of("works_at", "Acme Corp")])
    await call("remember", content="I work at Beta Labs.", claims=[claim_of("works_at", "Beta Labs")])
    # A pair the host judged empty, a dream it wrote (with a statement) and one it reworded.
    empty, written, *_ = (await call("list_dream_candidates", limit=5))["candidates"]
    await call("write_dream", source_ids=empty["source_ids"], verdict="empty")
    await call(
        "write_dream",
        source_ids=written["source_ids"],
        statement=claim_of("likes", "stories"),
        **dream_words("stories"),
    )
    run = await call("run_dreaming_cycle", max_outputs=3)
    dream_id = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"][0]
    await call("resolve_dream_feedback", dream_id=dream_id, decision="reinforce")
    await call("write_dream", dream_id=dream_id, hypothesis="Plainer words?")
    kept = await call("remember", content="My locker code is 4417.")
    await call("forget_memory", ids=[kept["fragment"]["id"]])


# --- processes and the database -------------------------------------------------------------


def start_failure(env: dict[str, str], *arguments: str) -> str:
    """`reverie serve ...` that must stop at once: exit 2, one line naming the fix, no traceback."""
    done = run_reverie(env, "serve", *arguments, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("reverie: "), done.stderr
    assert "is serving" not in done.stderr and "token for profile" not in done.stderr
    return done.stderr


async def database(settings: ConnectionSettings, query: str, **params: Any) -> list[dict[str, Any]]:
    auth = (settings.username, settings.password)
    async with (
        AsyncGraphDatabase.driver(settings.uri, auth=auth) as driver,
        driver.session(database=settings.database) as session,
    ):
        result = await session.run(query, params)
        return [dict(record) async for record in result]
