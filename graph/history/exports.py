"""Reading an assistant's data export: the zip it is downloaded as, or the `conversations.json`
inside, as one JSON list of conversations; each refusal names what is wrong and what to do."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError

from graph.errors import InvalidInputError, validation_problems

CONVERSATIONS: Final = "conversations.json"
NOTHING: Final = "Nothing was imported."
M = TypeVar("M", bound=BaseModel)


def refuse(where: str, problem: str) -> InvalidInputError:
    return InvalidInputError(f"{where}: {problem}. {NOTHING}")


def _from_zip(path: Path) -> tuple[str, bytes]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = [name for name in archive.namelist() if Path(name).name == CONVERSATIONS]
            if len(names) != 1:
                found = "none" if not names else ", ".join(names)
                raise refuse(str(path), f"the zip should hold one {CONVERSATIONS}, it holds {found}")
            return f"{path}:{names[0]}", archive.read(names[0])
    except (zipfile.BadZipFile, EOFError) as error:
        raise refuse(
            str(path), f"the zip is damaged or cut short ({error}); download the export again"
        ) from None


def _read(path: Path) -> tuple[str, bytes]:
    try:
        if zipfile.is_zipfile(path):
            return _from_zip(path)
        data = path.read_bytes()
    except OSError as error:
        raise refuse(str(path), f"cannot be read ({error.strerror})") from None
    if data.startswith(b"PK"):
        raise refuse(str(path), "the zip is damaged or cut short; download the export again")
    return str(path), data


def _decoded(name: str, data: bytes) -> Any:
    try:
        return json.loads(data)
    except UnicodeDecodeError as error:
        raise refuse(name, f"is not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        # An export is one JSON list: a file that does not end as one was cut short.
        cut_short = error.pos >= len(data.rstrip()) or not data.rstrip().endswith(b"]")
        why = "the file ends before its JSON does: it was cut short, copy it again"
        why = why if cut_short else error.msg
        raise refuse(name, f"line {error.lineno} column {error.colno}: {why}") from None


def read_conversations(path: Path) -> tuple[str, list[Any]]:
    """The export's conversations as JSON values, with the name to refuse them by."""
    name, data = _read(path)
    conversations = _decoded(name, data)
    if not isinstance(conversations, list):
        held = type(conversations).__name__
        raise refuse(name, f"{CONVERSATIONS} holds a list of conversations; this file holds a {held}")
    return name, conversations


def checked(
    name: str, conversations: Sequence[Any], model: type[M], describe: Callable[[Any], str]
) -> list[M]:
    """Every conversation against `model`; the first that fails is refused by its place and title."""
    valid = []
    for number, raw in enumerate(conversations, start=1):
        try:
            valid.append(model.model_validate(raw))
        except ValidationError as error:
            raise refuse(
                name, f"conversation {number}{describe(raw)}: {validation_problems(error)}"
            ) from None
    return valid


def named(title: str | None) -> str:
    """ " ('title')" for a refusal; nothing when there is no title."""
    return f" ({title!r})" if title else ""


def titled(raw: Any, key: str) -> str:
    """`named` for a raw conversation whose title is under `key`, if it has one."""
    title = raw.get(key) if isinstance(raw, dict) else None
    return named(title if isinstance(title, str) else None)
