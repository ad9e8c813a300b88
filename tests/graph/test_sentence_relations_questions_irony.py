"""sentence-v1, round four (issue 50): relations sent as "<relation> <Name>" or the relation
alone, dates of named people and what does not date a birth or death, double negatives,
questions the person answers, irony, skills said as a doer or as a kid, negation closed off by
a dash, and corrections that deny the old value first. Each construction with the traps that
stay refused. Pure: no database, no model."""

from __future__ import annotations

import pytest

from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimStatement, Verdict, Verification

pytestmark = pytest.mark.unit

VERIFIER = SentenceVerifier()


def _verify(
    text: str, predicate: str, obj: str, subject: str = "user", evidence: str | None = None
) -> Verification:
    modality = "plan" if predicate == "has_goal" else "assertion"
    claim = ClaimStatement(subject, predicate, obj, "positive", modality, None, None, evidence)
    return VERIFIER.verify(claim, [text])


def _entailed(case: tuple[str, ...]) -> bool:
    return _verify(*case).verdict is Verdict.ENTAILED


@pytest.mark.parametrize(
    "case",
    [
        # The object's own relation noun says it, and the clause's event does not date it.
        ("My wife Noor is away at a conference till Friday.", "relationship_to", "wife Noor"),
        ("Noor, my wife, says hi.", "relationship_to", "wife Noor"),
        ("Stepdaughter's got her driving test tomorrow.", "relationship_to", "stepdaughter"),
        ("mum's 70 next week, need a present", "relationship_to", "mum"),
        # Words for one relation are read as one; a relation noun that is also a verb stays.
        ("Grandad (Walter) still does the crossword.", "relationship_to", "grandfather Walter"),
        ("hubby Dev made the best curry tonight", "relationship_to", "husband Dev"),
    ],
)
def test_a_relation_sent_with_its_noun_is_read(case: tuple[str, ...]) -> None:
    assert _entailed(case), _verify(*case).reason


@pytest.mark.parametrize(
    "case",
    [
        ("Noor's wife is coming to dinner on Saturday.", "relationship_to", "wife Noor"),
        ("My sister's husband Dev fixed our boiler.", "relationship_to", "husband Dev"),
        ("My friend's son Arlo starts school next week.", "relationship_to", "Arlo"),
        ("Divorced Pete in 2019, best decision I ever made.", "relationship_to", "husband Pete"),
        ("Marrying Jess next month, can't believe it!", "relationship_to", "wife Jess"),
        ("My grandfather Walter taught me chess.", "relationship_to", "father Walter"),
    ],
)
def test_someone_elses_or_another_relation_is_refused(case: tuple[str, ...]) -> None:
    assert not _entailed(case)


def test_the_reason_names_whose_relation_it_is() -> None:
    found = _verify("Noor's wife is coming to dinner.", "relationship_to", "wife Noor")
    assert "the relation is Noor's, not the person's" in found.reason


@pytest.mark.parametrize(
    "case",
    [
        ("Uncle Ron survived the crash in 1999 and died peacefully in 2019.", "died_on", "2019", "Ron"),
        ("Grandpa would have been 90 on 12 March.", "born_on", "12 March", "Grandpa"),
        ("Lily turned five on 3 November.", "born_on", "3 November", "Lily"),
        ("Leap-year baby here: 29 February 1996.", "born_on", "1996-02-29", "user"),
    ],
)
def test_a_date_said_of_the_event_is_read(case: tuple[str, ...]) -> None:
    assert _entailed(case), _verify(*case).reason


