"""A folder of Markdown notes, each one thing the person wrote on one day.

A note's date comes from its front matter's `date:` (a date, or a date and time; without an
offset, UTC), else from its file name (`2024-03-05-anything.md`), else from the date the caller
gives for notes that have none; a note with none of these is refused, as is front matter that
cannot be read. A date without a time is that day at noon UTC, so it stays that day in most
zones. The front matter's `title:` names the note, else its file name.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any, Final

import yaml  # type: ignore[import-untyped]

from graph.history.exports import refuse
from graph.history.pieces import content_id
from graph.history.records import Format, Parsed, Said

NOON: Final = time(12, tzinfo=UTC)
_DATED_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)^(?:---|\.\.\.)[ \t]*$\n?", re.DOTALL | re.MULTILINE)


def _front_matter(path: Path, text: str) -> tuple[dict[str, Any], str]:
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    try:
        fields = yaml.safe_load(match[1]) or {}
    except yaml.YAMLError as error:
        raise refuse(str(path), f"its front matter is not YAML ({error})") from None
    if not isinstance(fields, dict):
        raise refuse(str(path), "its front matter is not a map of fields")
    return fields, text[match.end() :]


def _as_time(path: Path, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, NOON)
    try:
        return _as_time(path, datetime.fromisoformat(str(value)))
    except ValueError:
        raise refuse(str(path), f"date: {value!r} is not a date (write it as 2024-03-05)") from None


def _dated(path: Path, fields: dict[str, Any], undated: date | None) -> datetime:
    if fields.get("date") is not None:
        return _as_time(path, fields["date"])
    named = _DATED_NAME.match(path.name)
    if named:
        try:
            return datetime.combine(date.fromisoformat(named[1]), NOON)
        except ValueError:
            raise refuse(str(path), f"its name starts with {named[1]!r}, which is no date") from None
    if undated is not None:
        return datetime.combine(undated, NOON)
    raise refuse(
        str(path),
        "the note has no date: give it `date: 2024-03-05` in its front matter, name it "
        "2024-03-05-<name>.md, or pass --undated-date with the date to give notes that have none",
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise refuse(str(path), f"is not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise refuse(str(path), f"cannot be read ({error.strerror})") from None


def _note(folder: Path, path: Path, undated: date | None) -> Said:
    fields, body = _front_matter(path, _read(path))
    name = path.relative_to(folder).as_posix()
    title = fields.get("title")
    when = _dated(path, fields, undated)
    # An edited note is imported again as what it now says; its earlier words stay as they were.
    return Said(name, str(title) if title else path.stem, content_id(body), when, body)


def read_notes(folder: Path, undated: date | None = None) -> Parsed:
    """Every `*.md` under `folder`, each checked; the first without a date is refused."""
    if not folder.is_dir():
        raise refuse(str(folder), "is not a folder; give the folder that holds the notes")
    paths = sorted(folder.rglob("*.md"))
    if not paths:
        raise refuse(str(folder), "holds no Markdown notes (*.md)")
    said = tuple(_note(folder, path, undated) for path in paths)
    return Parsed(Format.NOTES, len(said), said)
