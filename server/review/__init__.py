"""The review page: a person's dreams and memory in a browser, on the MCP server's HTTP port."""

from __future__ import annotations

from collections.abc import Iterable

from mcp.server.mcpserver import MCPServer

from server.auth import StaticTokenVerifier, TokenGrant
from server.context import AppContext, LiveApp
from server.review.cycles import ManualCycles
from server.review.routes import ROOT, ReviewPage
from server.review.sessions import SessionStore

__all__ = ["ROOT", "mount_review"]


def mount_review(server: MCPServer[AppContext], live: LiveApp, grants: Iterable[TokenGrant]) -> None:
    """Serve the page under /review. Its routes do their own sign-in: MCP's bearer check covers /mcp only."""
    page = ReviewPage(live, SessionStore(StaticTokenVerifier(grants)), ManualCycles())
    for path, methods, endpoint in page.endpoints():
        server.custom_route(path, methods=methods, include_in_schema=False)(endpoint)
