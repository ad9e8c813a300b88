"""stdio that answers every line: one that is not a JSON-RPC message gets a parse error.

The SDK's stdio transport hands such a line (not JSON, JSON nested past the parser's limit, a
shape no message has; invalid UTF-8 is replaced, so it is read) to the server as an exception,
which drops it: a host that sent a request would wait forever. Over HTTP it gets a 400.
A line that fails only because a string holds a lone surrogate escape is read mended instead
(`server.lone_surrogates`), so the request is answered under its own id.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable

from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR, ErrorData, JSONRPCError

from server.lone_surrogates import mended_message

UNREADABLE = (
    "Reverie could not read that line as a JSON-RPC message (not JSON, JSON nested too deeply, "
    "or not a request, notification or response); send one message per line."
)


async def answer_bad_frames(
    incoming: AsyncIterable[SessionMessage | Exception],
    reply: Callable[[SessionMessage], Awaitable[None]],
    good: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    """Pass messages on to `good`; `reply` to each unreadable line with a parse error (id null,
    since its id cannot be read). Only iteration and one send are asked of the SDK's streams, so
    their types (private to the SDK) are not needed."""
    async with good:
        async for item in incoming:
            mended = mended_message(item) if isinstance(item, Exception) else None
            if mended is not None:
                await good.send(SessionMessage(mended))
            elif isinstance(item, Exception):
                error = ErrorData(code=PARSE_ERROR, message=UNREADABLE)
                await reply(SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error)))
            else:
                await good.send(item)
