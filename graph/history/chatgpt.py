"""ChatGPT's data export: `conversations.json`, a list of conversations whose `mapping` holds
message nodes linked by `parent` and `children`.

A message edited or an answer regenerated leaves a branch in the mapping; `current_node` is the
last message of the branch the person finally saw, so only the path from it back to the root
counts. Of that path only the person's own messages (`author.role` "user") become memories;
their `content.parts` are strings, or objects for images, files and voice (whose transcript is
kept), or null. `create_time` is
in epoch seconds and may be null: such a message takes the time of the one before it (or of the
conversation). Custom instructions (`user_editable_context`) and messages hidden from the
conversation are the person's settings, not things they said.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from graph.history.exports import checked, named, read_conversations, refuse, titled
from graph.history.records import Format, Mark, Parsed, Said, Skip

TEXT_TYPES: Final = frozenset({"text", "multimodal_text"})
# A voice message's part: the transcript of what the person said.
VOICE: Final = "audio_transcription"


class _Loose(BaseModel):
    # The export carries many fields Reverie has no use for; they are left unread.
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Author(_Loose):
    role: str


class _Content(_Loose):
    content_type: str
    parts: list[Any] | None = None


class _Message(_Loose):
    id: str
    author: _Author
    create_time: float | None = None
    content: _Content
    metadata: dict[str, Any] | None = None

    def hidden(self) -> bool:
        return bool((self.metadata or {}).get("is_visually_hidden_from_conversation"))


class _Node(_Loose):
    message: _Message | None = None
    parent: str | None = None


class Conversation(_Loose):
    id: str | None = None
    conversation_id: str | None = None
    title: str | None = None
    create_time: float | None = None
    mapping: dict[str, _Node] = Field(min_length=1)
    current_node: str

    def key(self) -> str | None:
        return self.conversation_id or self.id


def _when(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _path(conversation: Conversation, where: str) -> list[str]:
    """The node ids from the root to `current_node`, the branch the person saw last."""
    path: list[str] = []
    node_id: str | None = conversation.current_node
    while node_id is not None:
        node = conversation.mapping.get(node_id)
        if node is None:
            raise refuse(where, f"node {node_id!r} is named but not in the mapping")
        if node_id in path:
            raise refuse(where, f"node {node_id!r} is its own ancestor")
        path.append(node_id)
        node_id = node.parent
    return path[::-1]


def _off_branch(conversation: Conversation, path: list[str]) -> int:
    """The person's messages on branches they left by editing or regenerating."""
    on_path = set(path)
    return sum(
        1
        for node_id, node in conversation.mapping.items()
        if node_id not in on_path and node.message is not None and node.message.author.role == "user"
    )


def _words(part: Any) -> str | None:
    """A part's words: a string, or what the person said in a voice message; else None."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("content_type") == VOICE and isinstance(part.get("text"), str):
        return str(part["text"])
    return None


def _text(message: _Message) -> tuple[str, frozenset[Mark]]:
    parts = [part for part in message.content.parts or [] if part is not None]
    words = [_words(part) for part in parts]
    texts = [text for text in words if text and text.strip()]
    others = any(text is None for text in words)
    return "\n\n".join(texts), frozenset({Mark.ATTACHMENT}) if others else frozenset()


def _skip(message: _Message) -> Skip | None:
    if message.author.role != "user":
        return Skip.OTHER_SPEAKER
    if message.hidden() or message.content.content_type not in TEXT_TYPES:
        return Skip.HIDDEN
    return None


def _said(conversation: Conversation, key: str, where: str, skipped: Counter[Skip]) -> list[Said]:
    said: list[Said] = []
    last = conversation.create_time
    path = _path(conversation, where)
    skipped[Skip.OFF_BRANCH] += _off_branch(conversation, path)
    for node_id in path:
        message = conversation.mapping[node_id].message
        if message is None:
            continue
        last = message.create_time if message.create_time is not None else last
        if (reason := _skip(message)) is not None:
            skipped[reason] += 1
            continue
        text, marks = _text(message)
        if not text:
            skipped[Skip.NOT_TEXT if marks else Skip.EMPTY] += 1
            continue
        if last is None:
            raise refuse(where, f"message {message.id!r} has no create_time, nor has anything before it")
        said.append(Said(key, conversation.title, message.id, _when(last), text, marks))
    return said


def read_chatgpt(path: Path) -> Parsed:
    """The whole export read and checked; the first problem is refused with its conversation."""
    name, raw = read_conversations(path)
    conversations = checked(name, raw, Conversation, lambda item: titled(item, "title"))
    skipped: Counter[Skip] = Counter()
    said: list[Said] = []
    for number, conversation in enumerate(conversations, start=1):
        where = f"{name}: conversation {number}{named(conversation.title)}"
        key = conversation.key()
        if not key:
            raise refuse(where, "it has neither conversation_id nor id")
        said += _said(conversation, key, where, skipped)
    return Parsed(Format.CHATGPT, len(conversations), tuple(said), skipped)
