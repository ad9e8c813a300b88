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


def said(text: str, predicate: str, obj: str, subject: str = "user", evidence: str | None = None) -> object:
    return pytest.param(text, predicate, obj, subject, evidence, True, id=f"said: {text}")


def refused(
    text: str, predicate: str, obj: str, subject: str = "user", evidence: str | None = None
) -> object:
    return pytest.param(text, predicate, obj, subject, evidence, False, id=f"refused: {text}")


READINGS = [
    # Relations sent as "<relation> <Name>" or the relation alone: the object's own relation
    # noun says it when the speaker owns it, and the clause's event does not date it.
    said("My wife Noor is away at a conference till Friday.", "relationship_to", "wife Noor"),
    said("Noor, my wife, says hi.", "relationship_to", "wife Noor"),
    said("Stepdaughter's got her driving test tomorrow.", "relationship_to", "stepdaughter"),
    said("mum's 70 next week, need a present", "relationship_to", "mum"),
    # Words for one relation are read as one; a relation noun that is also a verb stays.
    said("Grandad (Walter) still does the crossword.", "relationship_to", "grandfather Walter"),
    said("hubby Dev made the best curry tonight", "relationship_to", "husband Dev"),
    refused("Noor's wife is coming to dinner on Saturday.", "relationship_to", "wife Noor"),
    refused("My sister's husband Dev fixed our boiler.", "relationship_to", "husband Dev"),
    refused("My friend's son Arlo starts school next week.", "relationship_to", "Arlo"),
    refused("Divorced Pete in 2019, best decision I ever made.", "relationship_to", "husband Pete"),
    refused("Marrying Jess next month, can't believe it!", "relationship_to", "wife Jess"),
    refused("My grandfather Walter taught me chess.", "relationship_to", "father Walter"),
    # A date said of the event, and dates of other events or with no word of one.
    said("Uncle Ron survived the crash in 1999 and died peacefully in 2019.", "died_on", "2019", "Ron"),
    said("Grandpa would have been 90 on 12 March.", "born_on", "12 March", "Grandpa"),
    said("Lily turned five on 3 November.", "born_on", "3 November", "Lily"),
    said("Leap-year baby here: 29 February 1996.", "born_on", "1996-02-29"),
    refused(
        "Uncle Ron survived the crash in 1999 and died in 2019.",
        "died_on",
        "1999",
        "Ron",
        "Uncle Ron survived the crash in 1999",
    ),
    refused(
        "Mum's funeral was on 9 April 2019.",
        "died_on",
        "2019-04-09",
        "Mum",
        "Mum's funeral was on 9 April 2019",
    ),
    refused("Grandpa would have been 90 on 12 March.", "died_on", "12 March", "Grandpa"),
    refused("Lily turned five on 3 November 2023.", "born_on", "2023-11-03", "Lily"),
    refused("Lily's birthday party is on 3 November.", "born_on", "3 November", "Lily"),
    # A negated verb of saying cancels a second negator, and denies a clause without one.
    said("Not gonna pretend I don't adore reality TV.", "likes", "reality TV"),
    said("Can't say I don't enjoy a good thunderstorm.", "likes", "thunderstorm"),
    said("It's not like I don't know Gareth - we shared a flat.", "knows", "Gareth"),
    said("Not gonna pretend I'm not a night owl.", "profile_fact", "night owl"),
    refused("Not gonna pretend I love jazz.", "likes", "jazz"),
    refused("Can't say I enjoy cricket.", "likes", "cricket"),
    refused("I don't dislike cricket, I just don't get it.", "likes", "cricket"),
    # A question the person asks of themself and answers states the answer.
    said("Do I want to go back to uni? Honestly, yes.", "has_goal", "go back to uni"),
    said("Do I use Obsidian? Every single day.", "uses", "Obsidian"),
    said("Am I still on the billing migration? Unfortunately yes.", "works_on", "billing migration"),
    refused("Do I still work at Harbourline? No, left in May.", "works_at", "Harbourline"),
    refused("Am I colourblind? No idea, never been tested.", "profile_fact", "colourblind"),
    refused("Me, a morning person? Yeah right.", "profile_fact", "morning person"),
    refused("Does Tom use Slack? Yes, all day.", "uses", "Slack"),
    refused("Should I learn Rust? Yes, probably.", "has_skill", "Rust"),
    # Set phrases of irony state nothing; a lone "oh" or "sure" agrees, an inner "not" is no tag.
    refused("Oh sure, I work at NASA.", "works_at", "NASA"),
    refused("Oh great, another Monday. Love Mondays.", "likes", "Mondays"),
    refused("Yeah, I totally love using Teams. Said no one ever.", "uses", "Teams"),
    refused("I love Mondays. Not.", "likes", "Mondays"),
    said("Oh, I love jazz, always have.", "likes", "jazz"),
    said("Sure, I use Notion for everything.", "uses", "Notion"),
    said("I love jazz, not opera.", "likes", "jazz"),
    # A skill said as a doer, or of a time of life that is over.
    said("I'm a decent swimmer, nothing fancy.", "has_skill", "swimming"),
    said("I've been a welder for ten years.", "has_skill", "welding"),
    said("Learned to swim as a kid in the local lido.", "has_skill", "swimming"),
    refused("Hired a welder for the gate.", "has_skill", "welding"),
    refused("My dad is a welder.", "has_skill", "welding"),
    refused("I'm a terrible swimmer.", "has_skill", "swimming"),
    refused("Spoke decent German as a kid, forgot all of it.", "has_skill", "German"),
    # A negator closed off by a dash negates its own words; a correction denying the old value.
    said("I'm not unemployed anymore - started at Fennick Labs on Monday!", "works_at", "Fennick Labs"),
    refused("Not at Corbel anymore - at Brightwater now.", "works_at", "Corbel"),
    refused("I don't, honestly, work at Corbel.", "works_at", "Corbel"),
    said("Not 2014 - we married in 2015, I always mix that up.", "corrected", "married in 2015"),
    refused("Not 2014 - we married in 2015, I always mix that up.", "corrected", "married in 2014"),
]


@pytest.mark.parametrize(("text", "predicate", "obj", "subject", "evidence", "entailed"), READINGS)
def test_each_construction_is_read_and_its_traps_are_refused(
    text: str, predicate: str, obj: str, subject: str, evidence: str | None, entailed: bool
) -> None:
    found = _verify(text, predicate, obj, subject, evidence)
    assert (found.verdict is Verdict.ENTAILED) is entailed, found.reason


def test_the_reason_names_whose_relation_it_is() -> None:
    found = _verify("Noor's wife is coming to dinner.", "relationship_to", "wife Noor")
    assert "the relation is Noor's, not the person's" in found.reason


def test_a_no_to_ones_own_question_denies_it() -> None:
    found = _verify("Do I still work at Harbourline? No, left in May.", "works_at", "Harbourline")
    assert found.verdict is Verdict.CONTRADICTED


def test_the_reason_names_the_irony() -> None:
    assert "'Oh sure' makes it ironic" in _verify("Oh sure, I work at NASA.", "works_at", "NASA").reason
