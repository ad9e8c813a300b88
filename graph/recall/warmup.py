"""Recall's query plans, made when a server starts rather than by the first question.

On a Neo4j just started, the first recall spent 6.6 s planning its two searches (the lexical
one 6.5 s, the nearest-vectors one 5.5 s, side by side on two idle cores) against 0.14 s for the
next one; with two test workers beside it, the first recall of an upgraded store went past the
15 s call deadline. Neo4j caches a plan under the query's text and its parameters' types, not
their values, so one recall of any profile, with the defaults a host sends, plans recall for
every profile the server serves.
"""

from __future__ import annotations

from typing import Final

from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.recall.request import RecallRequest
from graph.recall.search import recall

# Several words, as a host's question has (a plan cached for a one-word list did not serve a
# three-word question, which spent 1.7 s planning again), and a day, so that the date lane's
# query is planned too (1.5 s on its own, the first time).
WARM_UP: Final = RecallRequest(query="memory of a day spent with friends on 1 June 2024")
# Planning on a loaded machine may take longer than a call may; nobody waits on this one.
WARM_UP_PATIENCE: Final = 20


async def warm_up(graph: ProfileGraph, vectors: VectorKeeper | None) -> None:
    """One recall whose answer is dropped, run for the plans it leaves in Neo4j's cache."""
    await recall(graph.patient(WARM_UP_PATIENCE), WARM_UP, vectors=vectors)
