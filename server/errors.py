"""The one place where domain errors become MCP tool errors.

Errors from `graph/` already carry a message written for the caller; anything else is a bug or
an outage we did not foresee, so it is logged with its traceback and the caller gets a short
message with a reference to find it in the log, never the raw text (which could hold Cypher).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from graph.errors import ReverieError

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


def mapped_errors(tool: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(tool)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await tool(*args, **kwargs)
        except ToolError:
            raise
        except ReverieError as error:
            raise ToolError(str(error)) from error
        except Exception as error:
            raise ToolError(logged_internal_error(f"Tool {tool.__name__}")) from error

    return wrapper


def logged_internal_error(where: str) -> str:
    """Log the exception being handled under a fresh reference; the caller's message names it."""
    reference = uuid.uuid4().hex[:12]
    log.exception("%s failed unexpectedly (reference %s)", where, reference)
    return (
        f"Reverie hit an internal error (reference {reference}); nothing was reported as done. "
        "Retry once; if it happens again, the server log has the details under that reference."
    )
