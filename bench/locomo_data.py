"""LoCoMo conversations read as the acceptance measure reads them, and the BM25 baseline.

A conversation file holds `speaker_a`, `speaker_b`, `session_N` (a list of turns) with its
`session_N_date_time`, and `qa`. A turn reads "Speaker: text", plus " [shared a photo: caption]"
when the speaker shared a photo (`Turn.content`, what BM25 indexes). It is remembered as a host
would save it: the speaker's words, and the photo's caption as a memory of its own marked
`shared` "photo_caption" (`Turn.memories`). Questions of category 5 (adversarial: no answer in
the conversation) are left out of retrieval scores.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import bm25s  # type: ignore[import-untyped]

from graph.memory.models import SharedKind

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
# Turns of one session are a few seconds apart, so their order survives in `occurred_at`;
# sessions are at least a day apart in the data, far more than any session's turns take.
TURN_STEP = timedelta(seconds=10)
DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
# bm25s sets its own logger to DEBUG on import, which would print a line per conversation.
logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True)
class Said:
    """One memory a turn gives: its text and, for what the speaker shared, `remember`'s kind."""

    text: str
    shared: SharedKind | None = None


@dataclass(frozen=True)
class Turn:
    dia_id: str
    content: str  # the whole turn, words and caption, as the acceptance measure reads it
    occurred_at: datetime
    memories: tuple[Said, ...] = ()  # what is remembered of it: the words, then what was shared


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    # Every question of categories 1-5: the dream lane reads their evidence as the links the
    # dataset's authors drew between turns, and an adversarial question's evidence is one too.
    all_questions: tuple[Question, ...] = ()
    speakers: tuple[str, ...] = ()


def session_date(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" as an aware datetime; the data names no zone, so UTC."""
    return datetime.strptime(text.strip(), DATE_FORMAT).replace(tzinfo=UTC)


def turn_content(turn: dict[str, Any]) -> str:
    content = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{content} [shared a photo: {caption}]" if caption else content


def turn_memories(turn: dict[str, Any]) -> tuple[Said, ...]:
    """The speaker's words, and the caption of the photo they shared (when they shared one) as
    something shared: the dataset's own field says which is which."""
    words = Said(f"{turn['speaker']}: {turn['text']}")
    caption = turn.get("blip_caption")
    if not caption:
        return (words,)
    return words, Said(f"{turn['speaker']} shared a photo: {caption}", "photo_caption")


def normalise_evidence(entries: Sequence[str]) -> frozenset[str]:
    """The dia_ids an evidence list names, in the canonical "D<session>:<turn>" form.

    A few entries are malformed: two ids in one string ("D8:6; D9:17"), a stray colon
    ("D:11:26"), or a bare "D". Every "D<digits>:<digits>" left once the separators and
    stray colons are read around is kept; whatever names no turn is dropped.
    """
    found: set[str] = set()
    for entry in entries:
        cleaned = re.sub(r"D\s*:\s*(\d)", r"D\1", entry.replace(" ", ""))
        found.update(f"D{int(session)}:{int(turn)}" for session, turn in _DIA_ID.findall(cleaned))
    return frozenset(found)


def _turns(data: dict[str, Any]) -> list[Turn]:
    sessions = sorted(int(match[1]) for key in data if (match := _SESSION.fullmatch(key)))
    turns: list[Turn] = []
    for number in sessions:
        # Some files carry dates for sessions that have no turns; only sessions with turns count.
        start = session_date(data[f"session_{number}_date_time"])
        for index, turn in enumerate(data[f"session_{number}"]):
            when = start + index * TURN_STEP
            turns.append(Turn(turn["dia_id"], turn_content(turn), when, turn_memories(turn)))
    return turns


def load_conversation(path: Path) -> Conversation:
    data = json.loads(path.read_text(encoding="utf-8"))
    every = tuple(
        Question(str(item["question"]), int(item["category"]), normalise_evidence(item.get("evidence", [])))
        for item in data["qa"]
    )
    questions = tuple(question for question in every if question.category in CATEGORIES)
    speakers = (str(data["speaker_a"]), str(data["speaker_b"]))
    return Conversation(path.stem, tuple(_turns(data)), questions, every, speakers)


def load_conversations(directory: Path, limit: int | None = None) -> list[Conversation]:
    paths = sorted(directory.glob("*.json"), key=lambda path: (len(path.stem), path.stem))
    if not paths:
        raise FileNotFoundError(f"no conversation files (*.json) in {directory}")
    return [load_conversation(path) for path in paths[:limit]]


def first_hit(ranked: Sequence[frozenset[str]], evidence: frozenset[str]) -> int | None:
    """1-based rank of the first result that holds an evidence turn, None when none does.

    A result stands for a set of dia_ids because `remember` folds identical turns into one
    fragment."""
    for rank, dia_ids in enumerate(ranked, start=1):
        if dia_ids & evidence:
            return rank
    return None


class Bm25Baseline:
    """Okapi BM25 (k1 1.2, b 0.75, Lucene's idf) over one conversation's turns.

    The parameters of Neo4j's fulltext index, with no stemming: lowercase words of two or more
    letters less bm25s's longer English stop-word list (179 words, NLTK's kind). Its short list
    (Lucene's 33) keeps "what", "did", "when", which every question has, and costs about five
    points of R@10 on the development split."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.dia_ids = [frozenset({turn.dia_id}) for turn in turns]
        self.index = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        self.index.index(self._tokens([turn.content for turn in turns]), show_progress=False)

    @staticmethod
    def _tokens(texts: list[str]) -> list[list[str]]:
        tokens: list[list[str]] = bm25s.tokenize(
            texts, stopwords="en_plus", return_ids=False, show_progress=False
        )
        return tokens

    def ranked(self, query: str, limit: int) -> list[frozenset[str]]:
        """The dia_ids of the best `limit` turns, best first; only turns that share a word."""
        words = [word for word in self._tokens([query])[0] if word]
        if not words:  # bm25s refuses an empty query; only stop words match nothing anyway
            return []
        scores = self.index.get_scores(words)
        order = sorted(range(len(self.dia_ids)), key=lambda index: -float(scores[index]))
        return [self.dia_ids[index] for index in order[:limit] if scores[index] > 0]
