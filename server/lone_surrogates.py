"""JSON whose strings hold a lone surrogate escape (`"\\ud800"`), read with U+FFFD in its place.

A JavaScript host that cuts a string inside an emoji sends half of a surrogate pair. JSON allows
the escape, but the SDK parses messages with pydantic's parser, which refuses it ("unexpected end
of hex escape"): over stdio the request was then answered only by a parse error with id null, so
the host waited for its own timeout, and over HTTP it got a 400. Python's `json` reads the escape;
the half character becomes U+FFFD, as undecodable bytes already do on the stdio transport.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_types import JSONRPCMessage, jsonrpc_message_adapter
from pydantic import ValidationError
from pydantic_core import from_json
from starlette.types import Scope

# Any escaped surrogate, paired or not: a cheap test before parsing anything twice.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
SURROGATE = re.compile("[\ud800-\udfff]")


def mend(value: Any) -> Any:
    """`value` (parsed JSON) with every surrogate left in its strings, keys too, replaced by
    U+FFFD; `json` has already joined the escapes that form a pair into one character."""
    if isinstance(value, str):
        return SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [mend(item) for item in value]
    if isinstance(value, dict):
        return {mend(key): mend(item) for key, item in value.items()}
    return value


def mended_json(raw: str | bytes) -> Any | None:
    """The JSON value of `raw` with lone surrogates replaced, or None when `raw` holds no
    surrogate escape, is not JSON even so, or parses as it is (nothing to mend)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if not SURROGATE_ESCAPE.search(data):
        return None
    try:
        from_json(data)
        return None
    except ValueError:
        pass
    try:
        return mend(json.loads(data))
    except (ValueError, RecursionError):
        return None


def mended_message(error: Exception) -> JSONRPCMessage | None:
    """The message the stdio transport could not read because of a lone surrogate, or None.

    The transport passes the failed `validate_json`'s error on; its `input` is the line."""
    if not isinstance(error, ValidationError):
        return None
    lines = [item["input"] for item in error.errors() if item["type"] == "json_invalid"]
    if len(lines) != 1 or not isinstance(lines[0], str | bytes):
        return None
    value = mended_json(lines[0])
    if value is None:
        return None
    try:
        return jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return None


def mended_request(scope: Scope, body: bytes) -> tuple[Scope, bytes]:
    """An HTTP request whose JSON body holds a lone surrogate, mended, its Content-Length to match;
    any other request as it is."""
    value = mended_json(body)
    if value is None:
        return scope, body
    mended = json.dumps(value, ensure_ascii=False).encode()
    headers = [(key, header) for key, header in scope["headers"] if key.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(len(mended)).encode())]}, mended