@pytest.mark.parametrize(
    "case",
    [
        # A span around a date with no word of the death does not vouch for one.
        (
            "Uncle Ron survived the crash in 1999 and died in 2019.",
            "died_on",
            "1999",
            "Ron",
            "Uncle Ron survived the crash in 1999",
        ),
        (
            "Mum's funeral was on 9 April 2019.",
            "died_on",
            "2019-04-09",
            "Mum",
            "Mum's funeral was on 9 April 2019",
        ),
        ("Grandpa would have been 90 on 12 March.", "died_on", "12 March", "Grandpa"),
        ("Lily turned five on 3 November 2023.", "born_on", "2023-11-03", "Lily"),
        ("Lily's birthday party is on 3 November.", "born_on", "3 November", "Lily"),
    ],
)
def test_a_date_of_another_event_is_refused(case: tuple[str, ...]) -> None:
    assert not _entailed(case)


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "entailed"),
    [
        ("Not gonna pretend I don't adore reality TV.", "likes", "reality TV", True),
        ("Can't say I don't enjoy a good thunderstorm.", "likes", "thunderstorm", True),
        ("It's not like I don't know Gareth - we shared a flat.", "knows", "Gareth", True),
        ("Not gonna pretend I'm not a night owl.", "profile_fact", "night owl", True),
        # Without the second negator, the clause is what the person will not say.
        ("Not gonna pretend I love jazz.", "likes", "jazz", False),
        ("Can't say I enjoy cricket.", "likes", "cricket", False),
        ("I don't dislike cricket, I just don't get it.", "likes", "cricket", False),
    ],
)
def test_a_negated_verb_of_saying_cancels_a_second_negator(
    text: str, predicate: str, obj: str, entailed: bool
) -> None:
    assert _entailed((text, predicate, obj)) is entailed


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "entailed"),
    [
        ("Do I want to go back to uni? Honestly, yes.", "has_goal", "go back to uni", True),
        ("Do I use Obsidian? Every single day.", "uses", "Obsidian", True),
        ("Am I still on the billing migration? Unfortunately yes.", "works_on", "billing migration", True),
        ("Do I still work at Harbourline? No, left in May.", "works_at", "Harbourline", False),
        ("Am I colourblind? No idea, never been tested.", "profile_fact", "colourblind", False),
        ("Me, a morning person? Yeah right.", "profile_fact", "morning person", False),
        ("Does Tom use Slack? Yes, all day.", "uses", "Slack", False),
        ("Should I learn Rust? Yes, probably.", "has_skill", "Rust", False),
    ],
)
def test_a_question_the_person_answers_states_the_answer(
    text: str, predicate: str, obj: str, entailed: bool
) -> None:
    assert _entailed((text, predicate, obj)) is entailed


def test_a_no_to_ones_own_question_denies_it() -> None:
    found = _verify("Do I still work at Harbourline? No, left in May.", "works_at", "Harbourline")
    assert found.verdict is Verdict.CONTRADICTED


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "entailed"),
    [
        ("Oh sure, I work at NASA.", "works_at", "NASA", False),
        ("Oh great, another Monday. Love Mondays.", "likes", "Mondays", False),
        ("Yeah, I totally love using Teams. Said no one ever.", "uses", "Teams", False),
        ("I love Mondays. Not.", "likes", "Mondays", False),
        # A lone "oh" or "sure" agrees, and a "not" inside a clause is no tag.
        ("Oh, I love jazz, always have.", "likes", "jazz", True),
        ("Sure, I use Notion for everything.", "uses", "Notion", True),
        ("I love jazz, not opera.", "likes", "jazz", True),
    ],
)
def test_set_phrases_of_irony_state_nothing(text: str, predicate: str, obj: str, entailed: bool) -> None:
    assert _entailed((text, predicate, obj)) is entailed


def test_the_reason_names_the_irony() -> None:
    assert "'Oh sure' makes it ironic" in _verify("Oh sure, I work at NASA.", "works_at", "NASA").reason


@pytest.mark.parametrize(
    ("text", "obj", "entailed"),
    [
        ("I'm a decent swimmer, nothing fancy.", "swimming", True),
        ("I've been a welder for ten years.", "welding", True),
        ("Learned to swim as a kid in the local lido.", "swimming", True),
        ("Hired a welder for the gate.", "welding", False),
        ("My dad is a welder.", "welding", False),
        ("I'm a terrible swimmer.", "swimming", False),
        ("Spoke decent German as a kid, forgot all of it.", "German", False),
    ],
)
def test_a_skill_said_as_a_doer_or_of_a_time_of_life(text: str, obj: str, entailed: bool) -> None:
    assert _entailed((text, "has_skill", obj)) is entailed


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "entailed"),
    [
        ("I'm not unemployed anymore - started at Fennick Labs on Monday!", "works_at", "Fennick Labs", True),
        ("Not at Corbel anymore - at Brightwater now.", "works_at", "Corbel", False),
        ("I don't, honestly, work at Corbel.", "works_at", "Corbel", False),
        ("Not 2014 - we married in 2015, I always mix that up.", "corrected", "married in 2015", True),
        ("Not 2014 - we married in 2015, I always mix that up.", "corrected", "married in 2014", False),
    ],
)
def test_a_negator_closed_off_by_a_dash_negates_its_own_words(
    text: str, predicate: str, obj: str, entailed: bool
) -> None:
    assert _entailed((text, predicate, obj)) is entailed
