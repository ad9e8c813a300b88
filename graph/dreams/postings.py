"""The profile's words for the dream phase: which memories use each topical word.

A memory's text is a few hundred bytes beside its 384-float vector, and counting its words is
pure Python over one string, so the words are read far past the bound on vectors
(`neighbours.EXACT_LIMIT`): a profile of up to `WORD_LIMIT` live memories is read whole every
night, and a pair of memories sharing a word no other memory uses is in reach however large the
profile is (`bench/dream_postings.py` measures the cost).

A larger profile is read as a slice: two blocks of `BLOCK` live fragments in the order they were
stored, a different two each night (the profile's dreaming runs count the nights), so any two
memories are read together within K*(K-1)/2 nights for K blocks: 45 nights at 100,000 memories
(new memories shift the blocks, so that round holds for a profile that has stopped growing).
A slice holds fragments only: a fact is promoted from fragments that say it, and its words are
theirs. Words are counted within what was read; a slice's counts are a lower bound, which the
caller replaces with the profile's own counts for the few pairs it weighs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

import anyio

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.dreams.evidence import topical_roots
from graph.dreams.records import Memory, memory_from_row
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.rows import Row, count_of

# Live memories read whole in one night. On the two-core development machine, shared with other
# work, reading 20,000 synthetic memories' texts took 1.3 to 3.1 s and indexing their words 0.9
# to 1.7 s (a 17 MB heap peak); 100,000 took 4.4 to 9.9 s and 5.9 to 13.6 s, too long for one
# transaction under load and for a host waiting on `list_dream_candidates` (docs/benchmarks.md).
WORD_LIMIT: Final = 20_000
# A slice's blocks: two of them make one night's slice, at most `WORD_LIMIT` fragments.
BLOCK: Final = WORD_LIMIT // 2


@dataclass(frozen=True)
class ProfileWords:
    """The memories read for one night's words, and each word's holders among them."""

    memories: Sequence[Memory]
    postings: Mapping[str, Sequence[Memory]]  # a word's root -> the memories using it
    whole: bool  # every live memory of the profile, rather than one night's slice

    def holders(self, root: str) -> int:
        """How many of the memories read use the word (at least 1: it divides)."""
        return max(len(self.postings.get(root, ())), 1)


def word_postings(memories: Iterable[Memory]) -> dict[str, list[Memory]]:
    """The memories using each topical word, by its root."""
    postings: dict[str, list[Memory]] = defaultdict(list)
    for memory in memories:
        for root in topical_roots(memory.text):
            postings[root].append(memory)
    return postings


def indexed(memories: Sequence[Memory], whole: bool) -> ProfileWords:
    return ProfileWords(memories, word_postings(memories), whole)


def _parsed(rows: Sequence[Row], whole: bool) -> ProfileWords:
    return indexed([memory_from_row(row) for row in rows], whole)


def slice_starts(corpus_size: int, night: int) -> list[int]:
    """Where the night's two blocks start, as positions among the fragments in stored order:
    every two blocks in turn, so every two fragments share a slice once in K*(K-1)/2 nights."""
    blocks = max(2, math.ceil(corpus_size / BLOCK))
    first, second = list(combinations(range(blocks), 2))[night % (blocks * (blocks - 1) // 2)]
    return [first * BLOCK, second * BLOCK]


async def read_words(tx: ProfileTx, corpus_size: int) -> ProfileWords:
    """The whole profile's words when it holds at most `WORD_LIMIT` live memories, else the
    night's slice. Parsing and indexing run in a worker thread: at the bound they take a
    second of pure Python, which the server's event loop must not wait for."""
    if corpus_size <= WORD_LIMIT:
        rows = await tx.run(q.PROFILE_MEMORIES, cap=WORD_LIMIT + 1, feedback_label=DREAM_FEEDBACK_LABEL)
        if len(rows) <= WORD_LIMIT:
            return await anyio.to_thread.run_sync(_parsed, rows, True)
    night = count_of(await tx.single(q.RUN_COUNT))
    rows = [
        row
        for skip in slice_starts(corpus_size, night)
        for row in await tx.run(
            q.PROFILE_FRAGMENT_BLOCK, skip=skip, block=BLOCK, feedback_label=DREAM_FEEDBACK_LABEL
        )
    ]
    return await anyio.to_thread.run_sync(_parsed, rows, False)
