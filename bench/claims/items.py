"""The labelled claims, read from their JSON Lines files into typed records.

Each line is one item: what a person said (`text`), a claim a host could send with it, the
words a careful host would quote as its evidence (or null), and whether the text states the
claim as given (`true`) or not (`unsupported`). A line that does not fit is refused with the
file, the line and the field, so a mistyped item never silently leaves the measure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from graph.memory.models import Modality, Polarity
from graph.memory.predicates import PREDICATE_RULES
from graph.memory.verifier import ClaimStatement

CLAIMS_DIR = Path(__file__).parent


class Part(StrEnum):
    # Rules may be tuned on this part...
    TUNING = "tuning"
    # ...and are judged on this one, written with other names, places and phrasings.
    HELD_OUT = "held_out"
    # A second held-out part, written later by another hand, for a measure that nobody has
    # tuned against or read failures from (held_out has been used for diagnosis).
    HELD_OUT_B = "held_out_b"
    # A third, written by a fourth hand who read no rule, no other part and no failure, with an
    # evidence span on nearly every claim (as a host that read the words would send).
    HELD_OUT_C = "held_out_c"

    @property
    def path(self) -> Path:
        return CLAIMS_DIR / f"{self.value}.jsonl"


class Register(StrEnum):
    TERSE = "terse"  # chat shorthand: "tea over coffee, always"
    DIARY = "diary"  # first person left out: "Started at Quillmark on Monday."
    LONG = "long"  # several sentences, the claim in one clause among others
    PLAIN = "plain"  # a first-person statement


class Trap(StrEnum):
    OTHER_PERSON = "other_person"
    NEGATION = "negation"
    MODALITY = "modality"
    TIME = "time"
    HEARSAY = "hearsay"
    RETRACTED = "retracted"
    QUESTION = "question"
    DISTRACTOR = "distractor"


class Label(StrEnum):
    TRUE = "true"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class LabelledClaim:
    id: str
    register: Register
    trap: Trap | None
    text: str
    # Every field the host would send, the evidence span included.
    claim: ClaimStatement
    label: Label
    note: str | None

    @property
    def predicate(self) -> str:
        return self.claim.predicate

    def statement(self, *, with_evidence: bool) -> ClaimStatement:
        """The claim as the verifier gets it: with the item's evidence span, or without any."""
        return self.claim if with_evidence else replace(self.claim, evidence=None)


class ClaimSetError(ValueError):
    """A line of a claims file that cannot be read; nothing of that file is used."""


Words = Annotated[str, Field(min_length=1)]


class _ClaimLine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: Words
    predicate: Words
    object: Words
    polarity: Polarity
    modality: Modality
    valid_from: date | None
    valid_to: date | None

    @field_validator("predicate")
    @classmethod
    def _known_predicate(cls, value: str) -> str:
        if value not in PREDICATE_RULES:
            raise ValueError(f"unknown predicate {value!r}; use one of {', '.join(sorted(PREDICATE_RULES))}")
        return value


class _ItemLine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Words
    # "register" would shadow a BaseModel attribute; the file's key stays "register".
    register_: Register = Field(alias="register")
    trap: Trap | None
    text: Words
    claim: _ClaimLine
    evidence: Words | None
    label: Label
    note: str | None = None

    @field_validator("evidence")
    @classmethod
    def _evidence_is_quoted(cls, value: str | None, info: ValidationInfo) -> str | None:
        # `text` is validated first; when it failed, that error is the one to fix.
        text = info.data.get("text")
        if value is not None and text is not None and value not in text:
            raise ValueError("evidence must be words copied exactly from text")
        return value


def _moment(day: date | None) -> datetime | None:
    return None if day is None else datetime(day.year, day.month, day.day, tzinfo=UTC)


def _record(line: _ItemLine) -> LabelledClaim:
    claim = line.claim
    return LabelledClaim(
        id=line.id,
        register=line.register_,
        trap=line.trap,
        text=line.text,
        claim=ClaimStatement(
            subject=claim.subject,
            predicate=claim.predicate,
            object=claim.object,
            polarity=claim.polarity,
            modality=claim.modality,
            valid_from=_moment(claim.valid_from),
            valid_to=_moment(claim.valid_to),
            evidence=line.evidence,
        ),
        label=line.label,
        note=line.note,
    )


def _problems(error: ValidationError) -> str:
    described = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"])
        described.append(f"field {field}: {problem['msg']}" if field else problem["msg"])
    return "; ".join(described)


def parse_line(text: str, where: str) -> LabelledClaim:
    """One item from one line; `where` ("file line N") begins the error when the line is wrong."""
    try:
        return _record(_ItemLine.model_validate_json(text))
    except ValidationError as error:
        raise ClaimSetError(f"{where}: {_problems(error)}. Fix the line and run again.") from None


def load(path: Path) -> tuple[LabelledClaim, ...]:
    """Every item of a claims file, in order; refuses the file at its first bad line or repeated id."""
    items: list[LabelledClaim] = []
    first_seen: dict[str, int] = {}
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        item = parse_line(text, f"{path} line {number}")
        if item.id in first_seen:
            raise ClaimSetError(
                f"{path} line {number}: field id: {item.id!r} was already used on line "
                f"{first_seen[item.id]}. Give each item an id of its own."
            )
        first_seen[item.id] = number
        items.append(item)
    return tuple(items)


def load_part(part: Part) -> tuple[LabelledClaim, ...]:
    return load(part.path)
