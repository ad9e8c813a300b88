"""Synthetic personal memories: what one person tells an assistant over a few years.

Sentences come from templates about work, hobbies, family, travel, health, food, tools, places
and people, filled with words from `bench.vocabulary`. About half carry the claims a host would
extract (likes, uses, works_at, knows, ...), worded so the claim verifier can settle them and
the pipeline does its real work: verification, promotion, supersession and clarifications.

`memories(profile_seed, count)` is deterministic: the first n memories of a profile say the
same whatever the count (only their dates stretch), so 1,000 memories are a prefix of 10,000.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bench.vocabulary import Vocabulary, build_vocabulary
from graph.memory.models import ClaimInput, Modality, Polarity
from graph.memory.pipeline import RememberRequest

VOCABULARY_SEED = 20_260_101
# The profile's memories are spread over this span before the run starts.
HISTORY = timedelta(days=3 * 365)


@dataclass(frozen=True)
class ClaimSpec:
    predicate: str
    object: str  # a template over the same slots as the sentence
    modality: Modality = "assertion"
    polarity: Polarity = Polarity.POSITIVE


@dataclass(frozen=True)
class Template:
    domain: str
    text: str
    anchor: str  # the slot naming what the memory is mainly about (the peer's entity)
    claims: tuple[ClaimSpec, ...] = ()
    weight: float = 1.0


_T = Template
_C = ClaimSpec
TEMPLATES: tuple[Template, ...] = (
    # work
    _T(
        "work",
        "I started a new job at {company} as a {role} in {month} {year}.",
        "company",
        (_C("works_at", "{company}"),),
        0.5,
    ),
    _T(
        "work",
        "I still work at {company}; the {noun} project there is {adj} this {season}.",
        "company",
        (_C("works_at", "{company}"),),
        0.4,
    ),
    _T(
        "work", "Had a long meeting with {person} about the {adj} {noun} at {company} on {weekday}.", "person"
    ),
    _T(
        "work",
        "I'm working on the {noun} project with {person}, mostly {task} in {tool}.",
        "noun",
        (_C("works_on", "{noun} project"),),
    ),
    _T("work", "My manager {person} wants the {noun} {noun2} done before {month} {day}.", "person"),
    _T("work", "The {noun} at work broke again and I spent {num} hours fixing the {noun2}.", "noun"),
    _T("work", "I presented the {adj} {noun} report to the {company} team; {person} liked it.", "company"),
    # tools
    _T("tools", "I use {tool} every day for {task}.", "tool", (_C("uses", "{tool}"),), 1.5),
    _T(
        "tools",
        "I switched to {tool} for {task} after {tool2} kept crashing.",
        "tool",
        (_C("uses", "{tool}"),),
    ),
    _T("tools", "I prefer {tool} over {tool2} when I am {task}.", "tool", (_C("prefers", "{tool}"),)),
    _T(
        "tools",
        "I no longer use {tool}; it got too {adj} after the {noun} update.",
        "tool",
        (_C("uses", "{tool}", polarity=Polarity.NEGATIVE),),
        0.4,
    ),
    _T("tools", "Set up {tool} on the old {noun} so {person} can use it for {task}.", "tool"),
    # hobbies
    _T(
        "hobbies",
        "I love {hobby}, especially on {adj} {weekday} mornings near {place}.",
        "hobby",
        (_C("likes", "{hobby}"),),
        1.5,
    ),
    _T(
        "hobbies",
        "I really enjoy {hobby} with {person}; we go every {weekday}.",
        "hobby",
        (_C("likes", "{hobby}"),),
        1.2,
    ),
    _T("hobbies", "Tried {hobby} for the first time at the {noun} in {place}; it was {adj}.", "hobby"),
    _T("hobbies", "I can play {hobby} fairly well now after {num} months of practice.", "hobby"),
    _T(
        "hobbies",
        "Signed up for a {hobby} course at the {noun} starting in {month}.",
        "hobby",
        (_C("has_goal", "{hobby} course", modality="plan"),),
        0.5,
    ),
    # family and people
    _T(
        "family",
        "My {relation} {person} lives in {place} and works as a {role}.",
        "person",
        (_C("relationship_to", "{person}"),),
    ),
    _T("family", "{person}, my {relation}, is visiting from {place} in {month}.", "person"),
    _T("family", "Called my {relation} {person} about the {noun}; {pronoun} sounded {adj}.", "person"),
    _T(
        "people",
        "I met {person} at the {event} in {place}; we talked about {hobby}.",
        "person",
        (_C("knows", "{person}"),),
        1.3,
    ),
    _T("people", "{person} recommended a {adj} {noun} in {place} for {food}.", "person"),
    _T(
        "people",
        "My friend {person} is moving to {place} for a job at {company}.",
        "person",
        (_C("knows", "{person}"),),
    ),
    _T("people", "Had dinner with {person} and {person2} at the {adj} {food} place.", "person"),
    # travel and places
    _T("travel", "We flew to {place} in {month} {year} and stayed near the {noun}.", "place"),
    _T(
        "travel",
        "I want to visit {place} next {season} to see the {noun}.",
        "place",
        (_C("has_goal", "visit {place}", modality="plan"),),
    ),
    _T("travel", "The {noun} in {place} was {adj} when I went with {person}.", "place"),
    _T("travel", "Took the night train from {place} to {place2}; the {noun} was {adj}.", "place"),
    _T("places", "The {adj} {noun} on {person} Street in {place} closed last {month}.", "place"),
    _T("places", "There is a {adj} {noun} near my flat in {place} that sells {food}.", "place"),
    # health
    _T("health", "My {health} has been {adj} since the {event}; the doctor suggested {hobby}.", "health"),
    _T("health", "Physio said to rest my {health} for {num} weeks after {hobby}.", "health"),
    _T("health", "I sleep better when I skip {food} after {hour} pm.", "health"),
    _T("health", "Booked a check-up for my {health} on {weekday} {day} {month}.", "health"),
    # food
    _T(
        "food",
        "I really love {food}, especially the one at the {adj} place in {place}.",
        "food",
        (_C("likes", "{food}"),),
        1.4,
    ),
    _T(
        "food",
        "I don't like {food} anymore since the trip to {place}.",
        "food",
        (_C("likes", "{food}", polarity=Polarity.NEGATIVE),),
        0.4,
    ),
    _T("food", "Cooked {food} with {noun} for {person}; it turned out {adj}.", "food"),
    _T("food", "Learning to make {food} from {person}'s recipe; needs more {noun}.", "food"),
    # skills
    _T(
        "skills",
        "I can speak {language} fairly well after {num} years of lessons.",
        "language",
        (_C("has_skill", "{language}"),),
        0.5,
    ),
    _T(
        "skills",
        "I want to learn {language} before the {event} in {place}.",
        "language",
        (_C("has_goal", "learn {language}", modality="plan"),),
        0.4,
    ),
)
_ANCHOR_TYPES = {
    "company": "organization",
    "person": "person",
    "noun": "topic",
    "tool": "tool",
    "hobby": "activity",
    "place": "location",
    "health": "health",
    "food": "food",
    "language": "language",
}
_PRONOUNS = ("she", "he", "they")
# Most things people say come with a little context; it also keeps memories from repeating.
_CONTEXT = (
    " That was back in {month} {year}.",
    " {person2} mentioned it on {weekday}.",
    " It took about {num} minutes.",
    " Around {hour} in the morning, {day} {month}.",
    " Need to tell {person2} about it.",
    " Noted on the {noun2} list, item {num}.",
)
CONTEXT_SHARE = 0.7


@dataclass(frozen=True)
class Memory:
    """One generated memory: what to remember, and how the peer would file it."""

    index: int
    request: RememberRequest
    entity_name: str
    entity_type: str
    created_at: datetime = field(compare=False)


class MemoryFactory:
    """Turns (profile seed, index) into memories; a profile's stream is always the same."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary or build_vocabulary(VOCABULARY_SEED)
        self._weights = [template.weight for template in TEMPLATES]

    def _slots(self, rng: random.Random) -> dict[str, str]:
        pick = self.vocabulary.pick
        values = {slot: pick(slot, rng) for slot in self.vocabulary.slots}
        values["person2"] = pick("person", rng)
        values["place2"] = pick("place", rng)
        values["tool2"] = pick("tool", rng)
        values["noun2"] = pick("noun", rng)
        values["year"] = str(rng.randint(2008, 2026))
        values["day"] = str(rng.randint(1, 28))
        values["hour"] = str(rng.randint(6, 11))
        values["num"] = str(rng.randint(2, 40))
        values["pronoun"] = rng.choice(_PRONOUNS)
        return values

    def memory(self, rng: random.Random, index: int, created_at: datetime) -> Memory:
        template = rng.choices(TEMPLATES, weights=self._weights)[0]
        values = self._slots(rng)
        claims = [
            ClaimInput(
                subject="user",
                predicate=spec.predicate,
                object=spec.object.format(**values),
                extract_conf=round(rng.uniform(0.86, 0.98), 2),
                resolution_conf=round(rng.uniform(0.82, 0.97), 2),
                modality=spec.modality,
                polarity=spec.polarity,
            )
            for spec in template.claims
        ]
        content = template.text.format(**values)
        if rng.random() < CONTEXT_SHARE:
            content += rng.choice(_CONTEXT).format(**values)
        request = RememberRequest(
            content=content,
            source=f"conversation:{index // 20}",
            authority="primary",
            labels=[template.domain],
            metadata={"domain": template.domain},
            claims=claims,
        )
        return Memory(
            index=index,
            request=request,
            entity_name=values[template.anchor],
            entity_type=_ANCHOR_TYPES[template.anchor],
            created_at=created_at,
        )

    def memories(
        self, profile_seed: int, count: int, start: int = 0, end_at: datetime | None = None
    ) -> Iterator[Memory]:
        """Memories start..count-1 of a profile, dated evenly over HISTORY up to `end_at`."""
        rng = random.Random(profile_seed)
        end = end_at or datetime.now(UTC)
        step = HISTORY / max(count, 1)
        for index in range(count):
            memory = self.memory(rng, index, end - HISTORY + step * index)
            if index >= start:
                yield memory


def queries(vocabulary: Vocabulary, count: int, seed: int) -> list[str]:
    """Recall queries of one to three words from the memories' own slots, common and rare."""
    rng = random.Random(seed)
    slots = ("person", "place", "company", "tool", "hobby", "food", "health", "noun", "adj", "event")
    found: list[str] = []
    for _ in range(count):
        words = [vocabulary.pick(rng.choice(slots), rng) for _ in range(rng.choice((1, 2, 2, 3)))]
        found.append(" ".join(dict.fromkeys(words)))
    return found
