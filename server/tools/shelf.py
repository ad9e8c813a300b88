"""Where the tools are built, before any server takes them."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp_types import ToolAnnotations

from server.tools.schemas import compact_schemas


class ToolShelf:
    """Reverie's tools as the SDK builds them, each with a title, its docstring without the
    source's indentation and compacted schemas (`server.tools.schemas`): a host pays for every
    character of them."""

    def __init__(self) -> None:
        self._manager = ToolManager()

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
    ) -> None:
        tool_name = name or fn.__name__
        tool = self._manager.add_tool(
            fn,
            name=tool_name,
            title=title or tool_name.replace("_", " ").capitalize(),
            description=description or inspect.cleandoc(fn.__doc__ or ""),
            annotations=annotations,
        )
        compact_schemas(tool)

    def tools(self) -> tuple[Tool, ...]:
        return tuple(self._manager.list_tools())
