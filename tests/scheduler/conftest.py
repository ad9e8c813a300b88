"""The scheduler tests reuse the in-process MCP client fixtures of the server tests."""

from tests.server.conftest import call, client

__all__ = ["call", "client"]
