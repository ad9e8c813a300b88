"""The connected host's model, reached through MCP sampling, for the dream phase.

Only a client that declared the sampling capability, on a connection that can carry a request
from server to client, is asked. The SDK marks sampling deprecated from protocol 2026-07-28 on
(SEP-2577), whose connections have no such back-channel; hosts on the handshake-era protocol
(the ones that offer sampling today) are served, and the SDK's warning is silenced at the call.
"""

from __future__ import annotations

import warnings

from mcp import MCPDeprecationWarning, MCPError
from mcp_types import SamplingMessage, TextContent

from graph.dreams.host_model import HostModelError, ModelAnswer
from server.context import Ctx


class SamplingModel:
    """`HostModel` over one request's MCP session."""

    def __init__(self, ctx: Ctx) -> None:
        self._session = ctx.session

    async def ask(self, system: str, prompt: str, max_tokens: int) -> ModelAnswer:
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                result = await self._session.create_message(
                    [message], max_tokens=max_tokens, system_prompt=system, temperature=0.2
                )
        except MCPError as error:
            raise HostModelError(f"the host declined or failed: {error}") from error
        if not isinstance(result.content, TextContent):
            raise HostModelError(f"the host answered with {result.content.type}, not text")
        return ModelAnswer(text=result.content.text, model=result.model)


def host_model(ctx: Ctx) -> SamplingModel | None:
    """The host's model when the client offers sampling and this connection can carry a request
    to it (protocol 2026-07-28 connections cannot); None otherwise."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None or not ctx.session.can_send_request:
        return None
    return SamplingModel(ctx)
