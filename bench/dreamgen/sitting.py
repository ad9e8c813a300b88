"""A new user's first day: everything a host saved in one sitting, in the person's voice.

200 memories, 15 pairs each sharing one uncommon real word (a place, an instrument, a craft)
that no other memory uses, in two sentences otherwise about different things; the rest are
everyday distractors. `sitting` gives no dates (all said today); `sitting_dated` spreads the same
kind of profile over four months, a few memories a day.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bench.dreamgen.truth import Frame, Group, Lane, assemble, fillers, split

MEMORIES = 200
PAIRS = 15
DAYS = 120
START = datetime(2025, 3, 3, 8, tzinfo=UTC)

_PLACES = ("Ushuaia", "Plovdiv", "Tbilisi", "Bergamo", "Oaxaca", "Zanzibar", "Trondheim", "Valparaiso")
_INSTRUMENTS = ("bouzouki", "theremin", "dulcimer", "sitar", "glockenspiel", "mandolin", "oboe", "kalimba")
_CRAFTS = ("marquetry", "bookbinding", "macrame", "letterpress", "pyrography", "quilting", "tatting")
# Two sentences per pair, otherwise about different things; each frame serves one pair a lane.
_PLACE_FRAMES = (
    (
        "My brother mailed a postcard from {n} with the harbour at dusk.",
        "Flights to {n} got cheaper, maybe for the autumn holiday.",
    ),
    (
        "A colleague grew up in {n} and keeps recommending a bakery there.",
        "Watched a documentary about {n} while ironing shirts.",
    ),
    (
        "Grandma's old photo album has a whole page of {n} from 1971.",
        "The new barista mentioned she studied in {n} for a year.",
    ),
    (
        "There's a cookbook with recipes from {n} on my wishlist.",
        "Our quiz team lost because nobody knew where {n} is.",
    ),
    (
        "My landlord retired to {n} and sends long emails.",
        "Found a secondhand guidebook to {n} for two euros.",
    ),
    (
        "Dreaming of hiking near {n} someday with proper boots.",
        "A podcast episode about {n} kept me company on the bus.",
    ),
)
_INSTRUMENT_FRAMES = (
    (
        "Bought a used {n} online and it arrived with a cracked case.",
        "The busker outside the station plays a {n} every Friday.",
    ),
    (
        "My niece wants a {n} for her birthday, of all things.",
        "Heard a {n} solo on the radio that gave me goosebumps.",
    ),
    (
        "A neighbour offered me lessons on her {n} in exchange for gardening help.",
        "The wedding band had a {n} player who was the best part.",
    ),
    (
        "Dad kept his {n} in the loft for thirty years.",
        "There is a {n} workshop at the community hall next month.",
    ),
    (
        "I'd love to learn the {n} but my hands are clumsy.",
        "Saw a {n} in a shop window and stood there for ages.",
    ),
    (
        "The film soundtrack uses a {n} and I can't stop humming it.",
        "Tuning the {n} took me a whole evening.",
    ),
)
_CRAFT_FRAMES = (
    (
        "Signed up for a beginners' {n} class on Thursday evenings.",
        "My aunt's {n} pieces are hanging in the village library.",
    ),
    ("Watched a video on {n} instead of sleeping.", "A stall at the fair was selling {n} supplies cheaply."),
    (
        "Ordered a starter kit for {n} even though I have no space.",
        "My flatmate laughed at my first attempt at {n}.",
    ),
    (
        "The museum had a small exhibit on {n} from the eighteenth century.",
        "Thinking of giving {n} gifts for Christmas this year.",
    ),
    (
        "An old school friend now teaches {n} for a living.",
        "Spilled glue everywhere while trying {n} on the kitchen table.",
    ),
    ("Read an article saying {n} is making a comeback.", "Cleared a corner of the spare room for {n} tools."),
)
# Everyday things said the same day; their slot words repeat too often to link anything.
_EVERYDAY = (
    Frame(
        "Had {a} for lunch and {b} afterwards.",
        ("soup", "a sandwich", "leftover pasta", "a salad", "rice and beans", "noodles", "an omelette"),
        ("a coffee", "a nap", "a short walk", "some tea", "an apple", "a biscuit", "a yoghurt"),
    ),
    Frame(
        "Need to remember to {a} before {b}.",
        (
            "pay the electricity bill",
            "call the dentist",
            "renew my bus pass",
            "return the library books",
            "book a haircut",
            "water the plants",
            "buy stamps",
        ),
        (
            "Friday",
            "the weekend",
            "the end of the month",
            "tomorrow",
            "my next payday",
            "Monday",
            "the holidays",
        ),
    ),
    Frame(
        "The {a} at work ran long again, {b}.",
        (
            "morning meeting",
            "team call",
            "planning session",
            "weekly check-in",
            "status update",
            "review",
            "stand-up",
        ),
        (
            "as usual",
            "which was annoying",
            "so I skipped lunch",
            "and nobody decided anything",
            "but it was fine",
            "twice this week",
            "for no reason",
        ),
    ),
    Frame(
        "Spent the evening {a} while it was {b} outside.",
        (
            "reading",
            "tidying up",
            "watching a series",
            "doing laundry",
            "cooking",
            "answering emails",
            "on the sofa",
        ),
        ("raining", "windy", "cold", "dark", "foggy", "grey", "snowing"),
    ),
    Frame(
        "My {a} asked me to help with {b}.",
        ("sister", "mum", "neighbour", "friend", "cousin", "partner", "colleague"),
        (
            "moving boxes",
            "a form",
            "the shopping",
            "a job application",
            "their laptop",
            "a bookshelf",
            "the car",
        ),
    ),
    Frame(
        "Feeling {a} today, probably because of {b}.",
        ("tired", "restless", "cheerful", "a bit low", "calm", "sleepy", "distracted"),
        (
            "the weather",
            "bad sleep",
            "too much coffee",
            "work",
            "the news",
            "skipping breakfast",
            "the long week",
        ),
    ),
    Frame(
        "Walked to the {a} and back, about {b}.",
        ("supermarket", "post office", "park", "pharmacy", "station", "corner shop", "gym"),
        (
            "twenty minutes",
            "half an hour",
            "a kilometre",
            "two kilometres",
            "fifteen minutes",
            "forty minutes",
            "an hour",
        ),
    ),
    Frame(
        "I usually {a} on {b}.",
        (
            "go swimming",
            "call my parents",
            "clean the flat",
            "cook a big meal",
            "sleep in",
            "meet friends",
            "do the shopping",
        ),
        (
            "Sundays",
            "Saturdays",
            "Wednesdays",
            "weekday mornings",
            "Tuesday nights",
            "Friday evenings",
            "Mondays",
        ),
    ),
)


def _groups(rng: random.Random) -> list[Group]:
    kinds = (
        (_PLACES, _PLACE_FRAMES),
        (_INSTRUMENTS, _INSTRUMENT_FRAMES),
        (_CRAFTS, _CRAFT_FRAMES),
    )
    groups: list[Group] = []
    for names, frames in kinds:
        chosen = rng.sample(names, PAIRS // len(kinds))
        for name, (first, second) in zip(chosen, rng.sample(frames, len(chosen)), strict=True):
            groups.append(Group(name, (first.format(n=name), second.format(n=name))))
    return groups


def sitting(seed: int = 1) -> Lane:
    """200 memories said today, no dates, 15 planted pairs."""
    rng = random.Random(f"sitting-{seed}")
    groups = _groups(rng)
    texts = fillers(rng, _EVERYDAY, MEMORIES - 2 * PAIRS)
    return assemble((f"sitting-s{seed}", "sitting", seed, "one person"), rng, [texts], [None], groups)


def sitting_dated(seed: int = 1) -> Lane:
    """The same shape over four months: a few memories a day, each pair on two different days."""
    rng = random.Random(f"sitting-dated-{seed}")
    groups = _groups(rng)
    texts = fillers(rng, _EVERYDAY, MEMORIES - 2 * PAIRS)
    days = sorted(rng.sample(range(DAYS), 50))
    sizes = [len(texts) // len(days) + (index < len(texts) % len(days)) for index in range(len(days))]
    dates: list[datetime | None] = [START + timedelta(days=day, hours=rng.randrange(10)) for day in days]
    lane_id = (f"sitting-dated-s{seed}", "sitting", seed, "one person")
    return assemble(lane_id, rng, split(texts, sizes), dates, groups)
