"""Synthetic profiles for the dream-quality bench: memories with the links planted in them.

Each builder returns the memories' texts, in the order they are remembered (one a day), and the
planted pairs as index pairs. The texts are written for the bench, not taken from any dataset:

- **five-pairs**: a dozen memories of one person, five pairs any friend would link (some
  through a shared word, some through meaning alone) and two memories that belong to neither.
- **planted**: 15 pairs sharing one uncommon word (names and lower-case words: an animal, a
  craft, a sport, an instrument, a dish) in otherwise unrelated sentences, among 170 sentences
  cut from five templates of a person's routine.
- **synthetic**: the older profile, 15 pairs sharing a rare name among 170 sentences from one
  template.
"""

from __future__ import annotations

import random

Profile = tuple[list[str], set[frozenset[int]]]

# --- five-pairs ---------------------------------------------------------------------------

_FIVE_PAIRS = (
    (
        "I signed up for the Berlin marathon in September, my first full marathon.",
        "Started German lessons on my phone so I can get by on the Berlin trip.",
    ),
    (
        "My sister Agnes has played the cello since she was eight and now plays in a quartet.",
        "I keep thinking I would like to take cello lessons myself one day.",
    ),
    (
        "Reading a novel about a lighthouse keeper on a remote island, can't put it down.",
        "We might visit the lighthouse museum in Maine this summer.",
    ),
    (
        "Our beagle tore a ligament in her back leg chasing a squirrel.",
        "The vet says the dog needs knee surgery and it will cost almost two thousand dollars.",
    ),
    (
        "I've been getting migraines most afternoons at the office.",
        "The optician thinks my headaches come from staring at screens all day without glasses.",
    ),
)
_FIVE_UNRELATED = (
    "The landlord finally fixed the boiler after three weeks.",
    "Tried a new recipe for lentil soup tonight and it was too salty.",
)


def five_pairs() -> Profile:
    """The first of each pair, then the unrelated ones, then the second of each: a pair is told
    days apart, as a person would."""
    firsts = [first for first, _ in _FIVE_PAIRS]
    seconds = [second for _, second in _FIVE_PAIRS]
    texts = [*firsts, *_FIVE_UNRELATED, *seconds]
    offset = len(firsts) + len(_FIVE_UNRELATED)
    return texts, {frozenset((index, offset + index)) for index in range(len(_FIVE_PAIRS))}


# --- planted ------------------------------------------------------------------------------

