"""Recall as of an earlier `known_at` shows no dream made after it, nor one citing memories
recorded after it: related dreams never quote what was not yet known."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.server.conftest import CallTool
from tests.server.support import first_dream, remember_all

pytestmark = pytest.mark.anyio


async def test_related_dreams_respect_known_at(call: CallTool) -> None:
    before_all = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    await remember_all(call)
    remembered = datetime.now(UTC).isoformat()
    dream = await first_dream(call, max_outputs=1)
    source = next(item for item in dream["sources"] if item["kind"] == "fragment")  # type: ignore[union-attr]

    def shown(found: dict[str, object]) -> bool:
        return dream["id"] in [item["dream_id"] for item in found["related_dreams"]]  # type: ignore[attr-defined]

    # By its words (the lexical search for dreams) and by the memory it cites.
    for query in (str(dream["hypothesis"]), str(source["text"])):
        assert shown(await call("recall_memory", query=query))
        assert not shown(await call("recall_memory", query=query, known_at=before_all))
        then = await call("recall_memory", query=query, known_at=remembered)
        assert not shown(then), "a dream made after known_at was shown"
    # The memory itself was known then, and is found.
    then = await call("recall_memory", query=str(source["text"]), known_at=remembered)
    assert source["id"] in [item["id"] for item in then["results"]]
