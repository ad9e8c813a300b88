"""A two-speaker chat between friends (Priya and Tomasz), in sessions over ten months.

Each line is one turn, "Speaker: words". Twelve pairs of turns in different sessions share a
person's, a place's or a pet's name no other turn uses; four themes (a manager, a cottage, a
rescue dog, an inherited boat) come back in four sessions each. The rest is chat: plans, weather,
"haha", thanks.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bench.dreamgen.truth import Frame, Group, Lane, assemble, fillers, split

SESSIONS = 36
TURNS = 400
PAIRS_PER_KIND = 4
START = datetime(2024, 1, 6, 19, tzinfo=UTC)
SPEAKERS = ("Priya", "Tomasz")

_PEOPLE = ("Marisol", "Zoltan", "Saoirse", "Thaddeus", "Anneliese", "Ysolde")
_PLACES = ("Ravello", "Skagen", "Kinsale", "Tarifa", "Dunmore", "Portmeirion")
_PETS = ("Biscotti", "Wojtek", "Pumpernickel", "Fenwick", "Clementine", "Mochi")
_BOATS = ("Kittiwake", "Guillemot", "Shearwater")
_PERSON_PAIRS = (
    (
        "Priya: {n} from my old team just got engaged, did you hear?",
        "Tomasz: I bumped into {n} at the climbing wall, says hi.",
    ),
    (
        "Tomasz: {n} lent me a drill and I still haven't returned it.",
        "Priya: Apparently {n} is running for the school board.",
    ),
    (
        "Priya: My cousin {n} is visiting from Chile next week.",
        "Tomasz: Does {n} still throw those huge paella parties?",
    ),
    (
        "Tomasz: {n} fixed my bike for free, what a legend.",
        "Priya: {n} sent me the link to that pottery course.",
    ),
    ("Priya: Had lunch with {n}, might quit soon.", "Tomasz: {n} texted asking about your spare room."),
)
_PLACE_PAIRS = (
    (
        "Tomasz: We're considering {n} for the long weekend.",
        "Priya: My dentist just got back from {n}, very tanned.",
    ),
    (
        "Priya: There's a photo exhibition about {n} at the gallery.",
        "Tomasz: The train to {n} was cancelled again, typical.",
    ),
    ("Tomasz: Remember the seafood place in {n}?", "Priya: A friend of a friend is opening a hostel in {n}."),
    (
        "Priya: I read that {n} floods more every winter.",
        "Tomasz: My brother proposed in {n}, did I tell you?",
    ),
    (
        "Tomasz: Forecast for {n} looks perfect next month.",
        "Priya: Found a novel set in {n} at the charity shop.",
    ),
)
_PET_PAIRS = (
    (
        "Priya: {n} knocked my basil off the windowsill again.",
        "Tomasz: Can {n} stay with you while I'm away?",
    ),
    ("Tomasz: {n} learned to raid the fridge, help.", "Priya: The groomer said {n} was an angel this time."),
    ("Priya: {n} is scared of the hoover, poor thing.", "Tomasz: Bought {n} a ridiculous knitted jumper."),
    ("Tomasz: {n} ate half a sock and seems fine.", "Priya: My niece drew a portrait of {n} in crayon."),
    ("Priya: {n} slept on my laptop all afternoon.", "Tomasz: {n} has a checkup on Thursday."),
)
_THEMES = (
    (
        _PEOPLE,
        (
            "Tomasz: My new manager {n} wants weekly reports now.",
            "Priya: How's it going with {n}, still micromanaging?",
            "Tomasz: {n} finally praised something I did.",
            "Tomasz: Turns out {n} is leaving the company in spring.",
        ),
    ),
    (
        _PLACES,
        (
            "Tomasz: We put an offer on a cottage in {n}.",
            "Priya: Any news from {n}?",
            "Tomasz: The roof in {n} needs replacing, ugh.",
            "Priya: Send me pictures of {n} once the kitchen is done!",
        ),
    ),
    (
        _PETS,
        (
            "Priya: We adopted a rescue greyhound called {n}!",
            "Tomasz: How is {n} settling in?",
            "Priya: {n} finally sleeps through the night.",
            "Priya: Took {n} to the beach and he ran like the wind.",
        ),
    ),
    (
        _BOATS,
        (
            "Tomasz: My uncle left me an old sailing boat, the {n}.",
            "Priya: Have you taken the {n} out yet?",
            "Tomasz: Sanded the hull of the {n} all Saturday.",
            "Tomasz: The {n} leaked on her first trip, we had to bail.",
        ),
    ),
)
_CHAT = (
    Frame(
        "Did you see the {a} {b}?",
        ("match", "film", "game", "show", "concert", "debate", "final"),
        ("last night", "on Sunday", "yesterday", "at the weekend", "this morning", "on Friday", "earlier"),
    ),
    Frame(
        "Ugh, {a} is {b} today.",
        ("work", "the traffic", "my inbox", "the weather", "the bus", "my back", "the wifi"),
        ("awful", "a mess", "so slow", "terrible", "a nightmare", "unbearable", "ridiculous"),
    ),
    Frame(
        "I'm {a}, talk {b}?",
        (
            "heading out",
            "cooking dinner",
            "on the tram",
            "at the shops",
            "about to sleep",
            "in a meeting",
            "at the gym",
        ),
        ("later", "tomorrow", "tonight", "after lunch", "in an hour", "on Sunday", "soon"),
    ),
    Frame(
        "Haha {a}, that's {b}.",
        ("no way", "honestly", "oh dear", "wow", "seriously", "classic", "yes"),
        ("so funny", "brilliant", "hilarious", "typical", "amazing", "so true", "wild"),
    ),
    Frame(
        "How was your {a}? Mine was {b}.",
        ("weekend", "day", "week", "evening", "morning", "holiday", "Monday"),
        ("quiet", "busy", "long", "lovely", "exhausting", "fine", "boring"),
    ),
    Frame(
        "We should get {a} {b}.",
        ("pizza", "coffee", "drinks", "brunch", "tacos", "dumplings", "ice cream"),
        ("soon", "next week", "on Saturday", "after work", "sometime", "this month", "when you're back"),
    ),
    Frame(
        "Thanks for {a}, it was {b}.",
        ("the recommendation", "dinner", "the lift", "yesterday", "the book", "the chat", "your help"),
        ("perfect", "really kind", "so nice", "great", "lovely", "just what I needed", "much appreciated"),
    ),
    Frame(
        "Just {a}, {b}.",
        ("got home", "woke up", "finished work", "landed", "got back", "sat down", "eaten"),
        ("finally", "so tired", "what a day", "phew", "all good", "long story", "more later"),
    ),
    Frame(
        "Can you {a} {b}?",
        (
            "call me",
            "send me the address",
            "check the time",
            "remind me",
            "bring the charger",
            "save me a seat",
            "pick up milk",
        ),
        ("when you can", "before six", "tonight", "on your way", "please", "by Friday", "if you remember"),
    ),
)


def _groups(rng: random.Random) -> list[Group]:
    names: dict[tuple[str, ...], list[str]] = {kind: list(kind) for kind in (_PEOPLE, _PLACES, _PETS, _BOATS)}
    for pool in names.values():
        rng.shuffle(pool)
    groups: list[Group] = []
    for kind, frames in ((_PEOPLE, _PERSON_PAIRS), (_PLACES, _PLACE_PAIRS), (_PETS, _PET_PAIRS)):
        for first, second in rng.sample(frames, PAIRS_PER_KIND):
            name = names[kind].pop()
            groups.append(Group(name, (first.format(n=name), second.format(n=name))))
    for kind_of_theme, texts in _THEMES:
        name = names[kind_of_theme].pop()
        groups.append(Group(name, tuple(text.format(n=name) for text in texts)))
    return groups


def chat(seed: int = 1) -> Lane:
    """About 440 turns in 36 sessions; pairs and themes never within one session."""
    rng = random.Random(f"chat-{seed}")
    groups = _groups(rng)
    lines = fillers(rng, _CHAT, TURNS)
    sizes = [TURNS // SESSIONS + (index < TURNS % SESSIONS) for index in range(SESSIONS)]
    sessions = [
        [f"{SPEAKERS[turn % 2]}: {line}" for turn, line in enumerate(session)]
        for session in split(lines, sizes)
    ]
    dates: list[datetime | None] = [
        START + timedelta(days=8 * index + rng.randrange(4), minutes=rng.randrange(180))
        for index in range(SESSIONS)
    ]
    return assemble((f"chat-s{seed}", "chat", seed, "two speakers"), rng, sessions, dates, groups)
