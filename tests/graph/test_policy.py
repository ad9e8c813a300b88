"""Memory policy: the predicate table, gates, truth score and strength comparison."""

from __future__ import annotations

import math

import pytest

from graph.errors import InvalidInputError
from graph.memory.claims import check_claim
from graph.memory.models import ClaimInput
from graph.memory.policy import (
    SOURCE_QUALITY_BY_AUTHORITY,
    ClaimEvidence,
    Gate,
    Strength,
    check_gates,
    compare_strength,
    source_quality,
    truth_score,
)
from graph.memory.predicates import (
    CUE_WORDS,
    PREDICATE_RULES,
    PredicatePolicy,
    UnsupportedPredicateError,
    rule_for,
)
from graph.memory.verifier import Verdict
from graph.text import normalize

pytestmark = pytest.mark.unit

SINGLE_CURRENT = {"works_at", "identity_is", "profile_fact", "born_on", "died_on"}
MULTI_VALUED = {"likes", "prefers", "uses", "knows", "has_skill", "works_on", "has_goal", "relationship_to"}
STRICT = {"works_at", "identity_is", "born_on", "died_on"}


def _evidence(
    *,
    extract_conf: float = 0.95,
    resolution_conf: float = 0.9,
    modality: str = "assertion",
    verdict: Verdict = Verdict.ENTAILED,
    support_count: int = 2,
    best_source_quality: float = 0.95,
) -> ClaimEvidence:
    """Evidence that passes every gate of every rule unless a test weakens part of it."""
    return ClaimEvidence(extract_conf, resolution_conf, modality, verdict, support_count, best_source_quality)


def test_table_covers_the_designed_predicates_with_their_policies() -> None:
    assert set(PREDICATE_RULES) == SINGLE_CURRENT | MULTI_VALUED | {"corrected", "connected_to"}
    for predicate, rule in PREDICATE_RULES.items():
        assert rule.predicate == predicate
        if predicate in SINGLE_CURRENT:
            assert rule.policy is PredicatePolicy.SINGLE_CURRENT
        elif predicate in MULTI_VALUED or predicate == "connected_to":
            assert rule.policy is PredicatePolicy.MULTI_VALUED
        else:
            assert rule.policy is PredicatePolicy.APPEND_ONLY


def test_thresholds_stay_in_the_designed_ranges() -> None:
    for rule in PREDICATE_RULES.values():
        assert 0.70 <= rule.min_extract_conf <= 0.90, rule.predicate
        assert 0.60 <= rule.min_resolution_conf <= 0.80, rule.predicate
        assert rule.requires_entailment, rule.predicate
        assert rule.min_support >= 1
        if rule.predicate == "connected_to":
            # A dream's proposition: no single source, however good, may carry it.
            assert rule.min_source_quality > max(SOURCE_QUALITY_BY_AUTHORITY.values())
            assert rule.min_support >= 2
        else:
            assert rule.min_source_quality in SOURCE_QUALITY_BY_AUTHORITY.values()


def test_identity_birth_death_and_employment_are_the_strictest() -> None:
    loosest_strict = min(PREDICATE_RULES[p].min_resolution_conf for p in STRICT)
    for predicate in MULTI_VALUED:
        assert PREDICATE_RULES[predicate].min_resolution_conf <= loosest_strict
    assert all(PREDICATE_RULES[p].min_resolution_conf == 0.80 for p in STRICT)


def test_assertion_is_required_for_most_predicates_but_goals_may_be_plans() -> None:
    exempt = {p for p, rule in PREDICATE_RULES.items() if not rule.requires_assertion}
    assert exempt == {"has_goal", "connected_to"}


def test_cue_words_are_normalised_and_exported_for_the_verifier() -> None:
    for predicate, rule in PREDICATE_RULES.items():
        assert CUE_WORDS[predicate] == rule.cue_words
        assert all(word == normalize(word) and " " not in word for word in rule.cue_words)
        assert rule.cue_words or predicate in {"profile_fact", "connected_to"}
    assert {"work", "job", "employed", "hired", "joined"} <= set(CUE_WORDS["works_at"])


def test_source_quality_by_authority_with_unknown_as_other() -> None:
    assert source_quality("primary") == 0.95
    assert source_quality("secondary") == 0.75
    assert source_quality("other") == 0.5
    assert source_quality("tabloid") == 0.5
    assert source_quality("") == 0.5


def test_rule_for_returns_the_table_row() -> None:
    assert rule_for("works_at") is PREDICATE_RULES["works_at"]


def test_unsupported_predicate_names_every_supported_one() -> None:
    with pytest.raises(UnsupportedPredicateError) as caught:
        rule_for("owns_cat")
    error = caught.value
    assert error.predicate == "owns_cat"
    assert error.supported == tuple(sorted(PREDICATE_RULES))
    assert "'owns_cat'" in str(error)
    assert all(predicate in str(error) for predicate in PREDICATE_RULES)
    assert isinstance(error, ValueError)
    assert isinstance(error, InvalidInputError)


def test_predicate_lookup_is_exact() -> None:
    with pytest.raises(UnsupportedPredicateError):
        rule_for("Works_At")


