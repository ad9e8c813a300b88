"""The plain format for history from anywhere: JSON Lines, one thing the person said a line.

    {"text": "I started pottery classes today.", "occurred_at": "2024-03-05T19:30:00+01:00"}
    {"text": "...", "occurred_at": "2024-03-06", "conversation": "journal", "id": "entry-2"}

`text` and `occurred_at` (ISO 8601; a date alone is that day at noon UTC, a time without an
offset is UTC) are required. Optional: `id` (the entry's own id, for idempotency; without it the
text and time stand for it), `conversation` (the sitting it belongs to) and `title`, `role`
("person", the default, or "other": another speaker's words, which are counted and left out),
`source` (where it came from) and `shared` (the text is something the person shared, not their
own words: "photo_caption", "link_title", "quoted_message" or "attachment", as `remember` takes
it). Any other field is refused, so a misspelt one is not lost.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graph.errors import validation_problems
from graph.history.exports import refuse
from graph.history.pieces import content_id
from graph.history.records import Format, Parsed, Said, Skip
from graph.memory.models import MAX_SOURCE_CHARS, SharedKind
from graph.transfer.load import nonblank_lines

NOON: Final = time(12, tzinfo=UTC)
MAX_ID_CHARS: Final = 200


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    occurred_at: datetime
    id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    conversation: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    title: str | None = None
    role: Literal["person", "other"] = "person"
    shared: SharedKind | None = None
    source: str | None = Field(default=None, max_length=MAX_SOURCE_CHARS)

    @field_validator("occurred_at", mode="before")
    @classmethod
    def _day_at_noon(cls, value: object) -> object:
        if isinstance(value, str) and len(value) == len("2024-03-05"):
            return datetime.combine(date.fromisoformat(value), NOON)
        return value

    @field_validator("occurred_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        return value if value.tzinfo else value.replace(tzinfo=UTC)


def _said(entry: Entry) -> Said:
    conversation = entry.conversation or ""
    message_id = entry.id or content_id(entry.occurred_at.isoformat(), entry.text)
    return Said(conversation, entry.title, message_id, entry.occurred_at, entry.text, shared=entry.shared)


def read_jsonl(path: Path) -> Parsed:
    """Every line read and checked; the first wrong one is refused with its number."""
    said: list[Said] = []
    skipped: Counter[Skip] = Counter()
    for number, line in nonblank_lines(path):
        try:
            entry = Entry.model_validate_json(line)
        except ValidationError as error:
            raise refuse(f"{path} line {number}", validation_problems(error)) from None
        if entry.role == "other":
            skipped[Skip.OTHER_SPEAKER] += 1
        else:
            said.append(_said(entry))
    conversations = len({item.conversation_id for item in said})
    return Parsed(Format.JSONL, conversations, tuple(said), skipped)
