"""`python -m bench.claims.meaning`: can the embedding model read what the rules cannot?

For every claim sentence-v1 leaves a candidate because no word says the predicate or the object
is said another way, the model encodes the sentence (the evidence span when the item has one),
a sentence stating the claim ("I work at X.") and the object alone. A claim's score is its
cosine with the statement minus its cosine with the bare object, so the words they share count
once. The figure is the area under the curve of that score (and of the raw cosine) separating
true from unsupported claims: 0.5 is chance. It asserts nothing and writes nothing; it needs the
model installed (`reverie embeddings install --model NAME`) but no database.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from bench.claims.__main__ import VERIFIERS, measure
from bench.claims.items import Label, Part, load_part
from bench.claims.scoring import Outcome
from graph.embedding.catalog import DEFAULT_MODEL, MODELS, model_spec
from graph.embedding.encoder import OnnxEncoder
from graph.embedding.provision import install_model
from graph.localdb import LocalNeo4j

# A plain first-person statement of each predicate, as a person would say it.
STATEMENTS = {
    "works_at": "I work at {object}.",
    "likes": "I love {object}.",
    "prefers": "I prefer {object}.",
    "uses": "I use {object}.",
    "knows": "I know {object} personally.",
    "has_goal": "I want to {object}.",
    "has_skill": "I am skilled at {object}.",
    "identity_is": "My name is {object}.",
    "profile_fact": "I {object}.",
    "born_on": "I was born on {object}.",
    "died_on": "{subject} died on {object}.",
    "works_on": "I am working on {object}.",
    "corrected": "Correction: {object}.",
    "relationship_to": "{object} is my relative.",
}
# The rule verdicts this lane looks behind: the word evidence was missing, not misread.
_WORDLESS = ("no word saying", "not found in", "but not together")


@dataclass(frozen=True)
class Scored:
    true: bool
    contrast: float
    cosine: float


def wordless(outcome: Outcome) -> bool:
    return not outcome.entailed and any(mark in outcome.verification.reason for mark in _WORDLESS)


def score(encoder: OnnxEncoder, prefix: str, outcome: Outcome) -> Scored:
    claim = outcome.item.claim
    statement = STATEMENTS[claim.predicate].format(object=claim.object, subject=claim.subject)
    text, stated, bare = encoder.encode(
        [prefix + (claim.evidence or outcome.item.text), prefix + statement, prefix + f"{claim.object}."]
    )
    cosine = sum(a * b for a, b in zip(text, stated, strict=True))
    baseline = sum(a * b for a, b in zip(text, bare, strict=True))
    return Scored(outcome.item.label is Label.TRUE, cosine - baseline, cosine)


def area_under_curve(scores: Sequence[Scored], key: str) -> float | None:
    """The chance that a true claim outscores an unsupported one (ties count half)."""
    true = [getattr(s, key) for s in scores if s.true]
    unsupported = [getattr(s, key) for s in scores if not s.true]
    if not true or not unsupported:
        return None
    wins = sum((t > u) + 0.5 * (t == u) for t, u in product(true, unsupported))
    return float(wins) / (len(true) * len(unsupported))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.claims.meaning", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--model", action="append", choices=sorted(MODELS), help="repeatable")
    parser.add_argument("--part", action="append", choices=[part.value for part in Part], help="repeatable")
    arguments = parser.parse_args(argv)
    home = LocalNeo4j.default_home()
    parts = [Part(value) for value in arguments.part or [Part.HELD_OUT.value]]
    for name in arguments.model or [DEFAULT_MODEL]:
        spec = model_spec(name)
        encoder = OnnxEncoder(install_model(home, spec))
        for part in parts:
            run = measure(VERIFIERS["sentence-v1"], part, load_part(part), with_evidence=True)
            scores = [score(encoder, spec.passage_prefix, o) for o in run.outcomes if wordless(o)]
            contrast, cosine = (area_under_curve(scores, key) for key in ("contrast", "cosine"))
            print(
                f"{name} on {part.value}: {len(scores)} wordless candidates "
                f"({sum(s.true for s in scores)} true); area under the curve: "
                f"contrast {contrast or 0:.2f}, raw cosine {cosine or 0:.2f} (0.50 is chance)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
