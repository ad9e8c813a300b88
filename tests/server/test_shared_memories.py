"""What the person shared (a photo's caption, a link's title) is remembered as such through
`remember`'s `shared`, kept through export and import and the JSON Lines importer, and never makes
a theme of its own, nor a link or a duplicate between two shared texts: the same words in the
person's own memories do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graph.access import ConnectionSettings
from tests.server.conftest import CallTool, caller, error_text, reverie_in_process
from tests.server.support import ANY_NODE, database
from tests.server.test_dream_kinds import DAYS, EVERYDAY, KAYAK, PEANUTS, cited, day, dreams_of

pytestmark = pytest.mark.anyio

SHARED_KINDS = "MATCH (f:SourceFragment {profile_id: $profile_id}) RETURN f.text AS text, f.shared AS shared"


async def remember_kayak(call: CallTool, shared: str | None) -> set[str]:
    """The kayak sentences months apart, as the person's words or as what they shared, among
    everyday sentences that share only common words."""
    kind = {"shared": shared} if shared else {}
    kayak = set()
    for index, text in enumerate(KAYAK):
        stored = await call("remember", content=text, occurred_at=day(20 + 45 * index), **kind)
        kayak.add(stored["fragment"]["id"])
    await remember_everyday(call)
    return kayak


async def export_and_erase(env: dict[str, str], profile_id: str, folder: Path) -> Path:
    """The profile written to a file, then erased: what an import brings back is the file's."""
    path = folder / "profile.jsonl"
    assert (
        await reverie_in_process(env, "profile", "export", profile_id, "--output", str(path))
    ).returncode == 0
    assert (await reverie_in_process(env, "profile", "delete", profile_id, "--yes")).returncode == 0
    return path


async def remember_everyday(call: CallTool) -> None:
    """Everyday sentences over months that share only common words."""
    for index in range(15):
        await call(
            "remember",
            content=EVERYDAY[index % 5].format(day=DAYS[index // 5]),
            occurred_at=day(1 + 9 * index),
        )


def themes_on(dreams: list[dict[str, Any]], memories: set[str]) -> list[dict[str, Any]]:
    return [dream for dream in dreams if dream["kind"] == "theme" and cited(dream) & memories]


async def test_shared_words_make_no_theme_where_the_persons_own_words_do(
    call: CallTool, other_client: Client
) -> None:
    captions = await remember_kayak(call, "photo_caption")
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    # No theme on them, and no link between two of them: nothing of the person's own ties them.
    assert [dream for dream in dreams if len(cited(dream) & captions) >= 1] == [], [
        (dream["kind"], dream["hypothesis"]) for dream in dreams
    ]

    own_call = caller(other_client)
    own = await remember_kayak(own_call, None)
    dreams = await dreams_of(own_call, await own_call("run_dreaming_cycle", max_outputs=10))
    [theme] = themes_on(dreams, own)
    assert cited(theme) == own and theme["hypothesis"].startswith("You keep mentioning kayak")


async def test_the_shared_kind_survives_export_and_import_and_still_makes_no_theme(
    call: CallTool,
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:
    await remember_kayak(call, "link_title")
    path = await export_and_erase(server_env, profile_id, tmp_path)
    imported = await reverie_in_process(server_env, "profile", "import", str(path), "--profile", profile_id)
    assert imported.returncode == 0, imported.stderr

    kinds = {
        row["text"]: row["shared"]
        for row in await database(neo4j_settings, SHARED_KINDS, profile_id=profile_id)
    }
    assert {kinds[text] for text in KAYAK} == {"link_title"}
    assert {kind for text, kind in kinds.items() if text not in KAYAK} == {None}
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    assert [dream for dream in dreams if dream["kind"] == "theme"] == []


async def test_an_unknown_shared_kind_is_a_clear_error_that_changes_nothing(
    client: Client, call: CallTool, profile_id: str, neo4j_settings: ConnectionSettings
) -> None:
    text = error_text(
        await client.call_tool("remember", {"content": "A kayak on the lake.", "shared": "selfie"})
    )
    assert "shared" in text and "photo_caption" in text and "internal error" not in text, text
    assert (await call("recall_memory", query="kayak lake"))["results"] == []
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id)) == [{"nodes": 0}]


async def test_a_json_lines_entry_carries_its_shared_kind_and_an_unknown_one_imports_nothing(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    entries = [
        {"text": "Look what we saw on the lake this morning!", "occurred_at": "2024-05-01T09:00:00Z"},
        {"text": "a kayak beside a heron", "occurred_at": "2024-05-01T09:00:00Z", "shared": "photo_caption"},
        {"text": "Kayaking for beginners", "occurred_at": "2024-05-02", "shared": "chart"},
    ]
    history = tmp_path / "history.jsonl"
    history.write_text("".join(json.dumps(entry) + "\n" for entry in entries), "utf-8")
    refused = await reverie_in_process(server_env, "import", "jsonl", str(history), "--profile", profile_id)
    assert refused.returncode == 2, refused.stderr
    assert (
        "line 3" in refused.stderr and "shared" in refused.stderr and "Nothing was imported" in refused.stderr
    )
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id)) == [{"nodes": 0}]

    history.write_text("".join(json.dumps(entry) + "\n" for entry in entries[:2]), "utf-8")
    done = await reverie_in_process(server_env, "import", "jsonl", str(history), "--profile", profile_id)
    assert done.returncode == 0, done.stderr
    rows = await database(neo4j_settings, SHARED_KINDS, profile_id=profile_id)
    assert {row["text"]: row["shared"] for row in rows} == {
        entries[0]["text"]: None,
        entries[1]["text"]: "photo_caption",
    }


