"""sentence-v1: who a sentence is about, negation and its reach, mood, time, hearsay, questions,
take-backs, evidence spans and the reasons a host gets. Pure: no database, no model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.errors import InvalidInputError
from graph.memory.claims import check_evidence
from graph.memory.models import ClaimInput
from graph.memory.records import StoredClaim
from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimStatement, LexicalVerifier, Verdict, Verification, statement_of

pytestmark = pytest.mark.unit

VERIFIER = SentenceVerifier()
PAST = datetime(2025, 6, 30, tzinfo=UTC)
LATER = datetime(2027, 1, 4, tzinfo=UTC)


def _verify(
    text: str | list[str],
    predicate: str,
    obj: str,
    *,
    subject: str = "user",
    polarity: str = "positive",
    modality: str = "assertion",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    evidence: str | None = None,
) -> Verification:
    claim = ClaimStatement(subject, predicate, obj, polarity, modality, valid_from, valid_to, evidence)
    return VERIFIER.verify(claim, [text] if isinstance(text, str) else text)


def test_it_names_itself() -> None:
    assert _verify("I work at Acme.", "works_at", "Acme").verifier == "sentence-v1" == VERIFIER.name


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        # The elided "I" of diary speech is the speaker.
        ("First day at Northwind as a senior product designer on the maps team.", "works_at", "Northwind"),
        ("Started at Quillmark on Monday.", "works_at", "Quillmark"),
        ("Got hired by Coldstream Analytics last week!", "works_at", "Coldstream Analytics"),
        ("Obsessed with the new Taylor Swift album.", "likes", "Taylor Swift"),
        ("Tea over coffee, always.", "prefers", "tea"),
        # Employment without the word "work", by lemma and construction.
        ("I'm a nurse at St Mary's.", "works_at", "St Mary's"),
        ("I've been at Acme for three years.", "works_at", "Acme"),
        ("My job at Acme is killing me.", "works_at", "Acme"),
        ("Joined Acme in 2021 and still love it.", "works_at", "Acme Corp"),
        ("Someone called Tom from physio recommended the foam roller.", "knows", "Tom"),
        ("Had lunch with Priya from marketing.", "knows", "Priya"),
        ("Zoe, my sister, is visiting.", "relationship_to", "Zoe"),
        ("Marco is my best friend.", "relationship_to", "Marco"),
        ("Call me Bex.", "identity_is", "Bex"),
        ("Live in Glasgow with two cats.", "profile_fact", "lives in Glasgow"),
        ("I speak fluent Italian.", "has_skill", "Italian"),
        ("Switched to Firefox last month.", "uses", "Firefox"),
        ("Working on the quarterly report all day.", "works_on", "quarterly report"),
        ("Sorry, I meant Friday, not Thursday.", "corrected", "Friday"),
        # Negative-looking idioms that deny nothing.
        ("I have no idea why I love jazz.", "likes", "jazz"),
        ("Not only do I love jazz, I play it.", "likes", "jazz"),
        ("Can't get enough of birdwatching.", "likes", "birdwatching"),
    ],
)
def test_natural_statements_are_entailed(text: str, predicate: str, obj: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is Verdict.ENTAILED, result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "words"),
    [
        ("My sister works at Acme.", "works_at", "Acme", "the sentence is about 'My sister', not the person"),
        ("Dad loves jazz.", "likes", "jazz", "the sentence is about 'Dad'"),
        (
            "Lena's husband Marco fixed the sink.",
            "relationship_to",
            "Marco",
            "the relation is Lena's, not the person's",
        ),
        ("My dog is called Pepper.", "identity_is", "Pepper", "'My dog'"),
        ("Named the new kitten Biscuit.", "identity_is", "Biscuit", "it names 'the new kitten'"),
        ("Bought a vegan cookbook for Jo.", "profile_fact", "vegan", "uses it to describe something"),
    ],
)
def test_someone_elses_sentence_is_not_the_persons(text: str, predicate: str, obj: str, words: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is Verdict.INSUFFICIENT
    assert words in result.reason


def test_a_named_subject_reads_the_other_way() -> None:
    assert _verify(
        "Anna works at Dovetail as an accountant.", "works_at", "Dovetail", subject="Anna"
    ).verdict is (Verdict.ENTAILED)
    result = _verify("I work at Dovetail.", "works_at", "Dovetail", subject="Anna")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "the sentence is about the speaker, not 'Anna'" in result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "negation"),
    [
        ("I don't work there anymore, I left Acme in May.", "works_at", "Acme", "left"),
        ("Never learned to swim.", "has_skill", "swimming", "Never"),
        ("Really not into horror movies.", "likes", "horror movies", "not"),
        ("I hate olives.", "likes", "olives", "hate"),
        ("I can't stand jazz.", "likes", "jazz", "can't"),
        ("Never met Alan, only emailed.", "knows", "Alan", "Never"),
    ],
)
def test_a_denial_contradicts_and_entails_the_negative_claim(
    text: str, predicate: str, obj: str, negation: str
) -> None:
    positive = _verify(text, predicate, obj)
    assert positive.verdict is Verdict.CONTRADICTED, positive.reason
    assert f"'{negation}'" in positive.reason
    assert _verify(text, predicate, obj, polarity="negative").verdict is Verdict.ENTAILED


def test_a_negated_thought_hedges_rather_than_denies() -> None:
    result = _verify("I don't think I like jazz.", "likes", "jazz")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "'don't think' doubts it" in result.reason


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Maybe one day I'll work at Google.", "'Maybe'"),
        ("Thinking about applying to Google.", "'Thinking about'"),
        ("Would love to work at Google one day.", "'Would love'"),
        ("I want to work at Google.", "'want to'"),
    ],
)
def test_a_wish_or_a_plan_is_not_an_assertion(text: str, phrase: str) -> None:
    result = _verify(text, "works_at", "Google")
    assert result.verdict is Verdict.INSUFFICIENT
    assert phrase in result.reason
    assert "not an assertion: send modality plan (or has_goal for a goal), or nothing" in result.reason


@pytest.mark.parametrize(
    "text",
    [
        "Maybe one day I'll learn Spanish.",
        "I want to learn Spanish.",
        "Planning to learn Spanish this summer.",
    ],
)
def test_has_goal_accepts_plans_and_wishes(text: str) -> None:
    result = _verify(text, "has_goal", "learn Spanish", modality="plan")
    assert result.verdict is Verdict.ENTAILED, result.reason


def test_has_goal_is_still_someone_elses_and_still_deniable() -> None:
    assert _verify("My daughter wants to learn violin.", "has_goal", "learn violin").verdict is (
        Verdict.INSUFFICIENT
    )
    assert _verify("I don't want to move abroad.", "has_goal", "move abroad").verdict is Verdict.CONTRADICTED


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("Should I learn Spanish?", "has_goal", "learn Spanish"),
        ("Do you like sushi?", "likes", "sushi"),
        ("Is Tern Labs hiring?", "works_at", "Tern Labs"),
    ],
)
def test_a_question_states_nothing(text: str, predicate: str, obj: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is Verdict.INSUFFICIENT
    assert "a question states nothing" in result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "reporter"),
    [
        ("My boss says I'm great at Excel.", "has_skill", "Excel", "My boss says"),
        ("Sam reckons I'd like climbing.", "likes", "climbing", "Sam reckons"),
        ("Mum keeps saying I should get a dog.", "has_goal", "get a dog", "Mum keeps saying"),
    ],
)
def test_hearsay_is_someone_elses_word(text: str, predicate: str, obj: str, reporter: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is Verdict.INSUFFICIENT
    assert f"'{reporter}' reports someone else's words" in result.reason


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('Sam texted: "I love jazz!"', "Sam texted"),
        ('"I love jazz," Sam said.', "Sam said"),
    ],
)
def test_the_i_in_someone_elses_quote_is_them(text: str, quoted: str) -> None:
    result = _verify(text, "likes", "jazz")
    assert result.verdict is Verdict.INSUFFICIENT
    assert f"'{quoted}' reports someone else's words" in result.reason
    assert _verify(text.replace("Sam", "I"), "likes", "jazz").verdict is Verdict.ENTAILED


def test_hearsay_the_speaker_agrees_with_is_theirs() -> None:
    text = "My wife says I'm obsessed with crosswords, and honestly she's right."
    assert _verify(text, "likes", "crosswords").verdict is Verdict.ENTAILED


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("I love jazz. Just kidding.", "likes", "jazz"),
        ("I work at Acme, or I did until last week.", "works_at", "Acme"),
        ("I love hiking — well, I did before my knee went.", "likes", "hiking"),
        ("Train over plane for Porto — scratch that, the train takes two days.", "prefers", "the train"),
        ("Met Jo at the gym — no wait, that was her sister.", "knows", "Jo"),
    ],
)
def test_a_later_clause_takes_it_back(text: str, predicate: str, obj: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is not Verdict.ENTAILED
    assert "takes it back" in result.reason or "until" in result.reason


def test_a_contrast_is_no_take_back() -> None:
    assert _verify("it's Jo, not Joanna", "identity_is", "Jo").verdict is Verdict.ENTAILED
    assert _verify("I can swim, just not very fast.", "has_skill", "swimming").verdict is Verdict.ENTAILED


def test_what_held_only_in_the_past_needs_valid_to() -> None:
    ended = _verify("I used to play the piano.", "has_skill", "piano")
    assert ended.verdict is Verdict.CONTRADICTED
    assert "'used to' says it no longer holds" in ended.reason
    past = _verify("I worked at Orbis Labs for five years.", "works_at", "Orbis Labs")
    assert past.verdict is Verdict.INSUFFICIENT
    assert "send valid_to with the day it ended" in past.reason
    for text in ("I used to work at Orbis Labs.", "I worked at Orbis Labs until June."):
        assert _verify(text, "works_at", "Orbis Labs", valid_to=PAST).verdict is Verdict.ENTAILED


def test_what_has_not_started_needs_valid_from() -> None:
    text = "Joining Brightline next month!"
    result = _verify(text, "works_at", "Brightline")
    assert result.verdict is Verdict.INSUFFICIENT
    assert "'next month' says it has not started: send valid_from" in result.reason
    assert _verify(text, "works_at", "Brightline", valid_from=LATER).verdict is Verdict.ENTAILED


def test_perfect_tenses_and_events_hold_now() -> None:
    assert _verify("I've worked at Acme since 2019.", "works_at", "Acme").verdict is Verdict.ENTAILED
    assert _verify("I was born on 14 March 1990.", "born_on", "1990-03-14").verdict is Verdict.ENTAILED


@pytest.mark.parametrize(
    "text",
    [
        "I was born on 14 March 1990.",
        "Born 14/03/1990.",
        "My birthday is the 14th of March, 1990.",
        "b. March 14 1990",
    ],
)
def test_dates_are_found_however_they_are_written(text: str) -> None:
    assert _verify(text, "born_on", "1990-03-14").verdict is Verdict.ENTAILED


def test_a_date_said_of_someone_else_or_of_another_event_is_not_theirs() -> None:
    assert _verify("My son was born on 3 Feb 2015.", "born_on", "2015-02-03").verdict is Verdict.INSUFFICIENT
    assert _verify(
        "Grandma moved house on 9 April 2020.", "died_on", "2020-04-09", subject="Grandma"
    ).verdict is (Verdict.INSUFFICIENT)
    assert _verify("Lost Nana on 27 June 2022.", "died_on", "2022-06-27", subject="Nana").verdict is (
        Verdict.ENTAILED
    )


def test_an_evidence_span_picks_the_sentence_to_read() -> None:
    text = "My sister joined Acme in May. I've worked at Acme since 2019."
    assert _verify(text, "works_at", "Acme", evidence="My sister joined Acme").verdict is Verdict.INSUFFICIENT
    assert _verify(text, "works_at", "Acme", evidence="I've worked at Acme since 2019").verdict is (
        Verdict.ENTAILED
    )


def test_a_fragment_without_the_span_is_read_whole() -> None:
    fragments = ["Sunday lunch was lovely.", "I work at Acme."]
    assert _verify(fragments, "works_at", "Acme", evidence="Sunday lunch").verdict is Verdict.ENTAILED


def test_any_contradicting_fragment_wins() -> None:
    result = _verify(["I work at Acme.", "I don't work at Acme."], "works_at", "Acme")
    assert result.verdict is Verdict.CONTRADICTED
    assert result.reason.startswith("fragments disagree")


def test_a_missing_object_says_what_to_send() -> None:
    result = _verify("I work at Acme.", "works_at", "Globex")
    assert result.verdict is Verdict.INSUFFICIENT
    assert (
        "object 'Globex' not found in fragment 1 (missing: globex): send the object in the person's own words"
        in (result.reason)
    )


def test_a_bare_mention_asks_for_the_words_that_say_it() -> None:
    result = _verify("Walked past the Lumen Studio building on the way home.", "works_at", "Lumen Studio")
    assert result.verdict is Verdict.INSUFFICIENT
    assert (
        "but no word saying works_at" in result.reason
        and "send as evidence the words that say it" in result.reason
    )


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("My sister works at Acme.", "works_at", "Acme"),
        ("Maybe one day I'll work at Google.", "works_at", "Google"),
        ("I don't think I like jazz.", "likes", "jazz"),
    ],
)
def test_it_refuses_what_lexical_v1_entailed(text: str, predicate: str, obj: str) -> None:
    claim = ClaimStatement("user", predicate, obj)
    assert LexicalVerifier().verify(claim, [text]).verdict is Verdict.ENTAILED
    assert VERIFIER.verify(claim, [text]).verdict is not Verdict.ENTAILED


def test_any_text_gives_a_verdict() -> None:
    for text in ["", "   ", "?!", "公园里跑步", "a" * 8000, "I I I I", "'''\"\"\"", "\u200b\u202e"]:
        assert isinstance(_verify(text, "likes", "jazz").verdict, Verdict)


def _claim(evidence: str) -> ClaimInput:
    return ClaimInput(
        subject="user",
        predicate="works_at",
        object="Acme",
        extract_conf=0.9,
        resolution_conf=0.9,
        evidence=evidence,
    )


def test_evidence_must_be_words_of_the_content() -> None:
    check_evidence(_claim("i WORK at   Acme"), "Honestly, I work at Acme.")
    check_evidence(_claim("I\u2019m at Acme"), "I'm at Acme now.")
    with pytest.raises(
        InvalidInputError, match=r"evidence 'I love Acme' is not in content\. Copy the exact words"
    ):
        check_evidence(_claim("I love Acme"), "Honestly, I work at Acme.")


def test_a_claim_stored_before_spans_and_validity_were_read_still_parses() -> None:
    node = {
        "id": "c1",
        "subject": "user",
        "predicate": "works_at",
        "object": "Acme",
        "text": "user works at Acme",
        "claim_key": "k",
        "slot": "s",
        "polarity": "positive",
        "modality": "assertion",
        "extract_conf": 0.9,
        "resolution_conf": 0.9,
        "status": "candidate",
    }
    old = StoredClaim.from_row({"claim": node})
    assert (old.evidence, old.valid_from, old.valid_to) == (None, None, None)
    new = StoredClaim.from_row({"claim": node | {"evidence": "I work at Acme", "valid_to": PAST}})
    assert statement_of(new) == ClaimStatement(
        "user", "works_at", "Acme", "positive", "assertion", None, PAST, "I work at Acme"
    )


# --- round two (issue 50): rules that hold beyond the tuning sentences ----------------------


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "evidence"),
    [
        (
            "Day 3 at Halvorsen Freight. Still learning the rota.",
            "works_at",
            "Halvorsen Freight",
            "Day 3 at Halvorsen Freight",
        ),
        (
            "Another evening lost to Stardew Valley, zero regrets.",
            "likes",
            "Stardew Valley",
            "lost to Stardew Valley",
        ),
        ("Popped round to Gareth's for a cuppa.", "knows", "Gareth", "Popped round to Gareth's"),
    ],
)
def test_a_span_holding_the_object_stands_for_a_missing_predicate_word(
    text: str, predicate: str, obj: str, evidence: str
) -> None:
    assert _verify(text, predicate, obj).verdict is Verdict.INSUFFICIENT
    result = _verify(text, predicate, obj, evidence=evidence)
    assert result.verdict is Verdict.ENTAILED, result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "evidence"),
    [
        # Everything but the predicate word is still read in the span's context.
        (
            "My flatmate just got a job at Fernhill Bakery.",
            "works_at",
            "Fernhill Bakery",
            "a job at Fernhill Bakery",
        ),
        ("Bought Dad a Kindle for his birthday.", "uses", "Kindle", "a Kindle"),
        ("The barista keeps writing Jenna on my cup.", "identity_is", "Jenna", "writing Jenna on my cup"),
        (
            "Finished the kitchen renovation in May.",
            "works_on",
            "kitchen renovation",
            "the kitchen renovation",
        ),
        ("Ditched Spotify for Apple Music.", "uses", "Spotify", "Ditched Spotify"),
        ("morning workouts over evening ones, always", "prefers", "evening ones", "evening ones"),
        ("Hopeless at maths, always have been.", "has_skill", "maths", "Hopeless at maths"),
        # A correction is said only by a word of one.
        ("The dentist is on Thursday.", "corrected", "dentist is on Thursday", "The dentist is on Thursday"),
    ],
)
def test_a_span_does_not_vouch_for_what_the_sentence_denies(
    text: str, predicate: str, obj: str, evidence: str
) -> None:
    result = _verify(text, predicate, obj, evidence=evidence)
    assert result.verdict is not Verdict.ENTAILED, result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("Left Corvid Labs to join Brightline in May.", "works_at", "Brightline"),
        ("Ditched Spotify for Apple Music last month.", "uses", "Apple Music"),
        ("Ran into Declan at the shops.", "knows", "Declan"),
        ("Can't say no to a good ramen.", "likes", "ramen"),
        ("I hate how much I love reality TV.", "likes", "reality TV"),
        ("I'm a sucker for true crime podcasts.", "likes", "true crime podcasts"),
        ("My partner prefers the mountains; I'm a beach person.", "prefers", "beach"),
        ("I'll take a diner breakfast over brunch any day.", "prefers", "diner breakfast"),
        ("Preferences:\n- dark chocolate > milk\n- early nights", "prefers", "dark chocolate"),
        ("The whole team swears by Linear but I'm still on Jira.", "uses", "Jira"),
        ("ynab for budgeting, nothing else works for me", "uses", "YNAB"),
        ("Still plugging away at the family history book.", "works_on", "family history book"),
        ("hubby (Rafe) cooked tonight", "relationship_to", "Rafe"),
        ("My friends reckon I'm addicted to Wordle. They're not wrong.", "likes", "Wordle"),
        (
            "The form wanted my full legal name, which is Margaret Anne Holloway.",
            "identity_is",
            "Margaret Anne Holloway",
        ),
    ],
)
def test_general_phenomena_are_read(text: str, predicate: str, obj: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is Verdict.ENTAILED, result.reason


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("My daughter's called Isolde, she's six.", "identity_is", "Isolde"),
        ("Wanted to be a vet when I was little.", "has_goal", "be a vet"),
        ("finally signed the contract w/ Oakridge Council, start monday", "works_at", "Oakridge Council"),
        ("Lots of left-handed people in my family, Mum and both brothers.", "profile_fact", "left-handed"),
        ("I'd much rather take the train than the coach.", "prefers", "coach"),
        ("I prefer tea to coffee.", "prefers", "coffee"),
    ],
)
def test_general_traps_are_refused(text: str, predicate: str, obj: str) -> None:
    result = _verify(text, predicate, obj)
    assert result.verdict is not Verdict.ENTAILED, result.reason
