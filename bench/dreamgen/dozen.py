"""A dozen memories of one person with five true pairs: one trip, one hobby, one worry at work,
one pet's health, one relative; and two food habits that are two habits, not one concern.

Each pair shares one name no other memory uses. The seed picks five of the eight pairs and the
order; `dozen` tells them a day or more apart, `dozen_sitting` all at once without dates.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bench.dreamgen.truth import Group, Lane, assemble, lane_of

PAIRS = 5
START = datetime(2025, 9, 1, 19, tzinfo=UTC)
_PAIRS = (
    Group(
        "Hvar",
        (
            "Booked a ferry to Hvar for the second week of July.",
            "Practising a few phrases so I can order dinner in a taverna on Hvar.",
        ),
    ),
    Group(
        "kintsugi",
        (
            "Took a kintsugi workshop and mended my mother's cracked teacup with gold.",
            "Now I look at every chipped plate in the cupboard as a kintsugi project.",
        ),
    ),
    Group(
        "Halvorsen",
        (
            "Worried the Halvorsen account gets cut in the next budget round.",
            "My manager wants a rescue plan for Halvorsen by Friday and I slept badly.",
        ),
    ),
    Group(
        "Pimento",
        (
            "Our cat Pimento stopped eating his dry food this week.",
            "The vet thinks Pimento has a sore tooth and wants to sedate him for a look.",
        ),
    ),
    Group(
        "Evaristo",
        (
            "My grandfather Evaristo is moving into sheltered housing next month.",
            "Sorting boxes, I found letters Evaristo wrote home from his army years.",
        ),
    ),
    Group(
        "Ingunn",
        (
            "My physio Ingunn gave me stretches for the stiff shoulder.",
            "Ingunn thinks swimming twice a week would help more than pills.",
        ),
    ),
    Group(
        "Lofoten",
        (
            "Saw photographs of the northern lights over Lofoten and want to go.",
            "A cousin offered us her fishing cabin on Lofoten for a week in March.",
        ),
    ),
    Group(
        "Eurydice",
        (
            "Our choir is rehearsing an opera chorus from Eurydice for the spring concert.",
            "I cried at the end of Eurydice when we sang it through for the first time.",
        ),
    ),
)
# Two food habits of one person: no pair, and no single concern said twice.
_HABITS = (
    "I drink a matcha latte every afternoon at three.",
    "I ferment my own sauerkraut in big jars on the balcony.",
)


def _chosen(rng: random.Random) -> list[Group]:
    return rng.sample(_PAIRS, PAIRS)


def dozen(seed: int = 1) -> Lane:
    """Twelve memories, one every other evening, in an order the seed shuffles."""
    rng = random.Random(f"dozen-{seed}")
    items: list[tuple[str, str | None]] = [(habit, None) for habit in _HABITS]
    items += [(text, group.name) for group in _chosen(rng) for text in group.texts]
    rng.shuffle(items)
    told = [(text, owner, START + timedelta(days=2 * day)) for day, (text, owner) in enumerate(items)]
    return lane_of((f"dozen-s{seed}", "dozen", seed, "one person"), told)


def dozen_sitting(seed: int = 1) -> Lane:
    """The same dozen told in one sitting, without dates."""
    rng = random.Random(f"dozen-sitting-{seed}")
    lane_id = (f"dozen-sitting-s{seed}", "dozen", seed, "one person")
    return assemble(lane_id, rng, [list(_HABITS)], [None], _chosen(rng))