async def test_a_profile_file_with_an_unknown_shared_kind_is_refused_whole(
    call: CallTool,
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:
    await call("remember", content="a kayak beside a heron", shared="photo_caption")
    path = await export_and_erase(server_env, profile_id, tmp_path)
    path.write_text(path.read_text("utf-8").replace('"photo_caption"', '"selfie"'), "utf-8")

    refused = await reverie_in_process(server_env, "profile", "import", str(path), "--profile", profile_id)

    assert refused.returncode != 0 and "shared" in refused.stderr and "photo_caption" in refused.stderr, (
        refused.stderr
    )
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id)) == [{"nodes": 0}]


TENT = (
    "Lent my old tent to Thaddeus for his walk across the Cairngorms.",
    "Thaddeus brought the tent back from the Cairngorms with a snapped pole.",
)
QUOTED = ("quoted_message", "quoted_message")
# Two memories a month apart, which of them is shared, and the dream proposed on the two: two
# things the person shared are never linked, nor one restated ("you said the same thing twice"
# is untrue of a message quoted twice, and two photos alike are two photos); the person's own
# words are, beside something shared or not.
PAIR_CASES: dict[str, tuple[tuple[str, str], tuple[str | None, str | None], list[str]]] = {
    "link, own words": (TENT, (None, None), ["link"]),
    "link, one shared": (TENT, (None, "quoted_message"), ["link"]),
    "link, both shared": (TENT, QUOTED, []),
    "duplicate, own words": (PEANUTS, (None, None), ["duplicate"]),
    "duplicate, one shared": (PEANUTS, (None, "quoted_message"), []),
    "duplicate, both shared": (PEANUTS, QUOTED, []),
}


@pytest.mark.parametrize("case", list(PAIR_CASES), ids=list(PAIR_CASES))
async def test_two_shared_texts_are_neither_linked_nor_duplicates_where_the_persons_words_are(
    call: CallTool, case: str
) -> None:
    texts, kinds, expected = PAIR_CASES[case]
    pair = set()
    for offset, text, kind in zip((10, 40), texts, kinds, strict=True):
        shared = {"shared": kind} if kind else {}
        pair.add((await call("remember", content=text, occurred_at=day(offset), **shared))["fragment"]["id"])
    await remember_everyday(call)
    dreams = await dreams_of(call, await call("run_dreaming_cycle", max_outputs=10))
    assert [dream["kind"] for dream in dreams if cited(dream) == pair] == expected, [
        (dream["kind"], dream["hypothesis"]) for dream in dreams
    ]
