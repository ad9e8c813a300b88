"""Opaque cursors for newest-first listings: the last item's time and id, base64 JSON."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from graph.errors import InvalidInputError

# A cursor holds a timestamp and an id: well under this many characters.
MAX_CURSOR_CHARS = 400


def encode_cursor(at: datetime, item_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([at.isoformat(), item_id]).encode()).decode()


def decode_cursor(cursor: str, listing: str) -> tuple[datetime, str]:
    """The position `cursor` names; `listing` is the tool that issued it, for the error."""
    try:
        # The cursors this server issues are short; a long one is refused before it is parsed.
        if len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError(cursor[:20])
        at, item_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return datetime.fromisoformat(at), str(item_id)
    except (ValueError, TypeError, binascii.Error, RecursionError):
        raise InvalidInputError(
            f"cursor is not one this server issued; pass next_cursor from {listing} as is."
        ) from None
