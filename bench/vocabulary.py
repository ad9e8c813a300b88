"""The words the synthetic memories are made of, and a Zipf-like way to pick them.

Each slot (person, place, tool, ...) has a ranked list: a few dozen real, common words first,
then a long tail of made-up but pronounceable names built from syllables. Picking rank r with
weight 1 / (r + 1) ** s makes the head frequent and most of the tail rare, as in real speech,
so some search terms match thousands of memories and others a handful. Everything is built
from a seed, so the same seed always gives the same vocabulary.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

ZIPF_EXPONENT = 1.07


def _words(text: str) -> list[str]:
    return text.split()


_FIRST_NAMES = _words(
    """
    Ines Marco Priya Tomas Hannah Kenji Amara Lucas Sofia Mateo Leila Jonas Freya Omar Elena Felix
    Nadia Hugo Clara Ravi Maya Oscar Zara Leo Ingrid Samir Alice Diego Yuki Noah Mira Anton Chloe
    Idris Greta Paulo Lena Arjun Emma Bruno Selin Theo Aisha Viktor Nora Kofi Julia Emil Rosa Ahmed
    Lucia Finn Hana Pedro Iris Malik Vera Dario Lotte Kwame Agnes Rafael Eva Tariq Maren Luis Sanne
    Ivan Beatriz Kai Olga Nico Fatima Jan Mei Sven Carmen Bilal Astrid Andre Daria Yusuf Helga
"""
)
_PLACES = _words(
    """
    Porto Leeds Lisbon Glasgow Kyoto Oslo Bristol Lyon Austin Denver Montreal Seville Krakow Bergen
    Utrecht Ghent Turin Valencia Dublin Cork Galway Tallinn Riga Vilnius Gdansk Bologna Naples
    Marseille Toulouse Bordeaux Nantes Hamburg Leipzig Dresden Munich Zurich Basel Geneva Vienna
    Graz Ljubljana Zagreb Split Athens Thessaloniki Izmir Istanbul Tbilisi Yerevan Marrakesh Cairo
    Nairobi Accra Lagos Cape Town Durban Mumbai Pune Chennai Colombo Kathmandu Hanoi Bangkok Penang
    Manila Osaka Sapporo Busan Seoul Taipei Melbourne Hobart Wellington Auckland Quito Lima Cusco
"""
)
_TOOLS = _words(
    """
    python rust neovim vscode emacs docker kubernetes terraform ansible postgres sqlite redis kafka
    grafana prometheus git jupyter pandas numpy pytorch excel notion obsidian figma blender inkscape
    gimp lightroom darktable ableton logic reaper audacity zotero anki trello jira slack zoom linux
    debian fedora arch nixos macos windows android iphone kindle thinkpad raspberry arduino esp32
    kicad fusion freecad cura prusa lathe router chisel bandsaw kettlebell rower strava garmin
    komoot duolingo spotify audible calibre firefox chrome tmux zsh fish vim helix zed gitlab github
"""
)
_HOBBIES = _words(
    """
    hiking climbing bouldering cycling running swimming rowing sailing kayaking surfing skiing
    snowboarding gardening beekeeping birdwatching photography painting sketching pottery knitting
    sewing woodworking baking brewing fermenting chess go poker bridge crosswords sudoku reading
    writing poetry journaling piano guitar cello violin drumming singing choir dancing salsa tango
    yoga pilates meditation fishing foraging camping stargazing astronomy origami calligraphy
    embroidery quilting juggling fencing archery tennis badminton squash football basketball
    volleyball cricket rugby golf skating parkour orienteering geocaching volunteering tutoring
"""
)
_FOODS = _words(
    """
    ramen sushi pho tacos curry dal biryani paella risotto lasagne pizza falafel hummus shakshuka
    dumplings kimchi bibimbap tempura udon soba gyoza croissants sourdough bagels pancakes waffles
    porridge granola muesli oatmeal tofu tempeh seitan lentils chickpeas quinoa couscous polenta
    gnocchi pesto goulash borscht pierogi moussaka souvlaki baklava tiramisu cheesecake brownies
    gelato sorbet espresso matcha chai kombucha cider stout porter mezcal tequila whisky gin olives
    anchovies sardines mackerel salmon oysters mussels lobster avocado mango papaya lychee figs
