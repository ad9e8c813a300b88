"""The review page: a person's dreams and memory in a browser, on the MCP server's HTTP port."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from server.connectors.provider import ConnectorProvider
from server.context import AppContext, LiveApp
from server.review.consent import ConsentPage
from server.review.cycles import ManualCycles
from server.review.routes import ROOT, ReviewPage
from server.review.sessions import SessionStore
from server.token_registry import TokenRegistry

__all__ = ["ROOT", "mount_review"]


def mount_review(
    server: MCPServer[AppContext], live: LiveApp, tokens: TokenRegistry, connectors: ConnectorProvider | None
) -> None:
    """Serve the page under /review (with the consent page when `connectors` is set). Its routes
    do their own sign-in: MCP's bearer check covers /mcp only."""
    public_origin = connectors.public_url if connectors else None
    page = ReviewPage(live, SessionStore(live, tokens), ManualCycles(), public_origin=public_origin)
    for path, methods, endpoint in [*page.endpoints(), *ConsentPage(page, connectors).endpoints()]:
        server.custom_route(path, methods=methods, include_in_schema=False)(endpoint)
