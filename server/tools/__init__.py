"""MCP tools: thin adapters that validate arguments, resolve the profile and call `graph/`."""

from __future__ import annotations

import functools

from mcp.server.mcpserver.tools import Tool

from server.tools import dreaming, host_dreaming, memory
from server.tools.shelf import ToolShelf


@functools.cache
def reverie_tools() -> tuple[Tool, ...]:
    """Every tool, built once per process and shared by every server built in it.

    Building a tool derives its JSON schemas with pydantic: about 0.13 s of CPU for all of them,
    the same for every server. A process serves with one server, but the test suite builds
    hundreds in one process. A tool keeps no state of its own (a server's comes through each
    call's context), so servers can share them."""
    shelf = ToolShelf()
    memory.register(shelf)
    dreaming.register(shelf)
    host_dreaming.register(shelf)
    return shelf.tools()