"""
)
_HEALTH = _words(
    """
    knee back shoulder wrist ankle hip neck migraine asthma allergy eczema insomnia anxiety
    cholesterol blood pressure iron levels vitamin thyroid sinus tendinitis sciatica posture
    eyesight hearing teeth gums stamina sleep diet hydration recovery physio inflammation headaches
    hay fever lactose gluten caffeine heart rate glucose metabolism flexibility balance
"""
)
_NOUNS = _words(
    """
    garden kitchen balcony attic garage workshop studio library museum gallery market harbour
    station bridge river lake forest mountain valley coast island village festival concert
    conference workshop meetup deadline budget roadmap invoice contract proposal report review
    migration release outage incident backlog sprint retrospective dashboard pipeline database
    server cluster laptop keyboard monitor headphones camera lens bicycle tent backpack boots jacket
    umbrella passport ticket flight train ferry hostel apartment lease mortgage renovation plumbing
    roof window floor paint furniture sofa desk chair shelf lamp rug curtains plant tomato basil
    chilli squash pumpkin apple pear cherry plum walnut hazelnut honey hive queen recipe oven stove
    pan wok knife bread dough yeast starter jar pickle jam sauce soup stew novel biography thriller
    podcast documentary album vinyl playlist lyrics score rehearsal recital exhibition course
    lecture seminar thesis exam certificate interview promotion salary team manager colleague client
    customer vendor partner investor startup product feature bug patch ticket repository branch
    merge deployment monitoring alert metric latency throughput puzzle tournament league match
    season training coach injury race marathon trail summit ridge glacier canyon beach cliff
    lighthouse castle cathedral temple shrine garden park square
"""
)
_ADJECTIVES = _words(
    """
    quiet busy noisy tiny huge cozy chilly humid sunny rainy windy foggy snowy dusty muddy bright
    gloomy cheerful tense relaxed hectic slow fast cheap pricey generous tricky simple messy tidy
    vintage modern rustic fancy homely spicy sweet sour bitter salty smoky crunchy tender fragrant
    stubborn patient curious anxious proud grateful exhausted restless hopeful nostalgic stressful
    surprising boring memorable awkward wonderful terrible decent solid flaky brittle sturdy
"""
)
_ROLES = _words(
    """
    engineer designer teacher nurse doctor researcher analyst manager consultant architect writer
    editor translator chef baker carpenter electrician plumber pharmacist lawyer accountant
    librarian curator photographer musician tutor coach mechanic pilot farmer gardener scientist
    developer administrator producer director planner surveyor geologist biologist veterinarian
"""
)
_RELATIONS = _words(
    """
    sister brother mother father daughter son cousin aunt uncle partner wife husband niece nephew
    grandmother grandfather friend neighbour colleague mentor
"""
)
_EVENTS = _words(
    """
    wedding birthday party reunion conference meetup hackathon concert festival funeral graduation
    barbecue picnic housewarming retreat workshop tournament race marathon exhibition launch
"""
)
_TASKS = _words(
    """
    budgeting planning writing drafting notes journaling tracking runs logging workouts editing
    photos mixing tracks reviewing code testing deploying scheduling invoicing reading papers
    sketching layouts learning words flashcards backups monitoring analysis prototyping modelling
"""
)
_LANGUAGES = _words(
    """
    Spanish Portuguese French German Italian Dutch Swedish Norwegian Danish Polish Czech Greek
    Turkish Arabic Hebrew Hindi Bengali Tamil Japanese Korean Mandarin Cantonese Vietnamese Thai
    Swahili Yoruba Russian Ukrainian Finnish Icelandic Welsh Irish
"""
)
_MONTHS = _words(
    """
    January February March April May June July August September October November December
"""
)
_SEASONS = _words("spring summer autumn winter")
_WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
_COMPANY_SUFFIXES = _words(
    """
    Labs Systems Works Foods Health Partners Analytics Studio Logistics Energy Bank
