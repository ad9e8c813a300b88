"""A model reads the person's words for what the rule-based verifier misses: sarcasm, hedges
and negations its clause rules do not know, someone else's tastes said in unusual ways.

The rule-based verifier (the floor: sentence-v1 by default) stays, and the model can only take
support away, never add it:

- a claim the floor does not find entailed keeps its verdict, whatever the model says
  (the model cannot make a claim entailed, nor contradicted);
- a claim it finds entailed loses the support of each fragment the model reads as not stating
  it; when no fragment the floor accepts is left, the verdict is "insufficient".

So a model that is wrong can only keep a claim a candidate, which costs a confirmation later;
it can never let a false belief through the gates or flag a fact. "insufficient" rather than
"contradicted", because a hedge is not a denial and a contradiction would dispute facts on a
model's word alone.

The verifier runs inside the remember transaction, where no model may be called (a managed
transaction may be retried, a model call must not be), so the model reads the new content
before that transaction opens (`ClaimCheck.verifier_for`), and the verifier inside it only looks
its readings up. Fragments the model did not read (older support) are judged by the floor alone.
One request per remember, asked only for the claims the floor finds entailed by the new
content; a refusal, an error, a timeout or a malformed answer leaves the floor's verdicts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.dreams.host_model import HostModel, HostModelError, HostModelLimits
from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimStatement, ClaimVerifier, Verdict, Verification
from graph.text import normalize

log = logging.getLogger(__name__)

MAX_WHY_CHARS: Final = 200
SYSTEM_PROMPT: Final = (
    "You check whether a person's own words state claims about them. Read the text literally. "
    "Answer with one JSON object and nothing else."
)
_INSTRUCTIONS: Final = """Reply with JSON of exactly this shape:
{"claims": [{"number": 1, "states": true or false, "why": "a few words"}]}
with one entry per claim. "states" is true only when the text plainly says the claim is true.
It is false when the text denies it, doubts or hedges it ("I don't think I like jazz"), asks
about it, wishes or imagines it, says it was true only in the past, or says it of someone else."""

# (subject, predicate, object, polarity) after `normalize`, and the fragment's normalized text.
_ClaimKey = tuple[str, str, str, str]


def _claim_key(claim: ClaimStatement) -> _ClaimKey:
    return (normalize(claim.subject), claim.predicate, normalize(claim.object), str(claim.polarity))


def _said(claim: ClaimStatement) -> str:
    negation = "not " if str(claim.polarity) == "negative" else ""
    return f"{claim.subject} {negation}{claim.predicate.replace('_', ' ')} {claim.object}"


@dataclass(frozen=True)
class Reading:
    """What the model made of one claim in one text: it does not state it, because `why`."""

    why: str


class _Check(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    number: int
    states: bool
    why: str = Field(default="", max_length=MAX_WHY_CHARS)


class _Checks(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claims: list[_Check]


def parse_checks(text: str) -> list[_Check]:
    """The JSON object in the model's text, which may stand in a code fence or after a preamble."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    try:
        found, _ = json.JSONDecoder().raw_decode(text[start:])
        return _Checks.model_validate(found).claims
    except (json.JSONDecodeError, ValidationError) as error:
        raise ValueError(f"not the asked-for JSON: {str(error)[:200]}") from error


class ModelCheckedVerifier:
    """The floor's verdict, less the support of fragments the model read as not stating the claim."""

    def __init__(
        self, floor: ClaimVerifier, model: str, readings: Mapping[tuple[_ClaimKey, str], Reading]
    ) -> None:
        self._floor = floor
        self._model = model
        self._readings = dict(readings)

    @property
    def name(self) -> str:
        return f"{self._floor.name}+{self._model}"

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification:
        floor = self._floor.verify(claim, fragments)
        if floor.verdict is not Verdict.ENTAILED:
            return floor
        key = _claim_key(claim)
        refused = [
            (number, reading)
            for number, text in enumerate(fragments, start=1)
            if (reading := self._readings.get((key, normalize(text)))) is not None
        ]
        if not refused:
            return floor
        kept = [text for text in fragments if (key, normalize(text)) not in self._readings]
        rest = self._floor.verify(claim, kept) if kept else None
        if rest is not None and rest.verdict is Verdict.ENTAILED:
            return rest
        number, reading = refused[0]
        reason = (
            f"{floor.reason}, but the model {self._model} reads fragment {number} as not stating "
            f"the claim ({reading.why or 'no reason given'})"
        )
        return Verification(verdict=Verdict.INSUFFICIENT, verifier=self.name, reason=reason)


class ClaimCheck:
    """Asks a model, before the remember transaction, which claims the new words really state."""

    def __init__(self, model: HostModel, limits: HostModelLimits, floor: ClaimVerifier | None = None) -> None:
        self._model = model
        self._limits = limits
        self._floor = floor or SentenceVerifier()

    async def verifier_for(self, content: str, claims: Iterable[ClaimStatement]) -> ClaimVerifier:
        """A verifier for one remember of `content` with `claims`; the floor alone when the model
        has nothing to add or cannot answer."""
        asked = list(
            dict.fromkeys(
                claim for claim in claims if self._floor.verify(claim, [content]).verdict is Verdict.ENTAILED
            )
        )
        if not asked:
            return self._floor
        try:
            with anyio.fail_after(self._limits.timeout_seconds):
                answer = await self._model.ask(
                    SYSTEM_PROMPT, _prompt(content, asked), self._limits.max_tokens
                )
            checks = parse_checks(answer.text)
        except (TimeoutError, HostModelError, ValueError) as error:
            # anyio's timeout is a TimeoutError without words of its own.
            log.warning(
                "claim check: no usable answer (%s); the floor's verdicts stand", str(error) or "timed out"
            )
            return self._floor
        fragment = normalize(content)
        readings = {
            (_claim_key(asked[check.number - 1]), fragment): Reading(check.why)
            for check in checks
            if not check.states and 1 <= check.number <= len(asked)
        }
        return ModelCheckedVerifier(self._floor, answer.model, readings) if readings else self._floor


def _prompt(content: str, claims: Sequence[ClaimStatement]) -> str:
    listed = "\n".join(f"{number}. {_said(claim)}" for number, claim in enumerate(claims, start=1))
    return (
        f"Text, in the person's own words:\n<<<\n{content}\n>>>\n"
        f'Claims ("user" is the person who wrote the text):\n{listed}\n{_INSTRUCTIONS}'
    )
