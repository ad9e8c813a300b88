"""How a verifier does on labelled claims: what it entails of the true ones and the unsupported ones.

Only "entailed" lets a claim through the verifier's gate, so an unsupported claim counts as
refused when the verdict is anything else (contradicted or insufficient), and a true claim
counts as found only when it is entailed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.claims.items import Label, LabelledClaim
from graph.memory.verifier import ClaimVerifier, Verdict, Verification

# What a verifier should reach before it replaces lexical-v1 (issue 50).
TRUE_ENTAILED_TARGET = 0.85
UNSUPPORTED_REFUSED_TARGET = 0.90
PREDICATE_FLOOR = 0.70


@dataclass(frozen=True)
class Outcome:
    item: LabelledClaim
    verification: Verification

    @property
    def entailed(self) -> bool:
        return self.verification.verdict is Verdict.ENTAILED


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def under(share: float | None, target: float) -> bool:
    """Whether a share misses its target; a share with nothing behind it does not."""
    return share is not None and share < target


@dataclass(frozen=True)
class Tally:
    true_claims: int = 0
    true_entailed: int = 0
    unsupported_claims: int = 0
    unsupported_entailed: int = 0

    @property
    def unsupported_refused(self) -> int:
        return self.unsupported_claims - self.unsupported_entailed

    @property
    def entailed(self) -> int:
        return self.true_entailed + self.unsupported_entailed

    @property
    def recall(self) -> float | None:
        """Share of the true claims entailed."""
        return _share(self.true_entailed, self.true_claims)

    @property
    def refusal(self) -> float | None:
        """Share of the unsupported claims not entailed."""
        return _share(self.unsupported_refused, self.unsupported_claims)

    @property
    def precision(self) -> float | None:
        """Share of the entailed claims that are true."""
        return _share(self.true_entailed, self.entailed)

    def below(self, recall_target: float, refusal_target: float) -> bool:
        return under(self.recall, recall_target) or under(self.refusal, refusal_target)

    def as_dict(self) -> dict[str, Any]:
        return {
            "true_claims": self.true_claims,
            "true_entailed": self.true_entailed,
            "unsupported_claims": self.unsupported_claims,
            "unsupported_refused": self.unsupported_refused,
            "recall": self.recall,
            "refusal": self.refusal,
            "precision": self.precision,
        }


def judge(verifier: ClaimVerifier, items: Iterable[LabelledClaim], *, with_evidence: bool) -> list[Outcome]:
    """Each item's claim verified against its text alone, with or without its evidence span."""
    return [
        Outcome(item, verifier.verify(item.statement(with_evidence=with_evidence), [item.text]))
        for item in items
    ]


def tally(outcomes: Iterable[Outcome]) -> Tally:
    true_claims = true_entailed = unsupported_claims = unsupported_entailed = 0
    for outcome in outcomes:
        if outcome.item.label is Label.TRUE:
            true_claims += 1
            true_entailed += outcome.entailed
        else:
            unsupported_claims += 1
            unsupported_entailed += outcome.entailed
    return Tally(true_claims, true_entailed, unsupported_claims, unsupported_entailed)


def tally_by(outcomes: Sequence[Outcome], key: Callable[[LabelledClaim], str]) -> Mapping[str, Tally]:
    """One tally per value of `key`, in the values' alphabetical order."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[key(outcome.item)].append(outcome)
    return {name: tally(groups[name]) for name in sorted(groups)}
