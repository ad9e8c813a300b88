"""The history parsers on exports made here in the real shapes: what becomes memory, with which
date, in which order, and the refusals that name the wrong entry."""

from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from bench.history_exports import ChatGptConversation, claude_conversation, claude_message, write_export
from graph.errors import InvalidInputError
from graph.history.chatgpt import read_chatgpt
from graph.history.claude import read_claude
from graph.history.jsonl import read_jsonl
from graph.history.notes import read_notes
from graph.history.pieces import PASTED_CHARS, PIECE_CHARS, plan_import, split_text
from graph.history.records import Mark, Skip

pytestmark = pytest.mark.unit
T0 = datetime(2024, 3, 5, 18, 30, tzinfo=UTC)
IMAGE = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1", "width": 512}
VOICE = {"content_type": "audio_transcription", "text": "Said aloud.", "direction": "in"}


def edited_chatgpt() -> ChatGptConversation:
    """A conversation with every oddity: hidden context, an edit, a null time, an image, code."""
    talk = ChatGptConversation("c-1", "Pottery", T0)
    talk.add("system", [""], None, hidden=True)
    talk.add("user", None, T0, content_type="user_editable_context")
    first = talk.add("user", ["I signed up for a pottery class."], T0)
    talk.add("assistant", ["Nice!"], T0 + timedelta(seconds=5))
    asked = talk.current
    talk.add("user", ["Should I buy a wheel?"], T0 + timedelta(minutes=1))  # edited away below
    talk.add("user", ["Should I buy a kiln?"], T0 + timedelta(minutes=2), parent=asked)
    talk.add("assistant", ["Maybe later."], T0 + timedelta(minutes=3))
    talk.add("user", ["Here is my glaze, what do you think?", IMAGE, None, ""], None)
    talk.add("user", [IMAGE], T0 + timedelta(minutes=4))
    talk.add("user", [VOICE], T0 + timedelta(minutes=4))
    talk.add("user", ["My script:\n```python\nprint('kiln')\n```\nIt fails."], T0 + timedelta(minutes=5))
    talk.add("user", ["```\nTraceback (most recent call last)\n```"], T0 + timedelta(minutes=6))
    talk.add("user", [""], T0 + timedelta(minutes=7))
    assert first
    return talk


def test_chatgpt_keeps_the_persons_words_on_the_branch_they_saw(tmp_path: Path) -> None:
    export = write_export(tmp_path / "export.zip", [edited_chatgpt().export()])
    parsed = read_chatgpt(export)
    assert [said.text for said in parsed.said] == [
        "I signed up for a pottery class.",
        "Should I buy a kiln?",
        "Here is my glaze, what do you think?",
        "Said aloud.",
        "My script:\n```python\nprint('kiln')\n```\nIt fails.",
        "```\nTraceback (most recent call last)\n```",
    ]
    # A null create_time takes the time of the message before it.
    assert parsed.said[2].occurred_at == T0 + timedelta(minutes=3)
    assert parsed.said[2].marks == {Mark.ATTACHMENT}
    assert parsed.skipped == {
        Skip.OTHER_SPEAKER: 3,  # two replies and the system message
        Skip.HIDDEN: 1,  # the custom instructions
        Skip.OFF_BRANCH: 1,
        Skip.NOT_TEXT: 1,
        Skip.EMPTY: 1,
    }
    plan = plan_import(parsed)
    assert [piece.text for piece in plan.pieces][-1] == "My script:\nIt fails."
    assert "left_out" not in plan.pieces[3].metadata  # the voice message
    assert plan.skipped[Skip.CODE] == 1
    assert plan.marked == {Mark.ATTACHMENT: 1, Mark.CODE: 1}
    assert plan.pieces[0].key == f"chatgpt:c-1:{parsed.said[0].message_id}:0"
    assert plan.pieces[0].metadata["conversation"] == "c-1"
    assert plan.pieces[0].source == "ChatGPT conversation: Pottery"


