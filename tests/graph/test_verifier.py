"""The lexical claim verifier: entailment, negation, subjects, polarity, mixed evidence."""

from __future__ import annotations

import pytest

from graph.memory import policy
from graph.memory.verifier import (
    ClaimStatement,
    ClaimVerifier,
    LexicalVerifier,
    Verdict,
    Verification,
)

pytestmark = pytest.mark.unit

VERIFIER: ClaimVerifier = LexicalVerifier()


def _verify(
    obj: str, *fragments: str, predicate: str = "works_at", subject: str = "user", polarity: str = "positive"
) -> Verification:
    return VERIFIER.verify(ClaimStatement(subject, predicate, obj, polarity), fragments)


def test_result_names_the_verifier() -> None:
    assert _verify("Acme", "I work at Acme").verifier == "lexical-v1" == VERIFIER.name


def test_plain_statement_entails() -> None:
    result = _verify("Acme Corp", "I work at Acme Corp.")
    assert result.verdict is Verdict.ENTAILED
    assert "'Acme Corp' found in fragment 1" in result.reason


@pytest.mark.parametrize(
    ("fragment", "negation"),
    [
        ("I no longer work at Acme", "no longer"),
        ("I don't work at Acme", "don't"),
        ("I do not work at Acme", "not"),
        ("I have never worked for Acme", "never"),
        ("I stopped working at Acme last spring", "stopped"),
        ("I left Acme in May", "left"),
        ("I quit Acme for good", "quit"),
        ("I used to work at Acme", "used to"),
        ("I work at Acme no longer", "no longer"),
        ("I dont work at Acme anymore", "dont"),
    ],
)
def test_negation_near_the_object_contradicts(fragment: str, negation: str) -> None:
    result = _verify("Acme", fragment)
    assert result.verdict is Verdict.CONTRADICTED, result.reason
    assert f"negation '{negation}'" in result.reason


def test_reason_says_where_the_negation_is() -> None:
    result = _verify("Acme Corp", "Honestly, I no longer work at Acme Corp")
    assert result.reason == (
        "object 'Acme Corp' found in fragment 1 with negation 'no longer' 4 words before it"
    )


def test_negation_in_another_clause_does_not_count() -> None:
    assert _verify("Acme", "No, I work at Acme").verdict is Verdict.ENTAILED
    switched = _verify("Acme", "I don't work there anymore; I'm at Acme now, great job")
    assert switched.verdict is Verdict.ENTAILED


def test_negation_far_before_the_object_does_not_count() -> None:
    assert _verify("jazz", "I have no idea why I love jazz", predicate="likes").verdict is Verdict.ENTAILED


def test_negation_words_inside_the_object_are_part_of_it() -> None:
    assert _verify("No Doubt", "I love No Doubt", predicate="likes").verdict is Verdict.ENTAILED


def test_departure_words_only_negate_employment() -> None:
    result = _verify("Vim", "I left Vim open and I use Vim daily", predicate="uses")
    assert result.verdict is Verdict.ENTAILED, result.reason


def test_first_person_words_satisfy_a_self_subject() -> None:
    for subject in ["user", "me", "I", "self", "person", "User"]:
        assert _verify("Acme", "My job is at Acme", subject=subject).verdict is Verdict.ENTAILED


def test_self_subject_without_first_person_is_insufficient() -> None:
    result = _verify("Acme", "Bob works at Acme")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "first-person" in result.reason


def test_named_subject_must_appear() -> None:
    assert _verify("Acme", "Anna works at Acme", subject="Anna").verdict is Verdict.ENTAILED
    result = _verify("Acme", "Bob works at Acme", subject="Anna")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "subject 'Anna' not found in fragment 1" in result.reason


def test_missing_object_is_insufficient_and_names_the_missing_word() -> None:
    result = _verify("Acme Corp", "I work at Acme")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "missing: corp" in result.reason


