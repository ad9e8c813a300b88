"""A scheduled cycle has no client, so the configured model endpoint (a scripted OpenAI-compatible
server on 127.0.0.1) writes its dreams, through the server's own wiring of the scheduler."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.access import ConnectionSettings, GraphStore, ProfileGraph
from graph.dreams import review
from graph.dreams.config import DreamingConfig, configure_dreaming
from graph.dreams.runs import latest_run_writers
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import RememberRequest, remember
from server.app import nightly_scheduler
from server.stores import endpoint_of
from tests.scripted_endpoint import ANSWERING_MODEL, scripted_endpoint
from tests.server.support import MEMORIES
from tests.server.test_dream_endpoint import answers, endpoint_settings

pytestmark = pytest.mark.anyio
DEFAULTS = DreamingConfig(enabled=False, timezone="UTC")


async def test_a_scheduled_cycle_gets_the_endpoints_words(
    store: GraphStore,
    graph: ProfileGraph,
    other_graph: ProfileGraph,
    vectors: VectorKeeper,
    neo4j_settings: ConnectionSettings,
) -> None:
    for text in MEMORIES:
        await remember(graph, RememberRequest(content=text), vectors=vectors)
    await vectors.settled(graph)
    await configure_dreaming(
        graph, DEFAULTS, {"enabled": True, "timezone": "UTC", "start_time_local": "03:00"}
    )
    try:
        with scripted_endpoint(answers) as endpoint:
            settings = endpoint_settings(neo4j_settings, graph.profile_id, endpoint)
            async with endpoint_of(settings) as model:
                scheduler = nightly_scheduler(store, settings, vectors, model, lambda: [graph.profile_id])
                results = await scheduler.tick(datetime(2026, 1, 15, 3, 0, tzinfo=UTC))
    finally:
        await configure_dreaming(graph, DEFAULTS, {"enabled": False})
    mine = next(result for result in results if result.profile_id == graph.profile_id)
    assert mine.outcome == "ran"
    listed = (await review.list_dreams(graph)).dreams
    dreams = [await review.get_dream(graph, dream.id) for dream in listed]
    writer = f"endpoint:{ANSWERING_MODEL}"
    assert dreams and {dream.generator for dream in dreams} == {writer}
    assert dreams[0].hypothesis.startswith("The sourdough starter Herbert")
    assert await latest_run_writers(graph) == {writer: len(dreams)}
    # The writers are counted within the profile: another profile's status never shows them.
    assert await latest_run_writers(other_graph) == {}