"""
)

_ONSETS = _words("b br c ch d dr f fl g gr h j k kr l m n p pr qu r s sh st t tr v w z th")
_VOWELS = _words("a e i o u ai ea io ou ae")
_CODAS = ["", "n", "r", "l", "s", "th", "nd", "rk", "sk", "v", "x", "m"]
_PLACE_ENDINGS = _words("ford wick by ton mouth stad ville dale holm haven field moor bridge ness")


def _syllables(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(count))


def _made_up(rng: random.Random, count: int, taken: set[str], build: str) -> list[str]:
    """`count` distinct invented words in the style `build` names; never one already taken."""
    words: list[str] = []
    for _ in range(count * 20):  # bounded: collisions are rare, so this never runs out
        if len(words) == count:
            break
        stem = _syllables(rng, rng.choice((1, 2, 2, 3)))
        if build == "name":
            word = stem.capitalize()
        elif build == "place":
            word = (stem + rng.choice(_PLACE_ENDINGS)).capitalize()
        elif build == "company":
            word = f"{stem.capitalize()} {rng.choice(_COMPANY_SUFFIXES)}"
        else:
            word = stem
        if len(word) >= 3 and word.lower() not in taken:
            taken.add(word.lower())
            words.append(word)
    return words


@dataclass(frozen=True)
class RankedWords:
    """One slot's words, most frequent first, with cumulative Zipf weights for picking."""

    words: tuple[str, ...]
    cumulative: tuple[float, ...]

    @classmethod
    def of(cls, words: Sequence[str], exponent: float = ZIPF_EXPONENT) -> RankedWords:
        weights = (1.0 / (rank + 1) ** exponent for rank in range(len(words)))
        return cls(tuple(words), tuple(itertools.accumulate(weights)))

    def pick(self, rng: random.Random) -> str:
        point = rng.random() * self.cumulative[-1]
        return self.words[min(bisect.bisect_right(self.cumulative, point), len(self.words) - 1)]


@dataclass(frozen=True)
class Vocabulary:
    slots: dict[str, RankedWords]

    def pick(self, slot: str, rng: random.Random) -> str:
        return self.slots[slot].pick(rng)

    def distinct_words(self) -> int:
        return len(
            {token.lower() for ranked in self.slots.values() for w in ranked.words for token in w.split()}
        )


def _ranked(rng: random.Random, head: Sequence[str], tail: Sequence[str]) -> RankedWords:
    """The head's order is shuffled (which real word is most common is arbitrary), tail after it."""
    shuffled = list(head)
    rng.shuffle(shuffled)
    return RankedWords.of([*shuffled, *tail])


def build_vocabulary(seed: int) -> Vocabulary:
    rng = random.Random(seed)
    taken = {
        word.lower()
        for word in itertools.chain(
            _FIRST_NAMES, _PLACES, _TOOLS, _HOBBIES, _FOODS, _HEALTH, _NOUNS, _ADJECTIVES, _ROLES
        )
    }
    slots = {
        "person": _ranked(rng, _FIRST_NAMES, _made_up(rng, 900, taken, "name")),
        "place": _ranked(rng, _PLACES, _made_up(rng, 700, taken, "place")),
        "company": _ranked(rng, [], _made_up(rng, 400, taken, "company")),
        "tool": _ranked(rng, _TOOLS, _made_up(rng, 300, taken, "word")),
        "hobby": _ranked(rng, _HOBBIES, []),
        "food": _ranked(rng, _FOODS, _made_up(rng, 120, taken, "word")),
        "health": _ranked(rng, _HEALTH, []),
        "noun": _ranked(rng, _NOUNS, []),
        "adj": _ranked(rng, _ADJECTIVES, []),
        "role": _ranked(rng, _ROLES, []),
        "relation": _ranked(rng, _RELATIONS, []),
        "event": _ranked(rng, _EVENTS, []),
        "task": _ranked(rng, _TASKS, []),
        "language": _ranked(rng, _LANGUAGES, []),
        "month": RankedWords.of(_MONTHS, exponent=0.0),
        "season": RankedWords.of(_SEASONS, exponent=0.0),
        "weekday": RankedWords.of(_WEEKDAYS, exponent=0.0),
    }
    return Vocabulary(slots)
