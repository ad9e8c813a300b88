"""What the history parsers read: the person's own words with when they were said, and what was
left out and why. One parser per format turns its file into a `Parsed`; `pieces` shapes it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from graph.memory.models import SharedKind


class Format(StrEnum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    JSONL = "jsonl"
    NOTES = "notes"


class Skip(StrEnum):
    """Why a message or note becomes no memory."""

    OTHER_SPEAKER = "replies and other speakers' words"
    HIDDEN = "hidden context (custom instructions, system messages)"
    OFF_BRANCH = "edited or regenerated away"
    EMPTY = "empty"
    NOT_TEXT = "images or files only"
    CODE = "code only"
    PASTED = "pasted documents"


class Mark(StrEnum):
    """What was left out of a message that is kept."""

    CODE = "code blocks left out"
    ATTACHMENT = "attachments or images left out"


@dataclass(frozen=True)
class Said:
    """One message of the person's, or one note, as the file holds it."""

    conversation_id: str
    title: str | None
    message_id: str
    occurred_at: datetime  # aware
    text: str
    # Left out of the text by the parser (attachments, images); the shaper adds code.
    marks: frozenset[Mark] = frozenset()
    # What the person shared rather than said (a photo's caption), when the file says so.
    shared: SharedKind | None = None


@dataclass(frozen=True)
class Parsed:
    """A whole file read and checked: the person's words, oldest first, and what was skipped."""

    format: Format
    conversations: int
    said: tuple[Said, ...]
    skipped: Counter[Skip] = field(default_factory=Counter)
