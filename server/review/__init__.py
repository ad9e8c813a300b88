"""The review page: a person's dreams and memory in a browser, on the MCP server's HTTP port."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from server.context import AppContext, LiveApp
from server.review.cycles import ManualCycles
from server.review.routes import ROOT, ReviewPage
from server.review.sessions import SessionStore
from server.token_registry import TokenRegistry

__all__ = ["ROOT", "mount_review"]


def mount_review(server: MCPServer[AppContext], live: LiveApp, tokens: TokenRegistry) -> None:
    """Serve the page under /review. Its routes do their own sign-in: MCP's bearer check covers /mcp only."""
    page = ReviewPage(live, SessionStore(tokens), ManualCycles())
    for path, methods, endpoint in page.endpoints():
        server.custom_route(path, methods=methods, include_in_schema=False)(endpoint)