def test_object_words_must_be_close_together() -> None:
    result = _verify("Acme Corp", "I work at Acme, and every other corp in town envies it")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "not together" in result.reason


def test_object_words_may_come_in_another_order() -> None:
    result = _verify("John Smith", "I know Smith, John from school", predicate="knows")
    assert result.verdict is Verdict.ENTAILED


def test_mention_without_a_cue_word_is_insufficient() -> None:
    result = _verify("Acme", "I really hate Acme's ads")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "no works_at cue word" in result.reason


def test_verdict_is_the_one_the_gates_read() -> None:
    assert Verdict is policy.Verdict


def test_without_cue_words_a_bare_mention_is_enough() -> None:
    bare = LexicalVerifier(cue_words={})
    claim = ClaimStatement("user", "works_at", "Acme", "positive")
    assert bare.verify(claim, ["I really hate Acme's ads"]).verdict is Verdict.ENTAILED


def test_predicate_without_cues_needs_no_cue() -> None:
    assert _verify("vegetarian", "I'm vegetarian", predicate="profile_fact").verdict is Verdict.ENTAILED


def test_negative_polarity_inverts_the_reading() -> None:
    denied = _verify("Acme", "I don't work at Acme", polarity="negative")
    assert denied.verdict is Verdict.ENTAILED
    assert denied.reason.endswith("(the claim is negative)")
    assert _verify("Acme", "I work at Acme", polarity="negative").verdict is Verdict.CONTRADICTED
    assert _verify("Acme", "I like pizza", polarity="negative").verdict is Verdict.INSUFFICIENT


def test_unknown_polarity_is_insufficient() -> None:
    result = _verify("Acme", "I work at Acme", polarity="maybe")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "polarity" in result.reason


def test_any_contradiction_beats_entailment_across_fragments() -> None:
    result = _verify("Acme", "I work at Acme", "I left Acme last month")
    assert result.verdict is Verdict.CONTRADICTED
    assert result.reason.startswith("fragments disagree")
    assert "fragment 1" in result.reason
    assert "fragment 2" in result.reason


def test_one_settling_fragment_among_unrelated_ones_decides() -> None:
    result = _verify("Acme", "I like pizza", "I work at Acme")
    assert result.verdict is Verdict.ENTAILED
    assert "fragment 2" in result.reason


def test_mixed_mentions_inside_one_fragment_contradict() -> None:
    result = _verify("jazz", "I like jazz but not jazz fusion", predicate="likes")
    assert result.verdict is Verdict.CONTRADICTED
    assert "both unnegated and with negation 'not'" in result.reason


def test_no_fragments_is_insufficient() -> None:
    result = _verify("Acme")
    assert result.verdict is Verdict.INSUFFICIENT
    assert result.reason == "no supporting fragments"


def test_insufficient_reason_lists_a_few_fragments() -> None:
    result = _verify("Acme", "a", "b", "c", "d", "e")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "fragment 3" in result.reason
    assert "fragment 4" not in result.reason
    assert "2 more fragments" in result.reason


def test_typographic_apostrophes_and_case_do_not_matter() -> None:
    assert _verify("ACME", "I DON\u2019T WORK AT acme").verdict is Verdict.CONTRADICTED


@pytest.mark.parametrize(
    ("subject", "obj", "fragment"),
    [
        ("", "", ""),
        ("user", "", "I work at Acme"),
        ("", "Acme", "I work at Acme"),
        ("user", "!!!", "???"),
        ("\ud800", "\u0000", "\ud800\u0000"),
        ("user", "東京", "私は東京で work"),
        ("user", "Acme", "I work at Acme. " * 20_000),
        ("user", "Acme " * 500, "Acme " * 500),
    ],
)
def test_odd_input_never_raises(subject: str, obj: str, fragment: str) -> None:
    result = _verify(obj, fragment, "", subject=subject)
    assert result.verdict in set(Verdict)
    assert len(result.reason) < 1_000
