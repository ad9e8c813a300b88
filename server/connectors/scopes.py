"""The scopes a connector may ask for: the same two a static token has, in words for the page."""

from __future__ import annotations

from typing import Final

SCOPES: Final = ("read", "write")
IN_WORDS: Final = {
    "read": "Read your memories, dreams and dreaming runs",
    "write": "Add to, correct and forget your memories, and review and answer dreams",
}


def widened(scopes: list[str] | None) -> list[str]:
    """What a request for `scopes` is granted as: write implies read (every tool that writes reads
    first), and no scope asked means read and write, what a static token has by default."""
    asked = set(scopes or SCOPES)
    return ["read", "write"] if "write" in asked else ["read"]
