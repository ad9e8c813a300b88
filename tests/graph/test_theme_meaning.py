"""Which threads their sources' closeness in meaning lets through as themes, on vectors made in
the test (the rule, not the model: `test_dream_kind_rules.py` makes its cosines by hand too)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from graph.dreams.neighbours import ExactSpace
from graph.dreams.records import Memory
from graph.dreams.themes import coherent_themes, themes_in
from graph.schema import VECTOR_DIMENSIONS

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

START = datetime(2024, 3, 1, 9, tzinfo=UTC)
# Three routines, each said four times; a note naming someone in passing is one of its routine's
# notes with a clause added, so in meaning it sits with that routine, far from the other two.
ROUTINES = ("Paid the rent, on time.", "In the garden I weeded the beans.", "Night shift on ward four, calm.")
CLAUSES = ("Lent {} my umbrella.", "{} rang in the evening.", "Saw {} at the bus stop.")


def _space(named: str) -> tuple[list[Memory], ExactSpace]:
    rng = np.random.default_rng(7)
    axes = np.eye(VECTOR_DIMENSIONS, dtype=np.float32)
    texts, vectors = [], []
    for routine, (text, clause) in enumerate(zip(ROUTINES, CLAUSES, strict=True)):
        for _ in range(4):
            texts.append(text)
            vectors.append(axes[routine] + 0.05 * rng.standard_normal(VECTOR_DIMENSIONS))
        texts.append(f"{text} {clause.format(named)}")
        vectors.append(axes[routine] + 0.05 * rng.standard_normal(VECTOR_DIMENSIONS))
    days = [START + timedelta(days=7 * index) for index in range(len(texts))]
    memories = [
        Memory("fragment", f"m{i}", text, 0.8, at, at)
        for i, (text, at) in enumerate(zip(texts, days, strict=True))
    ]
    unit = np.array([v / np.linalg.norm(v) for v in vectors], dtype=np.float32)
    return memories, ExactSpace(memories, unit)


async def test_a_name_said_in_passing_beside_other_news_is_a_theme_however_far_apart_the_notes() -> None:
    memories, space = _space("Krotravon")
    holders = [memory for memory in memories if "Krotravon" in memory.text]
    themes = await coherent_themes(space, themes_in({"krotravon": holders}, len(memories)))
    assert [theme.term for theme in themes] == ["Krotravon"]
    assert themes[0].coherence is not None and themes[0].bar is not None
    assert themes[0].coherence < themes[0].bar


async def test_a_common_word_through_notes_far_apart_in_meaning_is_no_theme() -> None:
    memories, space = _space("my flatmate")
    holders = [memory for memory in memories if "flatmate" in memory.text]
    candidates = themes_in({"flatmate": holders}, len(memories))
    assert [theme.term for theme in candidates] == ["flatmate"]
    assert await coherent_themes(space, candidates) == []


async def test_a_name_english_often_uses_must_still_hold_its_notes_together() -> None:
    """ "Max", "Rome", a capitalised "Yep" or "Wind": many people and things, or a sentence's start."""
    memories, space = _space("Max")
    holders = [memory for memory in memories if "Max" in memory.text]
    candidates = themes_in({"max": holders}, len(memories))
    assert [theme.term for theme in candidates] == ["Max"]
    assert await coherent_themes(space, candidates) == []
