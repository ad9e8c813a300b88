"""`reverie import ...` as a person runs it: a dry run writes nothing, a broken file is refused by
its place and writes nothing, an import says what it kept and left out, a second one finds it all
there, and --dream runs the first cycle."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.history_exports import ChatGptConversation, write_export
from graph.access import ConnectionSettings
from tests.server.conftest import reverie_in_process
from tests.server.support import database

pytestmark = pytest.mark.anyio
T0 = datetime(2023, 10, 2, 20, tzinfo=UTC)


def chatgpt_export(path: Path) -> Path:
    talks = []
    for month, topic in enumerate(
        ["my allotment tomatoes", "the allotment shed", "allotment tomatoes again"]
    ):
        talk = ChatGptConversation(f"c{month}", f"Garden {month}", T0 + timedelta(days=40 * month))
        at = T0 + timedelta(days=40 * month)
        talk.add("user", [f"Today I worked on {topic} for hours."], at)
        talk.add("assistant", ["Sounds lovely."], at + timedelta(seconds=20))
        talk.add("user", ["```\nerror: disk full\n```"], at + timedelta(minutes=1))
        talks.append(talk.export())
    return write_export(path, talks)


async def fragments(settings: ConnectionSettings, profile_id: str) -> int:
    rows = await database(
        settings, "MATCH (f:SourceFragment {profile_id: $p}) RETURN count(f) AS n", p=profile_id
    )
    return int(rows[0]["n"])


async def test_dry_run_then_import_then_again(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    export = str(chatgpt_export(tmp_path / "chatgpt.zip"))
    dry = await reverie_in_process(
        server_env, "import", "chatgpt", export, "--profile", profile_id, "--dry-run"
    )
    assert dry.returncode == 0, dry.stderr
    assert "3 conversations, 6 messages of the person's, 2023-10-02 to 2023-12-21" in dry.stdout
    assert "to store 3" in dry.stdout
    assert "Left out: code only 3; replies and other speakers' words 3." in dry.stdout
    assert await fragments(neo4j_settings, profile_id) == 0

    done = await reverie_in_process(
        server_env, "import", "chatgpt", export, "--profile", profile_id, "--dream"
    )
    assert done.returncode == 0, done.stderr
    assert "Stored 3 memories" in done.stdout
    assert "dream:" in done.stdout  # the cycle's report
    again = await reverie_in_process(server_env, "import", "chatgpt", export, "--profile", profile_id)
    assert "already there 3" in again.stdout and "to store 0" in again.stdout
    assert await fragments(neo4j_settings, profile_id) == 3


async def test_a_broken_file_or_an_undated_note_is_refused_and_writes_nothing(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    cut = tmp_path / "conversations.json"
    cut.write_text('[{"uuid": "k", "chat_messages": [{"uuid": "m", "sender": "human", "text": "hi"', "utf-8")
    refused = await reverie_in_process(server_env, "import", "claude", str(cut), "--profile", profile_id)
    assert refused.returncode == 2
    assert "it was cut short" in refused.stderr and "Nothing was imported" in refused.stderr

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "2024-02-01-walk.md").write_text("A long walk on the moor.")
    (tmp_path / "notes" / "ideas.md").write_text("Build a bird box.")
    notes = str(tmp_path / "notes")
    undated = await reverie_in_process(server_env, "import", "notes", notes, "--profile", profile_id)
    assert undated.returncode == 2
    assert "ideas.md: the note has no date" in undated.stderr
    assert await fragments(neo4j_settings, profile_id) == 0

    dated = await reverie_in_process(
        server_env, "import", "notes", notes, "--profile", profile_id, "--undated-date", "2024-03-01"
    )
    assert dated.returncode == 0, dated.stderr
    assert "notes folder: 2 notes, 2024-02-01 to 2024-03-01." in dated.stdout
    assert await fragments(neo4j_settings, profile_id) == 2
