"""Claude's data export: `conversations.json`, a list of conversations, each with its
`chat_messages` in order.

A message has a `sender` ("human" or "assistant"), its words in `text` and, in newer exports,
in `content` blocks (`text` blocks; tool calls and thinking are the assistant's), and
`created_at` in ISO 8601 with its zone. Files and pasted attachments (`attachments`, `files`)
are documents the person shared, not their words: they are left out and counted.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict

from graph.history.exports import checked, read_conversations, titled
from graph.history.records import Format, Mark, Parsed, Said, Skip


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Block(_Loose):
    type: str
    text: str | None = None


class _Message(_Loose):
    uuid: str
    sender: str
    text: str | None = None
    content: list[_Block] | None = None
    created_at: AwareDatetime
    attachments: list[Any] | None = None
    files: list[Any] | None = None

    def words(self) -> str:
        blocks = [block.text for block in self.content or () if block.type == "text" and block.text]
        return "\n\n".join(blocks) if blocks else (self.text or "")


class Conversation(_Loose):
    uuid: str
    name: str | None = None
    chat_messages: list[_Message]


def _said(conversation: Conversation, skipped: Counter[Skip]) -> list[Said]:
    said = []
    for message in conversation.chat_messages:
        if message.sender != "human":
            skipped[Skip.OTHER_SPEAKER] += 1
            continue
        marks = frozenset({Mark.ATTACHMENT}) if message.attachments or message.files else frozenset()
        text = message.words().strip()
        if not text:
            skipped[Skip.NOT_TEXT if marks else Skip.EMPTY] += 1
            continue
        title = conversation.name or None
        said.append(Said(conversation.uuid, title, message.uuid, message.created_at, text, marks))
    return said


def read_claude(path: Path) -> Parsed:
    """The whole export read and checked; the first problem is refused with its conversation."""
    name, raw = read_conversations(path)
    conversations = checked(name, raw, Conversation, lambda item: titled(item, "name"))
    skipped: Counter[Skip] = Counter()
    said = [item for conversation in conversations for item in _said(conversation, skipped)]
    return Parsed(Format.CLAUDE, len(conversations), tuple(said), skipped)
