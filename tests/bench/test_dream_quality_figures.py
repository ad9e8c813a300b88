"""The LoCoMo dream bench's own figures (`bench.dream_quality`), on dreams made in the test."""

from __future__ import annotations

import pytest

from bench.dream_quality import DreamSeen, Lane

pytestmark = pytest.mark.unit


def seen(conversation: str, night: int, topic: str | None) -> DreamSeen:
    return DreamSeen(conversation, "...", None, [], False, False, night=night, asked_about=topic)


def test_a_topic_asked_twice_in_one_night_of_one_conversation_is_counted_once_per_extra_dream() -> None:
    lane = Lane(
        [
            seen("26", 0, "pottery"),
            seen("26", 0, "pottery"),
            seen("26", 0, "pottery"),
            seen("26", 1, "pottery"),  # another night
            seen("30", 0, "pottery"),  # another conversation
            seen("26", 0, None),  # close in meaning alone: no topic
            seen("26", 0, None),
        ]
    )
    assert lane.figures()["topic_asked_again"] == 2
    assert Lane([seen("26", 0, "pottery"), seen("26", 1, "pottery")]).topic_asked_again() == 0