def test_claude_reads_zoned_times_blocks_and_leaves_attachments_out(tmp_path: Path) -> None:
    lisbon = timezone(timedelta(hours=1))
    later = datetime(2024, 6, 1, 23, 30, tzinfo=timezone(timedelta(hours=-7)))
    messages = [
        claude_message("m1", "human", "I moved to Porto last week.", T0.astimezone(lisbon)),
        claude_message("m2", "assistant", "How is it?", T0 + timedelta(seconds=9)),
        claude_message("m3", "human", "", later, attachments=[{"file_name": "cv.pdf"}]),
        claude_message("m4", "human", "Old exports had text only.", later, blocks=False),
    ]
    conversation = claude_conversation("k-1", "Moving", messages)
    parsed = read_claude(write_export(tmp_path / "conversations.json", [conversation], zipped=False))
    assert [(said.text, said.occurred_at) for said in parsed.said] == [
        ("I moved to Porto last week.", T0),
        ("Old exports had text only.", datetime(2024, 6, 2, 6, 30, tzinfo=UTC)),
    ]
    assert parsed.skipped == {Skip.OTHER_SPEAKER: 1, Skip.NOT_TEXT: 1}


def test_half_an_emoji_becomes_the_replacement_character(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    message = claude_message("m", "human", "Herbert the starter ", T0)
    path.write_text(
        json.dumps([claude_conversation("k", "Bread", [message])]).replace("starter ", "starter \\ud83d")
    )
    [piece] = plan_import(read_claude(path)).pieces
    assert piece.text == "Herbert the starter \ufffd"
    piece.text.encode("utf-8")


def test_pieces_come_oldest_first_across_conversations(tmp_path: Path) -> None:
    late = claude_conversation("late", "B", [claude_message("b", "human", "second", T0 + timedelta(days=60))])
    early = claude_conversation("early", "A", [claude_message("a", "human", "first", T0)])
    plan = plan_import(read_claude(write_export(tmp_path / "e.zip", [late, early])))
    assert [piece.text for piece in plan.pieces] == ["first", "second"]
    assert plan.span() == (T0, T0 + timedelta(days=60))


def test_long_messages_are_split_and_pasted_documents_left_out(tmp_path: Path) -> None:
    paragraph = "I walked the dog along the river and thought about work. " * 20
    long = "\n\n".join([paragraph] * 6)
    pasted = "log line\n" * (PASTED_CHARS // 8)
    messages = [claude_message("l", "human", long, T0), claude_message("p", "human", pasted, T0)]
    export = write_export(tmp_path / "e.zip", [claude_conversation("k", "Walk", messages)])
    plan = plan_import(read_claude(export))
    assert plan.skipped[Skip.PASTED] == 1
    assert plan.split == 1
    assert all(len(piece.text) <= PIECE_CHARS for piece in plan.pieces)
    assert " ".join(piece.text for piece in plan.pieces).split() == long.split()
    count = len(plan.pieces)
    assert [piece.metadata["piece"] for piece in plan.pieces][:2] == [f"1 of {count}", f"2 of {count}"]
    assert len({piece.key for piece in plan.pieces}) == len(plan.pieces)


def test_a_sentence_longer_than_a_piece_is_cut_at_spaces() -> None:
    words = "word " * 1_000
    pieces = split_text(words, limit=100)
    assert all(len(piece) <= 100 for piece in pieces)
    assert " ".join(pieces).split() == words.split()


def test_a_cut_or_broken_export_is_refused_by_its_place(tmp_path: Path) -> None:
    whole = json.dumps([edited_chatgpt().export()])
    cut = tmp_path / "cut.json"
    cut.write_text(whole[: len(whole) // 2], encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"cut short.*Nothing was imported"):
        read_chatgpt(cut)
    damaged = tmp_path / "damaged.zip"
    write_export(damaged, [edited_chatgpt().export()])
    damaged.write_bytes(damaged.read_bytes()[:200])
    with pytest.raises(InvalidInputError, match=r"zip is damaged or cut short"):
        read_chatgpt(damaged)
    no_mapping = edited_chatgpt().export() | {"title": "Broken"}
    del no_mapping["mapping"]
    with pytest.raises(InvalidInputError, match=r"conversation 2 \('Broken'\): mapping: Field required"):
        read_chatgpt(write_export(tmp_path / "b.zip", [edited_chatgpt().export(), no_mapping]))
    lost = edited_chatgpt().export() | {"current_node": "nowhere"}
    with pytest.raises(InvalidInputError, match=r"conversation 1 .*'nowhere' is named but not in"):
        read_chatgpt(write_export(tmp_path / "l.zip", [lost]))
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("chat.html", "<html></html>")
    with pytest.raises(InvalidInputError, match=r"should hold one conversations.json"):
        read_claude(tmp_path / "other.zip")


def test_jsonl_dates_roles_and_refusals(tmp_path: Path) -> None:
    lines = [
        {"text": "Dated only.", "occurred_at": "2024-03-05"},
        {"text": "No offset.", "occurred_at": "2024-03-05T08:00:00", "conversation": "journal", "id": "e2"},
        {"text": "Zoned.", "occurred_at": "2024-03-05T08:00:00-05:00", "role": "person"},
        {"text": "Someone else.", "occurred_at": "2024-03-05T09:00:00Z", "role": "other"},
    ]
    path = tmp_path / "history.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    parsed = read_jsonl(path)
    assert [said.occurred_at for said in parsed.said] == [
        datetime(2024, 3, 5, 12, tzinfo=UTC),
        datetime(2024, 3, 5, 8, tzinfo=UTC),
        datetime(2024, 3, 5, 13, tzinfo=UTC),
    ]
    assert parsed.skipped == {Skip.OTHER_SPEAKER: 1}
    assert plan_import(parsed).pieces[0].key == "jsonl:journal:e2:0"  # the earliest
    path.write_text(json.dumps(lines[0]) + "\n" + json.dumps({"txt": "typo", "occurred_at": "2024-01-01"}))
    with pytest.raises(InvalidInputError, match=r"line 2: text: Field required; txt: Extra inputs"):
        read_jsonl(path)
    path.write_text(json.dumps(lines[0]) + "\n" + json.dumps(lines[1])[:30])
    with pytest.raises(InvalidInputError, match=r"line 2: .*Invalid JSON"):
        read_jsonl(path)


def test_jsonl_refuses_one_id_for_two_different_texts(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    same = {"occurred_at": "2024-03-05", "id": "x"}
    path.write_text(json.dumps(same | {"text": "one"}) + "\n" + json.dumps(same | {"text": "two"}))
    with pytest.raises(InvalidInputError, match=r"have the id 'x' but say different things"):
        plan_import(read_jsonl(path))


def test_notes_are_dated_by_front_matter_or_name_and_refused_without(tmp_path: Path) -> None:
    (tmp_path / "trips").mkdir()
    porto = "---\ndate: 2024-05-01T10:00:00+02:00\ntitle: Porto\n---\nWe walked."
    (tmp_path / "trips" / "porto.md").write_text(porto)
    (tmp_path / "2023-11-02-bread.md").write_text("# Bread\n\nMy first sourdough.\n```\nflour 500g\n```\n")
    parsed = read_notes(tmp_path)
    plan = plan_import(parsed)
    assert [(piece.text, piece.occurred_at) for piece in plan.pieces] == [
        ("# Bread\n\nMy first sourdough.", datetime(2023, 11, 2, 12, tzinfo=UTC)),
        ("We walked.", datetime(2024, 5, 1, 8, tzinfo=UTC)),
    ]
    assert plan.pieces[1].source == "note trips/porto.md"
    assert plan.pieces[1].metadata["title"] == "Porto"
    (tmp_path / "someday.md").write_text("No date anywhere.")
    with pytest.raises(InvalidInputError, match=r"someday.md: the note has no date.*--undated-date"):
        read_notes(tmp_path)
    undated = read_notes(tmp_path, undated=datetime(2022, 1, 1).date())
    dates = {said.conversation_id: said.occurred_at for said in undated.said}
    assert dates["someday.md"] == datetime(2022, 1, 1, 12, tzinfo=UTC)
    (tmp_path / "bad.md").write_text("---\ndate: [unclosed\n---\nx")
    with pytest.raises(InvalidInputError, match=r"bad.md: its front matter is not YAML"):
        read_notes(tmp_path)
