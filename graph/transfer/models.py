"""What export and import report."""

from __future__ import annotations

from pydantic import Field

from graph.base import Frozen


class ExportReport(Frozen):
    profile_id: str
    nodes: int
    edges: int
    embeddings: bool = Field(description="Whether the lines carry each memory's vector")


class ImportReport(Frozen):
    profile_id: str = Field(description="The profile the lines were written into")
    source_profile_id: str = Field(description="The profile they were exported from")
    nodes: int
    edges: int
    embeddings: bool
