"""`python -m bench.claims`: every registered claim verifier on every part of the labelled set.

Each item's claim, built with all its fields, is verified against the item's text alone, twice:
with the evidence span the item gives and with every span removed. Per verifier, part and
span setting it prints the share of true claims entailed, of unsupported claims refused (any
verdict but "entailed") and the precision of "entailed", with counts, overall and per
predicate, register and trap, beside the targets; a figure under its target is marked with *.
It asserts nothing. The same figures and every item's verdict go to
bench/results/claims-<start time>.json. No database or model is needed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bench.claims.items import LabelledClaim, Part, load_part
from bench.claims.scoring import (
    PREDICATE_FLOOR,
    TRUE_ENTAILED_TARGET,
    UNSUPPORTED_REFUSED_TARGET,
    Outcome,
    Tally,
    judge,
    tally,
    tally_by,
    under,
)
from bench.machine import source_revision
from bench.report import results_path, write_json
from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimVerifier, LexicalVerifier

# Every verifier the lane measures, by the name it reports. Add a new verifier here.
VERIFIERS: Mapping[str, ClaimVerifier] = {"lexical-v1": LexicalVerifier(), "sentence-v1": SentenceVerifier()}

GROUPINGS: Mapping[str, Callable[[LabelledClaim], str]] = {
    "predicate": lambda item: item.predicate,
    "register": lambda item: item.register.value,
    "trap": lambda item: item.trap.value if item.trap is not None else "none",
}
_SPANS = {True: "evidence spans as given", False: "evidence spans removed"}
_NAME_WIDTH = 18


@dataclass(frozen=True)
class Run:
    verifier: str
    part: Part
    with_evidence: bool
    outcomes: Sequence[Outcome]
    overall: Tally
    groups: Mapping[str, Mapping[str, Tally]]

    @property
    def predicates_below_floor(self) -> list[str]:
        return [
            name
            for name, counts in self.groups["predicate"].items()
            if counts.below(PREDICATE_FLOOR, PREDICATE_FLOOR)
        ]


def measure(
    verifier: ClaimVerifier, part: Part, items: Sequence[LabelledClaim], *, with_evidence: bool
) -> Run:
    outcomes = judge(verifier, items, with_evidence=with_evidence)
    groups = {grouping: tally_by(outcomes, key) for grouping, key in GROUPINGS.items()}
    return Run(verifier.name, part, with_evidence, outcomes, tally(outcomes), groups)


def _share(count: int, whole: int, share: float | None, below: bool) -> str:
    if share is None:
        return f"{'-':>4}{'':14}"
    return f"{count:>4}/{whole:<4}{share:7.1%}{' *' if below else '  '}"


def _row(name: str, counts: Tally, recall_target: float | None, refusal_target: float | None) -> str:
    recall_below = recall_target is not None and under(counts.recall, recall_target)
    refusal_below = refusal_target is not None and under(counts.refusal, refusal_target)
    return "  ".join(
        (
            name.ljust(_NAME_WIDTH),
            _share(counts.true_entailed, counts.true_claims, counts.recall, recall_below),
            _share(counts.unsupported_refused, counts.unsupported_claims, counts.refusal, refusal_below),
            _share(counts.true_entailed, counts.entailed, counts.precision, False),
        )
    ).rstrip()


def _verdict(share: float | None, target: float) -> str:
    if share is None:
        return "nothing to measure"
    return f"{share:.1%} against >= {target:.0%}: {'met' if share >= target else 'not met'}"


def render(run: Run) -> str:
    overall = run.overall
    lines = [
        f"{run.verifier} on {run.part.value} ({len(run.outcomes)} items: {overall.true_claims} true, "
        f"{overall.unsupported_claims} unsupported), {_SPANS[run.with_evidence]}",
        f"{'':{_NAME_WIDTH}}  {'true entailed':<18}  {'unsupp. refused':<18}  precision of entailed",
        _row("all", overall, TRUE_ENTAILED_TARGET, UNSUPPORTED_REFUSED_TARGET),
    ]
    for grouping, tallies in run.groups.items():
        floor = PREDICATE_FLOOR if grouping == "predicate" else None
        target = f" (target: >= {PREDICATE_FLOOR:.0%} on both)" if floor is not None else ""
        lines.append(f"by {grouping}{target}")
        lines.extend(_row(f"  {name}", counts, floor, floor) for name, counts in tallies.items())
    below = run.predicates_below_floor
    lines += [
        f"true claims entailed: {_verdict(overall.recall, TRUE_ENTAILED_TARGET)}",
        f"unsupported claims refused: {_verdict(overall.refusal, UNSUPPORTED_REFUSED_TARGET)}",
        f"predicates under {PREDICATE_FLOOR:.0%} on either: {len(below)} of {len(run.groups['predicate'])}"
        + (f" ({', '.join(below)})" if below else ""),
    ]
    return "\n".join(lines)


def as_json(run: Run) -> dict[str, Any]:
    return {
        "verifier": run.verifier,
        "part": run.part.value,
        "evidence_spans": "given" if run.with_evidence else "removed",
        "overall": run.overall.as_dict(),
        "predicates_below_floor": run.predicates_below_floor,
        **{
            f"by_{grouping}": {name: counts.as_dict() for name, counts in tallies.items()}
            for grouping, tallies in run.groups.items()
        },
        "items": [
            {
                "id": outcome.item.id,
                "label": outcome.item.label.value,
                "verdict": outcome.verification.verdict.value,
                "reason": outcome.verification.reason,
            }
            for outcome in run.outcomes
        ],
    }


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.claims", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--verifier", action="append", choices=sorted(VERIFIERS), help="measure only this one (repeatable)"
    )
    parser.add_argument(
        "--part", action="append", choices=[part.value for part in Part], help="only this part (repeatable)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _arguments(argv)
    started = datetime.now(UTC)
    parts = [Part(value) for value in arguments.part or [part.value for part in Part]]
    items = {part: load_part(part) for part in parts}
    runs = [
        measure(VERIFIERS[name], part, items[part], with_evidence=with_evidence)
        for name in arguments.verifier or list(VERIFIERS)
        for part in parts
        for with_evidence in (True, False)
    ]
    print("\n\n".join(render(run) for run in runs))
    document = {
        "started_at": started.isoformat(),
        "revision": source_revision(),
        "targets": {
            "true_entailed": TRUE_ENTAILED_TARGET,
            "unsupported_refused": UNSUPPORTED_REFUSED_TARGET,
            "per_predicate_floor": PREDICATE_FLOOR,
        },
        "runs": [as_json(run) for run in runs],
    }
    print(f"\nJSON: {write_json(results_path(started, 'claims'), document)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
