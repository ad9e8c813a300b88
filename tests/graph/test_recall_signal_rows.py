"""What one write of recall signals holds, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.recall.signals import Recalled, signal_rows

pytestmark = pytest.mark.unit

START = datetime(2026, 1, 1, tzinfo=UTC)


def test_each_memory_is_counted_once_per_recall_with_the_latest_time() -> None:
    first = Recalled("bike?", START, (("fragment", "bike"), ("fact", "job")))
    second = Recalled("commute?", START + timedelta(seconds=1), (("fragment", "bike"),))
    rows = signal_rows([first, second])

    assert rows["counts"] == {
        "fact": [{"id": "job", "times": 1, "last": 0}],
        "claim": [],
        "fragment": [{"id": "bike", "times": 2, "last": 1}],
    }
    assert rows["at"] == [START, START + timedelta(seconds=1)]
    questions = rows["questions"]
    assert isinstance(questions, list)
    assert [(q["query"], q["at"], q["memory_ids"]) for q in questions] == [
        ("bike?", START, ["bike", "job"]),
        ("commute?", START + timedelta(seconds=1), ["bike"]),
    ]
    assert len({q["id"] for q in questions}) == 2
