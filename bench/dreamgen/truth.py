"""What a generated lane holds: its memories in the order they are remembered, and the truth.

The generators share only this: how planted texts are placed among the fillers (each group's
texts in distinct sittings when there are enough, at random places) and how fillers are cut from
sentence frames so that no slot word is rare enough to link two of them.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

# Memories of one sitting are told this far apart.
SPACING: Final = timedelta(minutes=3)
# A slot word is used by at least this many fillers, so it never links two of them alone.
MIN_USES: Final = 3
# The fewest sentences a frame gives a lane: with four words a slot, each is used three times.
PER_FRAME: Final = 12
_WORD = re.compile(r"[^\W\d_]+")


def words_of(text: str) -> set[str]:
    """The text's words, folded to lower case (letters only: "Wojtek's" holds "wojtek")."""
    return {word.casefold() for word in _WORD.findall(text)}


@dataclass(frozen=True)
class Said:
    text: str
    at: datetime | None  # None: told today in one sitting, without a date


@dataclass(frozen=True)
class Planted:
    """Memories sharing a name that no other memory uses: a link when two, a theme when more."""

    name: str
    members: frozenset[int]

    @property
    def kind(self) -> str:
        return "theme" if len(self.members) > 2 else "link"


@dataclass(frozen=True)
class Lane:
    name: str
    generator: str
    seed: int
    voice: str
    memories: tuple[Said, ...]
    planted: tuple[Planted, ...]

    @property
    def dated(self) -> bool:
        return any(memory.at is not None for memory in self.memories)

    @property
    def links(self) -> tuple[Planted, ...]:
        return tuple(group for group in self.planted if group.kind == "link")

    @property
    def themes(self) -> tuple[Planted, ...]:
        return tuple(group for group in self.planted if group.kind == "theme")

    def group_of(self, sources: frozenset[int]) -> Planted | None:
        """The planted group holding every one of two or more sources; None when none does."""
        if len(sources) < 2:
            return None
        return next((group for group in self.planted if sources <= group.members), None)


@dataclass(frozen=True)
class Group:
    name: str
    texts: tuple[str, ...]


def assemble(
    identity: tuple[str, str, int, str],
    rng: random.Random,
    sittings: Sequence[Sequence[str]],
    dates: Sequence[datetime | None],
    groups: Sequence[Group],
) -> Lane:
    """The lane (`identity`: name, generator, seed, voice) with each group's texts put in
    distinct sittings where there are enough of them, at random places; memories of a sitting
    are `SPACING` apart from its date."""
    slots: list[list[tuple[str, str | None]]] = [[(text, None) for text in sitting] for sitting in sittings]
    for group in groups:
        count = len(group.texts)
        chosen = rng.sample(range(len(slots)), count) if len(slots) >= count else [0] * count
        for text, sitting in zip(group.texts, chosen, strict=True):
            slots[sitting].insert(rng.randrange(len(slots[sitting]) + 1), (text, group.name))
    told = [
        (text, owner, None if date is None else date + SPACING * position)
        for sitting, date in zip(slots, dates, strict=True)
        for position, (text, owner) in enumerate(sitting)
    ]
    return lane_of(identity, told)


def lane_of(
    identity: tuple[str, str, int, str], told: Sequence[tuple[str, str | None, datetime | None]]
) -> Lane:
    """The lane of memories told in this order: (text, the group it belongs to or None, when)."""
    members: dict[str, set[int]] = {}
    for index, (_, owner, _) in enumerate(told):
        if owner is not None:
            members.setdefault(owner, set()).add(index)
    memories = tuple(Said(text, at) for text, _, at in told)
    planted = tuple(Planted(name, frozenset(indexes)) for name, indexes in members.items())
    name, generator, seed, voice = identity
    return Lane(name, generator, seed, voice, memories, planted)


@dataclass(frozen=True)
class Frame:
    """A sentence with two slots, {a} and {b}, and the words each may hold."""

    text: str
    a: tuple[str, ...]
    b: tuple[str, ...]


def _cut(rng: random.Random, frame: Frame, count: int) -> list[str]:
    """`count` distinct sentences of one frame, each slot word in at least `MIN_USES` of them."""
    a = rng.sample(frame.a, min(len(frame.a), count // MIN_USES))
    b = rng.sample(frame.b, min(len(frame.b), count // MIN_USES))
    if len(a) * len(b) < count:
        raise ValueError(f"frame {frame.text!r} makes {len(a) * len(b)} sentences, {count} wanted")
    # Round r pairs a[i] with b[(i + r) % len(b)]: no pair twice, every word in turn.
    pairs = [(a[i], b[(i + r) % len(b)]) for r in range(len(b)) for i in range(len(a))]
    return [frame.text.format(a=first, b=second) for first, second in pairs[:count]]


def fillers(rng: random.Random, frames: Sequence[Frame], count: int) -> list[str]:
    """`count` distinct everyday sentences, shuffled, from as many of the frames as can give each
    at least `PER_FRAME` (a small profile repeats a few kinds of sentence, not many once)."""
    used = rng.sample(list(frames), max(1, min(len(frames), count // PER_FRAME)))
    share, extra = divmod(count, len(used))
    texts = [text for index, frame in enumerate(used) for text in _cut(rng, frame, share + (index < extra))]
    rng.shuffle(texts)
    return texts


def split(texts: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    """The texts cut into consecutive sittings of the given sizes."""
    cuts = [0, *itertools.accumulate(sizes)]
    return [list(texts[start:end]) for start, end in itertools.pairwise(cuts)]
