"""Importing history into the real graph with the real model: dates and order kept, a second
import adds nothing, an interrupted one continues, profiles stay apart, and a cycle afterwards
dreams across the imported months."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bench.history_exports import claude_conversation, claude_message, write_export
from graph.access import ProfileGraph
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.review import get_dream
from graph.embedding.keeper import VectorKeeper
from graph.errors import InvalidInputError
from graph.history.claude import read_claude
from graph.history.jsonl import read_jsonl
from graph.history.load import ImportStopped, pending, write_pieces
from graph.history.pieces import Plan, plan_import
from graph.scope import ScopedQuery
from tests.graph.memory_support import read

pytestmark = pytest.mark.anyio
T0 = datetime(2024, 1, 8, 19, tzinfo=UTC)
FRAGMENTS = ScopedQuery(
    "test_imported_fragments",
    """
    MATCH (f:SourceFragment {profile_id: $profile_id})
    RETURN f.text AS text, f.occurred_at AS occurred_at, f.metadata AS metadata,
           f.embedding IS NOT NULL AS embedded
    ORDER BY f.occurred_at, f.text
    """,
)
# Three sittings months apart come back to pottery; the rest is everyday talk.
SITTINGS = [
    ["I signed up for a wheel-throwing pottery class at the community studio.", "The bus was late again."],
    ["My cousin Lena is visiting from Hamburg next weekend.", "I fixed the kitchen tap myself."],
    ["At pottery class my bowls finally stopped collapsing on the wheel.", "Rain all day, stayed in."],
    ["I booked train tickets to Lyon for the spring.", "Trying a new sourdough recipe tonight."],
    ["I glazed my first pottery bowls and fired them in the studio kiln.", "Work was quiet."],
]


def history(tmp_path: Path) -> Plan:
    conversations = []
    for month, said in enumerate(SITTINGS):
        at = T0 + timedelta(days=33 * month)
        messages: list[dict[str, Any]] = []
        for turn, text in enumerate(said):
            messages.append(claude_message(f"m{month}-{turn}", "human", text, at + timedelta(minutes=turn)))
            messages.append(claude_message(f"r{month}-{turn}", "assistant", "Tell me more.", at))
        conversations.append(claude_conversation(f"k{month}", f"Evening {month}", messages))
    return plan_import(read_claude(write_export(tmp_path / "claude.zip", conversations[::-1])))


async def stored(graph: ProfileGraph) -> list[dict[str, Any]]:
    return await read(graph, FRAGMENTS)


async def test_an_import_keeps_dates_and_order_and_a_second_adds_nothing(
    graph: ProfileGraph, vectors: VectorKeeper, tmp_path: Path
) -> None:
    plan = history(tmp_path)
    first = await pending(graph, plan)
    written = await write_pieces(graph, first.todo, vectors)
    await vectors.settled(graph)
    rows = await stored(graph)
    assert written.created == len(rows) == 10
    assert [row["text"] for row in rows] == [text for said in SITTINGS for text in said]
    assert [row["occurred_at"] for row in rows][::2] == [
        T0 + timedelta(days=33 * month) for month in range(5)
    ]
    assert json.loads(rows[0]["metadata"])["imported_from"] == "claude"
    assert all(row["embedded"] for row in rows)

    again = await pending(graph, history(tmp_path))
    assert (again.todo, again.already) == ((), 10)
    assert await stored(graph) == rows


async def test_an_interrupted_import_continues_where_it_stopped(
    graph: ProfileGraph, vectors: VectorKeeper, tmp_path: Path
) -> None:
    plan = history(tmp_path)
    done = 0

    def lost_after_four(count: int) -> None:
        nonlocal done
        done += count
        if done == 4:
            raise ConnectionError("the database went away")

    with pytest.raises(ImportStopped, match=r"stopped after storing 4 memories .*the database went away"):
        await write_pieces(graph, (await pending(graph, plan)).todo, vectors, lost_after_four, concurrency=1)
    rest = await pending(graph, plan)
    assert rest.already == 4
    await write_pieces(graph, rest.todo, vectors)
    assert len(await stored(graph)) == 10


async def test_profiles_stay_apart_and_a_reused_id_with_other_words_writes_nothing(
    graph: ProfileGraph, other_graph: ProfileGraph, vectors: VectorKeeper, tmp_path: Path
) -> None:
    plan = history(tmp_path)
    await write_pieces(graph, (await pending(graph, plan)).todo, vectors)
    other = await pending(other_graph, plan)
    assert (len(other.todo), other.already) == (10, 0)

    path = tmp_path / "notes.jsonl"
    line = {"text": "I live in Leeds.", "occurred_at": "2024-01-01", "id": "home"}
    path.write_text(json.dumps(line))
    await write_pieces(other_graph, (await pending(other_graph, plan_import(read_jsonl(path)))).todo, vectors)
    path.write_text(json.dumps(line | {"text": "I live in Porto."}) + "\n" + json.dumps(line | {"id": "new"}))
    with pytest.raises(InvalidInputError, match="before with other words"):
        await pending(other_graph, plan_import(read_jsonl(path)))
    assert [row["text"] for row in await stored(other_graph)] == ["I live in Leeds."]
    assert len(await stored(graph)) == 10


async def test_a_cycle_after_an_import_dreams_across_the_imported_months(
    graph: ProfileGraph, vectors: VectorKeeper, tmp_path: Path
) -> None:
    plan = history(tmp_path)
    await write_pieces(graph, (await pending(graph, plan)).todo, vectors)
    await vectors.settled(graph)
    run = await run_cycle(graph, DreamingConfig(), CycleRequest(max_outputs=5), vectors=vectors)
    ids = next(phase for phase in run.phases if phase.phase == "dream").dream_ids
    dreams = [await get_dream(graph, dream_id) for dream_id in ids]
    assert dreams, run
    # Some dream links memories said in different months.
    assert any(
        len({source.at.strftime("%Y-%m") for source in dream.sources if source.at}) > 1 for dream in dreams
    )
