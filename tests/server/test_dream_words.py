"""The words of dreams a person reads, checked where a rule can be (issue 49): on a first few
months of mixed memories (people, places and works by name, a plan, a restatement, a
contradiction), every dream the finder proposes keeps names in the case the memories write them,
never calls a named person "it", speaks to the person as "you" and keeps figures and terms of art
out of the hypothesis and the why."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.server.conftest import CallTool
from tests.server.support import works_at

pytestmark = pytest.mark.anyio

START = datetime(2025, 2, 3, 9, tzinfo=UTC)
# Each a day after the start, with what was said; the names are written with a capital every time.
MEMORIES = (
    (0, "Tom, my new physiotherapist, says the shoulder pain comes from how I hold the bow."),
    (2, "Bought a second-hand cello from a shop near the station, my first real instrument."),
    (5, "My sister Inês got engaged last night, we called for an hour."),
    (9, "Thinking of flying to Lisbon in May, looking at flats near Alfama for a week."),
    (12, "Tom gave me stretches for the shoulder and told me to practise shorter sessions."),
    (16, "Started the prelude of the first Bach cello suite, slowly, with a metronome."),
    (20, "Inês asked me to play something at the wedding in September."),
    (27, "Still planning the Lisbon trip: a tram tour and the tile museum are on the list."),
    (31, "Rang Tom to move my appointment to Thursday; the shoulder feels looser already."),
    (38, "Recorded the Bach prelude on my phone and the intonation is better than I feared."),
    (44, "Inês sent the seating plan for the wedding and put me next to her fiancé's parents."),
    (52, "My daughter Lúcia is allergic to peanuts and carries an EpiPen in her school bag."),
    (60, "Tom said I can go back to two hours of cello a day if I keep the stretches."),
    (66, "Changed the cello strings for warmer ones before the lesson on Saturday."),
    (75, "Lúcia, my daughter, is allergic to peanuts and carries her EpiPen in her school bag."),
    (83, "The Bach suite finally sounds like music, I played it for Inês on a video call."),
)
EVERYDAY = (
    "Went to bed early after a long week at work.",
    "Had coffee with a friend and talked about the weekend.",
    "Cleaned the kitchen and did two loads of washing.",
    "Walked to the shop to buy bread and milk.",
    "Watched a film at home and fell asleep halfway.",
)
NAMES = ("Tom", "Inês", "Lúcia", "Lisbon", "Alfama", "Bach", "EpiPen", "Brightwater", "Corvid")
WORDS_A_PERSON_READS = ("hypothesis", "why", "what_if", "possible_outcome")
QUOTED = re.compile(r'"[^"]*"')
JARGON = re.compile(r"\bidf\b|cosine|tenths|\bunits?\b|\d+(\.\d+)?\s*%|[+-]\d+\.\d", re.IGNORECASE)


def day(offset: float) -> str:
    return (START + timedelta(days=offset)).isoformat()


async def plant(call: CallTool) -> None:
    for offset, text in MEMORIES:
        await call("remember", content=text, occurred_at=day(offset))
    for index in range(20):
        await call("remember", content=EVERYDAY[index % 5], occurred_at=day(1 + 4.3 * index))
    await call(
        "remember",
        content="I work at Brightwater Labs as a data engineer.",
        occurred_at=day(1),
        claims=[works_at("Brightwater Labs", 0.95, 0.95)],
    )
    await call(
        "remember",
        content="Still at Brightwater Labs, the data team moved floors.",
        occurred_at=day(4),
        claims=[works_at("Brightwater Labs", 0.95, 0.95)],
    )
    await call(
        "remember",
        content="Started my new job at Corvid Systems this week.",
        occurred_at=day(70),
        claims=[works_at("Corvid Systems", 0.95, 0.95)],
    )


async def dreamed(call: CallTool) -> list[dict[str, Any]]:
    """Every dream two cycles of ten propose."""
    dreams = []
    for _ in range(2):
        run = await call("run_dreaming_cycle", max_outputs=10)
        ids = next(phase for phase in run["phases"] if phase["phase"] == "dream")["dream_ids"]
        dreams += [await call("get_dream", dream_id=dream_id) for dream_id in ids]
    return dreams


def own_words(text: str) -> str:
    """What the writer says itself: the text without the memories it quotes."""
    return QUOTED.sub('""', text)


def broken_rules(dream: dict[str, Any]) -> list[str]:
    broken = []
    for field in WORDS_A_PERSON_READS:
        text = dream[field]
        broken += [f"{field} lower-cases {name}" for name in NAMES if re.search(rf"\b{name.lower()}\b", text)]
        if "the person" in own_words(text):
            broken.append(f"{field} speaks of 'the person', not to 'you'")
    for field in ("hypothesis", "why"):
        said = own_words(dream[field])
        if re.search(r"\bit\b", said, re.IGNORECASE):
            broken.append(f"{field} says 'it' where it could name what it means")
        if JARGON.search(said):
            broken.append(f"{field} shows a figure or a term of art: {JARGON.search(said)}")
    return broken


async def test_every_dream_a_person_reads_keeps_names_pronouns_voice_and_plain_words(call: CallTool) -> None:
    await plant(call)
    dreams = await dreamed(call)
    kinds = {dream["kind"] for dream in dreams}
    assert {"theme", "link", "duplicate", "contradiction"} <= kinds, [
        (d["kind"], d["hypothesis"]) for d in dreams
    ]
    broken = {dream["hypothesis"]: rules for dream in dreams if (rules := broken_rules(dream))}
    assert broken == {}
    # The person and the works she keeps mentioning are named as she writes them.
    read = " ".join(dream["hypothesis"] + dream["why"] for dream in dreams)
    assert "Tom" in read and "Bach" in read, read
    # Two messages planning a trip, told as mentioned: nothing says she went.
    assert not any("came back to" in dream["hypothesis"] for dream in dreams)
