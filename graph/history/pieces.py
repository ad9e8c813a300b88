"""From what the person said to what `remember` stores: code and pasted documents left out,
long texts cut into pieces, each piece keyed so a second import finds it already there.

`remember` itself never splits: it refuses text over `MAX_CONTENT_CHARS` and asks the caller to
split it. The importer cuts at `PIECE_CHARS`, about what the embedding model reads of one text
(512 tokens), at paragraph breaks first, then sentence ends, then spaces, so a piece's vector
stands for all of it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from graph.errors import InvalidInputError
from graph.history.exports import NOTHING
from graph.history.records import Format, Mark, Parsed, Said, Skip
from graph.memory.models import MAX_SOURCE_CHARS, SharedKind

PIECE_CHARS: Final = 2_000
# A message of a chat this long was pasted (a document, a log, a transcript), not written: the
# longest messages people type run to a few thousand characters.
PASTED_CHARS: Final = 20_000
TITLE_CHARS: Final = 200
_LABELS: Final = {
    Format.CHATGPT: "ChatGPT",
    Format.CLAUDE: "Claude",
    Format.JSONL: "JSON Lines",
    Format.NOTES: "note",
}
# A fence opens with three or more backticks or tildes (up to three spaces in, as CommonMark
# has it) and closes with at least as many of the same; an unclosed fence runs to the end.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002])\s+")
# Half of a surrogate pair, as an export cut inside an emoji holds: JSON reads it, UTF-8 (and so
# Neo4j) cannot carry it, so it becomes U+FFFD, as the server reads it from a host.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Piece:
    """One memory to store: `remember`'s request fields."""

    key: str
    text: str
    occurred_at: datetime
    source: str
    metadata: dict[str, Any]
    shared: SharedKind | None = None


@dataclass(frozen=True)
class Plan:
    """A parsed file shaped into pieces, oldest first, with what was skipped or marked."""

    format: Format
    conversations: int
    messages: int  # the person's messages (or notes) read
    pieces: tuple[Piece, ...]
    skipped: Counter[Skip] = field(default_factory=Counter)
    marked: Counter[Mark] = field(default_factory=Counter)
    split: int = 0  # messages cut into more than one piece

    def span(self) -> tuple[datetime, datetime] | None:
        if not self.pieces:
            return None
        return self.pieces[0].occurred_at, self.pieces[-1].occurred_at


def without_code(text: str) -> tuple[str, bool]:
    """The text with its fenced code blocks taken out; whether it had any."""
    kept: list[str] = []
    fence: str | None = None
    found = False
    for line in text.splitlines():
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence, found = opening[1], True
        elif fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = None
        else:
            kept.append(line)
    return "\n".join(kept).strip(), found


def split_text(text: str, limit: int = PIECE_CHARS) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut where the text itself breaks."""
    pieces: list[str] = []
    current = ""
    for unit in _units(text, limit):
        joined = f"{current}\n\n{unit}" if current else unit
        if len(joined) <= limit:
            current = joined
        else:
            pieces.append(current)
            current = unit
    return [*pieces, current] if current else pieces


def _units(text: str, limit: int) -> Iterator[str]:
    """Paragraphs; a paragraph over `limit` as its sentences; a sentence over it cut at spaces."""
    for paragraph in filter(None, (part.strip() for part in _PARAGRAPH.split(text))):
        if len(paragraph) <= limit:
            yield paragraph
            continue
        for sentence in filter(None, _SENTENCE_END.split(paragraph)):
            yield from _at_spaces(sentence, limit)


def _at_spaces(sentence: str, limit: int) -> Iterator[str]:
    rest = sentence
    while len(rest) > limit:
        space = rest.rfind(" ", 0, limit + 1)
        cut = space if space > 0 else limit
        yield rest[:cut].strip()
        rest = rest[cut:].strip()
    if rest:
        yield rest


def _source(parsed: Parsed, said: Said) -> str:
    if parsed.format is Format.NOTES:
        return f"note {said.conversation_id}"[:MAX_SOURCE_CHARS]
    title = f": {said.title}" if said.title else ""
    return f"{_LABELS[parsed.format]} conversation{title}"[:MAX_SOURCE_CHARS]


def _metadata(parsed: Parsed, said: Said, marks: Sequence[Mark], index: int, count: int) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "imported_from": parsed.format.value,
        "conversation": said.conversation_id,
        "message": said.message_id,
    }
    if said.title:
        metadata["title"] = _LONE_SURROGATE.sub("\ufffd", said.title[:TITLE_CHARS])
    if count > 1:
        metadata["piece"] = f"{index + 1} of {count}"
    if marks:
        metadata["left_out"] = sorted(mark.value for mark in marks)
    return metadata


def key_of(format: Format, conversation_id: str, message_id: str, index: int) -> str:
    return f"{format.value}:{conversation_id}:{message_id}:{index}"


def content_id(*parts: str) -> str:
    """An id for an entry the file names none for: its words and time, so the same entry read
    again gets the same key and an edited one a new one."""
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:20]


def _shape(parsed: Parsed, said: Said, shaping: _Shaping) -> list[Piece]:
    """The pieces one message becomes; counts what it skipped or marked on `shaping`."""
    text, marks = _LONE_SURROGATE.sub("\ufffd", said.text).strip(), set(said.marks)
    if parsed.format is not Format.JSONL:
        text, had_code = without_code(text)
        if had_code:
            marks.add(Mark.CODE)
    if not text:
        shaping.skipped[Skip.CODE if Mark.CODE in marks else Skip.EMPTY] += 1
        return []
    if parsed.format in (Format.CHATGPT, Format.CLAUDE) and len(text) > PASTED_CHARS:
        shaping.skipped[Skip.PASTED] += 1
        return []
    shaping.marked.update(marks)
    texts = split_text(text)
    shaping.split += len(texts) > 1
    ordered = sorted(marks)
    return [
        Piece(
            key=key_of(parsed.format, said.conversation_id, said.message_id, index),
            text=piece,
            occurred_at=said.occurred_at,
            source=_source(parsed, said),
            metadata=_metadata(parsed, said, ordered, index, len(texts)),
            shared=said.shared,
        )
        for index, piece in enumerate(texts)
    ]


def _one_per_key(pieces: Iterable[Piece]) -> list[Piece]:
    """The pieces with a repeated entry (the same id and words) once; the same id with other
    words is refused, since only one of them could be kept under it."""
    by_key: dict[str, Piece] = {}
    for piece in pieces:
        held = by_key.setdefault(piece.key, piece)
        if held.text != piece.text:
            conversation, message = piece.metadata["conversation"], piece.metadata["message"]
            raise InvalidInputError(
                f"two entries of conversation {conversation!r} have the id {message!r} but say "
                f"different things: give each its own id. {NOTHING}"
            )
    return list(by_key.values())


@dataclass
class _Shaping:
    skipped: Counter[Skip]
    marked: Counter[Mark] = field(default_factory=Counter)
    split: int = 0


def plan_import(parsed: Parsed) -> Plan:
    """Every piece the file gives, oldest first (a message's pieces in their order)."""
    shaping = _Shaping(skipped=Counter(parsed.skipped))
    ordered = sorted(parsed.said, key=lambda said: (said.occurred_at, said.conversation_id, said.message_id))
    pieces = _one_per_key(piece for said in ordered for piece in _shape(parsed, said, shaping))
    return Plan(
        format=parsed.format,
        conversations=parsed.conversations,
        messages=len(parsed.said),
        pieces=tuple(pieces),
        skipped=shaping.skipped,
        marked=shaping.marked,
        split=shaping.split,
    )
