"""One person's dated notes, a nurse who gardens and cycles: forty of them over three months,
or thousands over two years.

A note is one everyday sentence; a planted note adds a short clause naming a cafe, a person, a
street, a boat, a band or a dog by an invented name that no other note uses. Pairs name one
thing twice, themes three to five times, always on different days.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bench.dreamgen.truth import Frame, Group, Lane, assemble, fillers, split

START = datetime(2024, 2, 5, 7, tzinfo=UTC)


def _with(pool: Sequence[str], tails: Sequence[str]) -> tuple[str, ...]:
    """Each phrase of the pool with each tail: more sentences from words that stay common."""
    return tuple(f"{phrase}{tail}" for phrase in pool for tail in tails)


_TAILS = ("", " again", ", as expected", ", for a change", ", more or less")
_NOTES = (
    Frame(
        "Night shift on {a}, {b}.",
        (
            "ward four",
            "the children's ward",
            "intensive care",
            "the surgical ward",
            "outpatients",
            "the emergency department",
            "the day unit",
            "maternity",
            "radiology",
            "the stroke unit",
        ),
        _with(
            (
                "quiet",
                "three admissions",
                "short-staffed",
                "busy until dawn",
                "a long handover",
                "paperwork mostly",
                "two discharges",
                "a difficult family",
                "finished late",
                "calm",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "In the garden I {a} {b}.",
        (
            "planted",
            "weeded",
            "watered",
            "pruned",
            "mulched",
            "picked",
            "staked",
            "repotted",
            "sowed",
            "netted",
        ),
        _with(
            (
                "the tomatoes",
                "the beans",
                "the roses",
                "the lavender",
                "the courgettes",
                "the apple tree",
                "the herbs",
                "the strawberries",
                "the dahlias",
                "the onions",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Cycled {a} this morning, {b}.",
        (
            "to work",
            "along the canal",
            "up the hill",
            "around the lake",
            "into town",
            "to the coast",
            "through the forest",
            "to the market",
            "with the club",
            "alone",
        ),
        _with(
            (
                "headwind all the way",
                "legs heavy",
                "lovely light",
                "one puncture",
                "a personal best",
                "slow and steady",
                "drizzle",
                "sunny",
                "freezing",
                "easy pace",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Read {a} pages of {b} before bed.",
        ("ten", "twenty", "thirty", "forty", "fifty", "a few", "a dozen", "sixty", "fifteen", "eighty"),
        _with(
            (
                "a crime novel",
                "a biography",
                "a history book",
                "poetry",
                "a travel memoir",
                "a science book",
                "short stories",
                "a thriller",
                "a cookbook",
                "an old classic",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Cooked {a} with {b} for dinner.",
        ("a curry", "a stew", "risotto", "a stir fry", "soup", "a pie", "pasta", "tacos", "a roast", "dal"),
        _with(
            (
                "chickpeas",
                "mushrooms",
                "spinach",
                "leeks",
                "sweet potato",
                "lentils",
                "chicken",
                "tofu",
                "peppers",
                "squash",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Paid {a}, {b}.",
        (
            "the rent",
            "the gas bill",
            "the phone bill",
            "council tax",
            "the car insurance",
            "the water bill",
            "the gym",
            "the internet",
            "the credit card",
            "the TV licence",
        ),
        _with(
            (
                "higher than last month",
                "on time",
                "late",
                "same as usual",
                "cheaper this time",
                "by direct debit",
                "need to budget",
                "ouch",
                "fine",
                "split with my flatmate",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Mood {a}, slept {b}.",
        ("good", "flat", "anxious", "content", "irritable", "hopeful", "tired", "steady", "low", "bright"),
        _with(
            (
                "badly",
                "well",
                "six hours",
                "eight hours",
                "in fits",
                "through the alarm",
                "like a log",
                "late",
                "poorly",
                "deeply",
            ),
            _TAILS,
        ),
    ),
    Frame(
        "Phoned {a} about {b}.",
        (
            "Mum",
            "Dad",
            "my sister",
            "my brother",
            "the bank",
            "the plumber",
            "the surgery",
            "an old friend",
            "my aunt",
            "the landlord",
        ),
        _with(
            (
                "nothing much",
                "the weekend",
                "a leak",
                "her knee",
                "the holidays",
                "money",
                "the car",
                "an appointment",
                "his new job",
                "the kids",
            ),
            _TAILS,
        ),
    ),
)
# What a planted note adds; each clause serves one note in a small profile, several in a big one.
_CLAUSES = {
    "cafe": ("Coffee at {n} first.", "Stopped by {n} for a pastry.", "{n} had a queue out the door."),
    "person": ("Saw {n} at the bus stop.", "{n} rang in the evening.", "Lent {n} my umbrella."),
    "street": ("Went home along {n} Road.", "Roadworks on {n} Street.", "Someone is moving out on {n} Lane."),
    "boat": ("The {n} was moored by the bridge.", "Watched the {n} sail out.", "The {n} has fresh paint."),
    "band": ("Listened to {n} on the way.", "{n} announced a tour.", "Humming a {n} song all day."),
    "dog": ("Threw a ball for {n}.", "{n} barked at the postman.", "Brushed {n} after the muddy run."),
}
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gr", "kr", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou", "ei")
_CODAS = ("", "", "n", "l", "r", "s", "th", "nd", "x")


def _names(rng: random.Random, count: int) -> list[str]:
    """Invented names of three syllables, distinct."""
    names: set[str] = set()
    while len(names) < count:
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(3)) + rng.choice(_CODAS)
        names.add(word.capitalize())
    return sorted(names)


def _groups(rng: random.Random, sizes: Sequence[int], notes: list[str]) -> list[Group]:
    """Planted groups of the given sizes: each note a filler with a clause naming the group's
    thing; clauses in turn, so none serves exactly two notes of different groups."""
    kinds = list(_CLAUSES)
    rng.shuffle(kinds)
    names = _names(rng, len(sizes))
    rng.shuffle(names)
    uses = {kind: 0 for kind in kinds}
    groups = []
    for index, (name, size) in enumerate(zip(names, sizes, strict=True)):
        kind = kinds[index % len(kinds)]
        clauses = _CLAUSES[kind]
        texts = []
        for _ in range(size):
            clause = clauses[uses[kind] % len(clauses)].format(n=name)
            uses[kind] += 1
            texts.append(f"{notes.pop()} {clause}")
        groups.append(Group(name, tuple(texts)))
    return groups


def _journal(
    identity: tuple[str, str, int, str], rng: random.Random, notes: int, days: int, sizes: list[int]
) -> Lane:
    texts = fillers(rng, _NOTES, notes)
    groups = _groups(rng, sizes, texts)
    written = sorted(rng.sample(range(days), min(days, len(texts))))
    per_day = [
        len(texts) // len(written) + (index < len(texts) % len(written)) for index in range(len(written))
    ]
    dates: list[datetime | None] = [START + timedelta(days=day, hours=rng.randrange(14)) for day in written]
    return assemble(identity, rng, split(texts, per_day), dates, groups)


def first_months(seed: int = 1) -> Lane:
    """Forty notes over three months: five pairs and one theme of three."""
    rng = random.Random(f"journal-40-{seed}")
    return _journal((f"journal-40-s{seed}", "journal", seed, "one person"), rng, 40, 90, [2] * 5 + [3])


def years(seed: int = 1, notes: int = 2_400) -> Lane:
    """Thousands of notes over two years: forty pairs and ten themes of three to five."""
    rng = random.Random(f"journal-{notes}-{seed}")
    sizes = [2] * 40 + [rng.randint(3, 5) for _ in range(10)]
    return _journal((f"journal-{notes}-s{seed}", "journal", seed, "one person"), rng, notes, 730, sizes)
