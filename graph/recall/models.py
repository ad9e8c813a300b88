"""What recall returns: the results, the evidence behind them, and the related dreams."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from graph.base import Frozen
from graph.memory.models import Authority, ClarificationView

RecallLane = Literal["lexical", "semantic", "date", "context"]
RecallKind = Literal["fact", "claim", "fragment"]


class Evidence(Frozen):
    fragment_id: str
    text: str
    source: str | None
    authority: Authority
    status: str


class RecallItem(Frozen):
    kind: RecallKind
    id: str
    text: str
    score: float = Field(
        description="Fused relevance, 0 to 1: 0.35 of the query words matched, 0.65 of meaning"
    )
    lanes: list[RecallLane] = Field(
        description="Found by words, meaning, the days the query names (date), answering a question (context)"
    )
    status: str
    created_at: datetime = Field(description="When it was stored")
    occurred_at: datetime | None = Field(
        default=None, description="When the person said or did it (fragments), if different from stored"
    )
    quality: float
    evidence: list[Evidence] | None = None


class RelatedDream(Frozen):
    dream_id: str
    hypothesis: str
    status: str
    likelihood: float
    confidence: float
    reason: str = Field(description="How it relates, in words: the recalled memory it cites, or shared words")
    source_ids: list[str]
    cites_recalled: list[str] = Field(default_factory=list, description="Ids of the results it cites")
    shared_words: list[str] = Field(default_factory=list, description="Else: the question's words it holds")


class RecallResult(Frozen):
    query: str
    results: list[RecallItem]
    clarifications: list[ClarificationView]
    related_dreams: list[RelatedDream] = Field(
        description="Hypotheses to ask the person about; never facts, never part of results"
    )
