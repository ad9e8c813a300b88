"""Memory policy: what a claim needs to become a fact.

The predicates and their rules are one table (`graph/memory/predicates.py`); here are the small
pure functions that apply a row to a claim's evidence. Nothing here touches the database; the
pipeline gathers the evidence and acts on the outcome.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from graph.memory.models import Verdict
from graph.memory.predicates import ASSERTION_MODALITY, PredicateRule

SOURCE_QUALITY_BY_AUTHORITY: Mapping[str, float] = MappingProxyType(
    {"primary": 0.95, "secondary": 0.75, "other": 0.5}
)


def source_quality(authority: str) -> float:
    """The quality of a source by its authority; anything unrecognised counts as "other"."""
    return SOURCE_QUALITY_BY_AUTHORITY.get(authority, SOURCE_QUALITY_BY_AUTHORITY["other"])


@dataclass(frozen=True)
class ClaimEvidence:
    extract_conf: float
    resolution_conf: float
    modality: str
    verdict: Verdict
    # Independent, still-active fragments supporting the claim.
    support_count: int
    # Quality of the best of those fragments (0.0 when there are none).
    best_source_quality: float


class Gate(StrEnum):
    EXTRACT_CONFIDENCE = "extract_confidence"
    RESOLUTION_CONFIDENCE = "resolution_confidence"
    MODALITY = "modality"
    ENTAILMENT = "entailment"
    EVIDENCE = "evidence"


@dataclass(frozen=True)
class GateOutcome:
    passed: bool
    failed: tuple[Gate, ...]


def _support_met(rule: PredicateRule, evidence: ClaimEvidence) -> bool:
    return evidence.support_count >= rule.min_support


def _quality_met(rule: PredicateRule, evidence: ClaimEvidence) -> bool:
    return evidence.best_source_quality >= rule.min_source_quality


def check_gates(rule: PredicateRule, evidence: ClaimEvidence) -> GateOutcome:
    """Evaluate every gate, so a rejection names all the reasons at once, not just the first."""
    results = {
        # A NaN confidence compares False and so fails, which is what a broken extractor deserves.
        Gate.EXTRACT_CONFIDENCE: evidence.extract_conf >= rule.min_extract_conf,
        Gate.RESOLUTION_CONFIDENCE: evidence.resolution_conf >= rule.min_resolution_conf,
        Gate.MODALITY: not rule.requires_assertion or evidence.modality == ASSERTION_MODALITY,
        Gate.ENTAILMENT: not rule.requires_entailment or evidence.verdict == Verdict.ENTAILED,
        Gate.EVIDENCE: _support_met(rule, evidence) or _quality_met(rule, evidence),
    }
    failed = tuple(gate for gate, ok in results.items() if not ok)
    return GateOutcome(passed=not failed, failed=failed)


def _unit(value: float) -> float:
    # An out-of-range confidence must not let one claim outrank another by more than the scale.
    return 0.0 if math.isnan(value) else min(max(value, 0.0), 1.0)


def truth_score(rule: PredicateRule, evidence: ClaimEvidence) -> float:
    """0.35 extract + 0.35 resolution + 0.15 support gate met + 0.15 quality gate met."""
    score = (
        0.35 * _unit(evidence.extract_conf)
        + 0.35 * _unit(evidence.resolution_conf)
        + 0.15 * float(_support_met(rule, evidence))
        + 0.15 * float(_quality_met(rule, evidence))
    )
    return round(score, 4)


class Strength(StrEnum):
    STRONGER = "stronger"
    WEAKER = "weaker"
    EQUAL = "equal"


def compare_strength(new: float, existing: float, tolerance: float = 1e-3) -> Strength:
    """How a new claim's truth score compares with an active fact's.

    Scores within `tolerance` are equal: rounding noise must raise a clarification question,
    not silently replace what the person told us before.
    """
    if abs(new - existing) <= tolerance:
        return Strength.EQUAL
    return Strength.STRONGER if new > existing else Strength.WEAKER
