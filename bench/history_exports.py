"""Assistant data exports made up for tests and the import figure, in the shapes the real ones
have: ChatGPT's `mapping` of message nodes (with branches, null times, null and non-text parts)
and Claude's `chat_messages` (with content blocks, attachments and zoned times)."""

from __future__ import annotations

import json
import random
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.corpus import MemoryFactory


@dataclass
class ChatGptConversation:
    """One conversation's mapping, built message by message; each new message answers the
    current one unless told which it answers (a branch, as an edit or a regeneration makes)."""

    id: str
    title: str
    created: datetime
    mapping: dict[str, dict[str, Any]] = field(default_factory=dict)
    current: str = "root"

    def __post_init__(self) -> None:
        self.mapping["root"] = {"id": "root", "message": None, "parent": None, "children": []}

    def add(
        self,
        role: str,
        parts: Sequence[Any] | None,
        at: datetime | None,
        parent: str | None = None,
        content_type: str = "text",
        hidden: bool = False,
    ) -> str:
        node_id = f"{self.id}-n{len(self.mapping)}"
        parent = parent or self.current
        message: dict[str, Any] = {
            "id": f"{node_id}-m",
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at.timestamp() if at else None,
            "update_time": None,
            "content": {"content_type": content_type, "parts": None if parts is None else list(parts)},
            "status": "finished_successfully",
            "end_turn": None,
            "weight": 1.0,
            "metadata": {"is_visually_hidden_from_conversation": True} if hidden else {},
            "recipient": "all",
        }
        self.mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        self.mapping[parent]["children"].append(node_id)
        self.current = node_id
        return node_id

    def export(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "create_time": self.created.timestamp(),
            "update_time": self.created.timestamp(),
            "mapping": self.mapping,
            "moderation_results": [],
            "current_node": self.current,
            "plugin_ids": None,
            "conversation_id": self.id,
            "conversation_template_id": None,
            "default_model_slug": "gpt-4o",
            "id": self.id,
        }


def claude_message(
    uuid: str, sender: str, text: str, at: datetime, blocks: bool = True, attachments: Sequence[Any] = ()
) -> dict[str, Any]:
    content = [{"type": "text", "text": text, "citations": []}] if blocks else None
    return {
        "uuid": uuid,
        "text": text,
        "content": content,
        "sender": sender,
        "created_at": at.isoformat(),
        "updated_at": at.isoformat(),
        "attachments": list(attachments),
        "files": [],
    }


def claude_conversation(uuid: str, name: str, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    first = messages[0]["created_at"] if messages else datetime.now(UTC).isoformat()
    return {
        "uuid": uuid,
        "name": name,
        "created_at": first,
        "updated_at": first,
        "account": {"uuid": "account"},
        "chat_messages": list(messages),
    }


def write_export(path: Path, conversations: Sequence[dict[str, Any]], zipped: bool = True) -> Path:
    """The export as the assistant hands it over: a zip holding conversations.json, or the file."""
    text = json.dumps(list(conversations))
    if zipped:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("conversations.json", text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def synthetic_chatgpt(
    messages: int, days: int = 730, per_conversation: int = 20, seed: int = 48
) -> list[dict[str, Any]]:
    """`messages` of the person's (each with a reply) in conversations of `per_conversation`,
    spread evenly over `days` ending now, worded as the bench's memories."""
    factory, rng = MemoryFactory(), random.Random(seed)
    start = datetime.now(UTC) - timedelta(days=days)
    count = -(-messages // per_conversation)
    step = timedelta(days=days) / count
    conversations = []
    for number in range(count):
        at = start + step * number
        conversation = ChatGptConversation(f"conv-{number}", f"Talk {number}", at)
        for turn in range(min(per_conversation, messages - number * per_conversation)):
            said = factory.memory(rng, number * per_conversation + turn, at).request.content
            conversation.add("user", [said], at + timedelta(minutes=2 * turn))
            conversation.add("assistant", ["I see."], at + timedelta(minutes=2 * turn, seconds=30))
        conversations.append(conversation.export())
    return conversations