def test_all_gates_pass_for_strong_evidence() -> None:
    outcome = check_gates(rule_for("works_at"), _evidence())
    assert outcome.passed
    assert outcome.failed == ()


def test_every_failing_gate_is_named() -> None:
    weak = _evidence(
        extract_conf=0.1,
        resolution_conf=0.1,
        modality="hypothetical",
        verdict=Verdict.INSUFFICIENT,
        support_count=0,
        best_source_quality=0.0,
    )
    outcome = check_gates(rule_for("works_at"), weak)
    assert not outcome.passed
    assert outcome.failed == tuple(Gate)


def test_a_single_gate_failure_is_named_alone() -> None:
    outcome = check_gates(rule_for("likes"), _evidence(verdict=Verdict.CONTRADICTED))
    assert outcome.failed == (Gate.ENTAILMENT,)


def test_thresholds_are_inclusive() -> None:
    rule = rule_for("works_at")
    exact = _evidence(extract_conf=rule.min_extract_conf, resolution_conf=rule.min_resolution_conf)
    assert check_gates(rule, exact).passed
    below = _evidence(extract_conf=rule.min_extract_conf - 0.01)
    assert check_gates(rule, below).failed == (Gate.EXTRACT_CONFIDENCE,)


def test_nan_confidence_fails_its_gate() -> None:
    outcome = check_gates(rule_for("likes"), _evidence(extract_conf=math.nan))
    assert outcome.failed == (Gate.EXTRACT_CONFIDENCE,)


def test_works_at_passes_with_two_ordinary_sources() -> None:
    evidence = _evidence(support_count=2, best_source_quality=0.5)
    assert check_gates(rule_for("works_at"), evidence).passed


def test_works_at_passes_with_one_primary_source() -> None:
    evidence = _evidence(support_count=1, best_source_quality=0.95)
    assert check_gates(rule_for("works_at"), evidence).passed


def test_works_at_fails_with_one_secondary_source() -> None:
    evidence = _evidence(support_count=1, best_source_quality=0.75)
    assert check_gates(rule_for("works_at"), evidence).failed == (Gate.EVIDENCE,)


def test_modality_gate_follows_the_rule() -> None:
    plan = _evidence(modality="plan")
    assert check_gates(rule_for("works_at"), plan).failed == (Gate.MODALITY,)
    assert check_gates(rule_for("has_goal"), plan).passed


def test_truth_score_arithmetic() -> None:
    rule = rule_for("works_at")
    both = _evidence(extract_conf=0.9, resolution_conf=0.8, support_count=2, best_source_quality=0.95)
    assert truth_score(rule, both) == pytest.approx(0.35 * 0.9 + 0.35 * 0.8 + 0.15 + 0.15)
    support_only = _evidence(extract_conf=0.9, resolution_conf=0.8, support_count=2, best_source_quality=0.75)
    assert truth_score(rule, support_only) == 0.745
    neither = _evidence(extract_conf=0.9, resolution_conf=0.8, support_count=1, best_source_quality=0.75)
    assert truth_score(rule, neither) == 0.595


def test_truth_score_is_rounded_to_four_decimals() -> None:
    score = truth_score(rule_for("likes"), _evidence(extract_conf=0.123456, resolution_conf=0.654321))
    assert score == round(score, 4)
    assert score == pytest.approx(0.35 * 0.123456 + 0.35 * 0.654321 + 0.3, abs=1e-4)


def test_truth_score_clamps_out_of_range_confidences() -> None:
    rule = rule_for("likes")
    assert truth_score(rule, _evidence(extract_conf=5.0, resolution_conf=1.0)) == 1.0
    assert truth_score(rule, _evidence(extract_conf=-3.0, resolution_conf=math.nan)) == 0.3


def test_compare_strength() -> None:
    assert compare_strength(0.9, 0.8) is Strength.STRONGER
    assert compare_strength(0.7, 0.8) is Strength.WEAKER
    assert compare_strength(0.8, 0.8) is Strength.EQUAL
    assert compare_strength(0.8005, 0.8) is Strength.EQUAL
    assert compare_strength(0.81, 0.8, tolerance=0.05) is Strength.EQUAL


@pytest.mark.parametrize("value", ["1990-03-14", "14 March 1990", "March 3rd", "3/4/1990", "Sept 1988"])
def test_a_day_in_any_usual_form_is_a_date(value: str) -> None:
    check_claim(
        ClaimInput(subject="user", predicate="born_on", object=value, extract_conf=1, resolution_conf=1)
    )


@pytest.mark.parametrize(
    ("predicate", "value", "refusal"),
    [
        ("born_on", "not a date", "is not a date"),
        ("died_on", "after the marathon", "is not a date"),
        ("owns_bank", "Acme", "Predicate 'owns_bank' is not supported"),
    ],
)
def test_a_claim_no_gate_could_store_is_refused_before_anything_is_written(
    predicate: str, value: str, refusal: str
) -> None:
    claim = ClaimInput(subject="user", predicate=predicate, object=value, extract_conf=1, resolution_conf=1)
    with pytest.raises(InvalidInputError, match=refusal):
        check_claim(claim)