# Each pair shares exactly one uncommon word and nothing else worth a link.
_PLANTED = (
    (
        "My nephew wants an axolotl for his birthday and has read everything about them.",
        "At the pet shop downtown an axolotl stared at me through the glass for ages.",
    ),
    (
        "Signed up for a weekend falconry course out in the hills.",
        "Grandpa told stories about the falconry displays at the county fair.",
    ),
    (
        "The bassoon part in tonight's concert was gorgeous.",
        "Found a secondhand bassoon in the attic of my aunt's place.",
    ),
    (
        "We played lacrosse every Thursday in high school.",
        "The lacrosse stick is still leaning behind the garage door.",
    ),
    (
        "Bought a tiny bonsai juniper from the market stall.",
        "Mum sent me a book on bonsai pruning for Christmas.",
    ),
    (
        "Learning to make kimchi from a video my colleague shared.",
        "Our fridge smells of kimchi and my flatmate is not amused.",
    ),
    (
        "Ludmila from the choir invited us over for dinner.",
        "Got a long voicemail from Ludmila about her new allotment.",
    ),
    (
        "There is a chinchilla at the rescue centre that needs a home.",
        "My cousin's chinchilla chewed through a phone charger.",
    ),
    (
        "I tried glassblowing at a studio in Murano during the holiday.",
        "Watching a glassblowing documentary made me want to go back.",
    ),
    (
        "Ferdinand is finally retiring from the orchestra after thirty years.",
        "I ran into Ferdinand at the hardware store buying paint.",
    ),
    (
        "Took the kids to see a curling match on the big screen.",
        "The curling club near the rink is looking for volunteers.",
    ),
    (
        "My harmonica is still in the glovebox from the road trip.",
        "Dad played harmonica at the barbecue and everyone sang along.",
    ),
    (
        "Oksana recommended a dentist who does not hurt at all.",
        "The parcel for Oksana was left with me while she travels.",
    ),
    (
        "Found a recipe for gnocchi that uses leftover potatoes.",
        "The restaurant by the station makes gnocchi with sage butter.",
    ),
    (
        "The origami crane my daughter folded is on my desk.",
        "An origami workshop is happening at the library on Saturday.",
    ),
)
# Five templates of a person's routine; their slot words repeat far too often to link anything.
_TEMPLATES = (
    (
        "Jordan moved the {a} to {day} to make room for the {b}.",
        ("quarterly review", "design sync", "budget call", "retro", "vendor demo", "hiring panel"),
    ),
    (
        "Took the {a} bus into town on {day}, and it was {b} again.",
        ("early", "late", "crowded", "slow", "quiet", "cold"),
    ),
    (
        "Logged {a} minutes on the {b} at the gym on {day}.",
        ("rowing machine", "treadmill", "bike", "stepper", "cross trainer", "climbing wall"),
    ),
    (
        "Paid the {a} bill on {day}, a bit more than the {b} one.",
        ("electricity", "water", "phone", "internet", "gas", "council"),
    ),
    (
        "Watered the {a} on the balcony on {day}; the {b} could use some too.",
        ("basil", "tomatoes", "mint", "geraniums", "rosemary", "lavender"),
    ),
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MINUTES = ("twenty", "thirty", "forty", "forty-five", "fifty", "sixty")


def _routine(rng: random.Random, template: str, words: tuple[str, ...]) -> str:
    first, second = rng.sample(words, 2)
    if "minutes" in template:  # the gym log counts minutes on one machine
        first = rng.choice(_MINUTES)
    return template.format(a=first, b=second, day=rng.choice(_DAYS))


def planted(seed: int = 11) -> Profile:
    rng = random.Random(seed)
    texts: list[str] = []
    pairs: set[frozenset[int]] = set()
    for first, second in _PLANTED:
        pairs.add(frozenset((len(texts), len(texts) + 1)))
        texts.extend([first, second])
    for index in range(200 - len(texts)):
        template, words = _TEMPLATES[index % len(_TEMPLATES)]
        texts.append(_routine(rng, template, words))
    return _shuffled(rng, texts, pairs)


def _shuffled(rng: random.Random, texts: list[str], pairs: set[frozenset[int]]) -> Profile:
    order = list(range(len(texts)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    return [texts[old] for old in order], {frozenset(position[i] for i in pair) for pair in pairs}


# --- synthetic (the older lane) -----------------------------------------------------------

_NAMES = (
    "Ottoline Brisk",
    "Casimir Vantongeren",
    "Marisol Quenby",
    "Thaddeus Ruark",
    "Ingrid Solvang",
    "Anselm Prideaux",
    "Bettina Kovalenko",
    "Leocadia Frame",
    "Ravindra Oakhurst",
    "Zephyrine Mott",
    "Hollis Varga",
    "Perpetua Lindqvist",
    "Evander Crouch",
    "Seraphina Ndiaye",
    "Wystan Albright",
)
# Each sentence is used once: a named pair shares its name and nothing else.
_FIRST = (
    "I met {name} at the climbing gym and we compared bouldering routes for an hour.",
    "{name} lent me a cast-iron pan that makes the best cornbread.",
    "My dentist appointment got moved because {name} needed the slot.",
    "{name} is organising the street party and asked me to bring paper lanterns.",
    "We carpooled to the conference with {name}, who drives very carefully.",
    "{name} fixed the wobbly bookshelf in the hallway with two brackets.",
    "At the pottery class {name} showed me how to centre clay on the wheel.",
    "{name} sent me a playlist of Brazilian jazz for the long drive.",
    "The new tenant downstairs, {name}, keeps bees on the roof terrace.",
    "{name} and I split the cost of a second-hand kayak.",
    "During the power cut {name} brought over candles and a thermos of soup.",
    "{name} convinced me to sign up for the autumn half marathon.",
    "My sister's wedding photographer was {name}, who barely stopped smiling.",
    "{name} translated the old letters my grandmother wrote in Polish.",
    "On the night train to Vienna I shared a compartment with {name}.",
)
_SECOND = (
    "Got a postcard from {name} in Reykjavik, with a drawing of a puffin.",
    "{name} recommended a novel about lighthouse keepers that I started tonight.",
    "The plumber said {name} had the same leak last winter and patched it with tape.",
    "I owe {name} forty euros for the concert tickets.",
    "{name} taught my niece to play chess over the holidays.",
    "Birthday reminder: {name} turns fifty on the ninth.",
    "{name} is moving to Lisbon next spring for a museum job.",
    "I borrowed a tent from {name} for the festival and tore the flysheet.",
    "{name} called to ask whether I still have the ladder.",
    "There is a photo of {name} holding a giant pumpkin on my fridge.",
    "{name} got me into sourdough by gifting a jar of starter.",
    "The cat sitter cancelled, so {name} will feed Miso this weekend.",
    "{name} beat me at table tennis three games in a row.",
    "I need to return the drill to {name} before Friday.",
    "{name} wrote a glowing reference for my volunteering application.",
)
_TASKS = (
    "quarterly review",
    "design sync",
    "budget call",
    "retro",
    "vendor demo",
    "offsite planning",
    "hiring panel",
    "roadmap session",
    "security audit",
    "launch rehearsal",
    "training",
    "standup",
)


def synthetic(seed: int = 7) -> Profile:
    """Named pairs (rare name, different sentences) among template sentences; the named pairs."""
    rng = random.Random(seed)
    texts: list[str] = []
    pairs: set[frozenset[int]] = set()
    for name, first_template, second_template in zip(_NAMES, _FIRST, _SECOND, strict=True):
        first = first_template.format(name=name)
        second = second_template.format(name=name.split()[0])
        pairs.add(frozenset((len(texts), len(texts) + 1)))
        texts.extend([first, second])
    while len(texts) < 200:
        moved, room = rng.sample(_TASKS, 2)
        day = rng.choice(_DAYS[:5])
        texts.append(f"Jordan moved the {moved} to {day} to make room for the {room}.")
    return _shuffled(rng, texts, pairs)
