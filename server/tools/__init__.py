"""MCP tools: thin adapters that validate arguments, resolve the profile and call `graph/`."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from server.context import AppContext
from server.tools import dreaming, host_dreaming, memory


def register_all(server: MCPServer[AppContext]) -> None:
    memory.register(server)
    dreaming.register(server)
    host_dreaming.register(server)
