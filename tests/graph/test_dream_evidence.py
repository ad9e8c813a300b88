"""The dream phase's evidence, selection and wording, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.dreams.evidence import (
    MIN_LINK_SCORE,
    CandidatePair,
    Meaning,
    Memory,
    SharedTerm,
    english_rarity,
    is_restatement,
    link_score,
    rare_shared,
    shared_terms,
    term_weight,
    written_as_names,
)
from graph.dreams.generator import LinkGenerator, connections
from graph.dreams.writer import DreamTexts, write

pytestmark = pytest.mark.unit

DAY = datetime(2024, 3, 1, tzinfo=UTC)


def memory(memory_id: str, text: str, days: int = 0) -> Memory:
    when = DAY + timedelta(days=days)
    return Memory("fragment", memory_id, text, 0.7, when, when)


def pair(
    first: Memory, second: Memory, cosine: float | None, neighbourhood: float = 0.80, size: int = 400
) -> CandidatePair:
    terms = shared_terms(first.text, second.text)
    frequency = dict.fromkeys(terms, 2)
    meaning = Meaning(cosine, neighbourhood, neighbourhood) if cosine is not None else None
    shared = rare_shared((first.text, second.text), terms, frequency, size)
    return CandidatePair(first, second, meaning, shared, size)


def test_greetings_and_fillers_are_no_shared_evidence() -> None:
    first = "Caroline: Hey Mel, what's up? Been a busy week since we talked."
    second = "Caroline: Hey Mel! Long time no talk, so good to hear from you since then."
    shared = shared_terms(first, second)
    assert not {"hey", "since", "talked", "talk", "good", "week"} & set(shared)
    # What is left is the two speakers' names, which every memory of the profile carries.
    assert rare_shared((first, second), shared, dict.fromkeys(shared, 300), 400) == ()


def test_a_pair_that_shares_only_small_talk_is_not_a_connection() -> None:
    greeting = pair(
        memory("a", "Hey! Thanks so much, talk soon."), memory("b", "Hey, thanks! Talk soon.", 30), 0.84
    )
    assert greeting.shared == ()
    assert link_score(greeting) is None


def test_restatements_are_not_connections() -> None:
    same_words = pair(
        memory("a", "I adopted a grey cat named Miso."), memory("b", "I adopted a grey cat, Miso.", 9), 0.9
    )
    assert is_restatement(same_words) and link_score(same_words) is None
    near_copy = pair(
        memory("a", "The pottery class starts in May."), memory("b", "Clay workshop begins soon.", 9), 0.97
    )
    assert is_restatement(near_copy)


def test_a_rare_name_counts_far_more_than_an_everyday_word() -> None:
    name = SharedTerm("thaddeus", 2, english_rarity("thaddeus"), entity=True)
    everyday = SharedTerm("door", 2, english_rarity("door"), entity=False)
    assert term_weight(name, 200) > 5 * term_weight(everyday, 200)
    assert english_rarity("down") == 0.0 and english_rarity("marshmallows") > 0.9


def test_names_are_capitalised_inside_sentences_or_followed_by_another_name() -> None:
    assert "sweden" in written_as_names("Caroline: I moved from Sweden at four.")
    assert "thaddeu" in written_as_names("Thaddeus Ruark is organising the street party.")
    assert not written_as_names("Setbacks are just opportunities. The party was great.")


def test_a_shared_rare_name_links_memories_whose_meanings_are_not_far_apart() -> None:
    first = memory("a", "I owe Thaddeus forty euros for the concert tickets.")
    second = memory("b", "Thaddeus Ruark is organising the street party and asked me to bring lanterns.", 40)
    score = link_score(pair(first, second, 0.80, neighbourhood=0.79, size=200))
    assert score is not None and score >= MIN_LINK_SCORE
    unnamed = memory("c", "My cousin is organising the street party and asked me to bring lanterns.", 40)
    assert link_score(pair(first, unnamed, 0.80, neighbourhood=0.79, size=200)) is None


def test_meaning_alone_must_stand_well_above_both_neighbourhoods() -> None:
    first, second = (
        memory("a", "My knee hurts after running."),
        memory("b", "The physio gave me exercises.", 20),
    )
    assert link_score(pair(first, second, 0.82, neighbourhood=0.80)) is None
    assert link_score(pair(first, second, 0.95, neighbourhood=0.78)) is not None


def test_one_dream_per_memory_and_links_across_time_first() -> None:
    hub = memory("hub", "We adopted a rescue greyhound called Pixel.")
    same_day = memory("x", "Pixel sleeps on the sofa all afternoon.", 0)
    months_later = memory("y", "Pixel won second prize at the greyhound show.", 90)
    other = memory("z", "Pixel needs a new collar before the show.", 91)
    pairs = [pair(hub, same_day, 0.92), pair(hub, months_later, 0.92), pair(months_later, other, 0.92)]
    chosen = connections(pairs, max_outputs=5)
    assert [(p.first.id, p.second.id) for p, _ in chosen] == [("hub", "y")]


@pytest.mark.anyio
async def test_the_writer_states_the_link_in_words_a_person_can_answer() -> None:
    first = memory("a", "Melanie: We roasted marshmallows around the campfire on our camping trip.")
    second = memory("b", "Melanie: The kids still talk about the marshmallows from last summer!", 54)
    candidate = pair(first, second, 0.90)
    texts = write(candidate, link_score(candidate) or 0.0)
    assert "marshmallows" in texts.hypothesis and "1 March 2024" in texts.hypothesis
    assert "both involve" not in texts.hypothesis
    assert "\n" not in texts.why and "54 days apart" in texts.why
    assert "marshmallows" in texts.what_if
    assert "idf" in texts.rationale and "cosine" in texts.rationale
    drafts = (await LinkGenerator().propose([candidate], 3)).drafts
    assert drafts[0].generator == LinkGenerator.name and drafts[0].why == texts.why


def written(earlier: str, later: str, days: int) -> DreamTexts:
    """What the writer says of two memories `days` apart that are close in meaning."""
    return write(pair(memory("a", earlier), memory("b", later, days), 0.80), 4.0)


def test_the_topic_quotes_shared_words_as_the_person_wrote_them() -> None:
    job = written(
        "Jon: I also lost my job at Door Dash this month.",
        "Jon: Since I lost my job at Door Dash, things have been tough.",
        54,
    )
    assert "show Door Dash coming back, 54 days apart" in job.hypothesis
    books = written(
        "Tim: I reread Lord of the Rings on the train.",
        "Tim: A poster of Lord of the Rings hangs in my room.",
        7,
    )
    assert "Lord of the Rings" in books.why
    apart = written(
        "Gina: Marley flooring arrived, the studio opens in April with Lupita teaching.",
        "Gina: Lupita loves the Marley floor we laid.",
        3,
    )
    # Far apart in the sentence: both words, in the order the earlier memory says them.
    assert "Both mention Marley and Lupita" in apart.why


def test_the_hypothesis_claims_only_what_the_timing_supports() -> None:
    earlier = "We built a treehouse for the kids in the old oak."
    later = "The treehouse in the oak needs a new rope ladder."
    sitting = written(earlier, later, 0)
    days = written(earlier, later, 9)
    months = written(earlier, later, 120)
    assert "are one conversation about treehouse" in sitting.hypothesis
    assert "told 9 days apart: the later continues the earlier" in days.hypothesis
    assert "coming back, 4 months apart: a theme that stays" in months.hypothesis
    for texts in (sitting, days, months):
        # A link is not a cause: no text says the earlier memory led to the later one.
        assert not any(claim in texts.hypothesis + texts.what_if for claim in ("follows from", "led to"))


def test_a_name_used_only_to_address_someone_is_no_shared_topic() -> None:
    praise = "Melanie: That's awesome, Caro! You found the courage to be yourself."
    painting = "Melanie: Your painting of the lake made me cry, Caro!"
    shared = shared_terms(praise, painting)
    assert "caro" in shared
    assert "caro" not in {term.term for term in rare_shared((praise, painting), shared, {}, 400)}
    # Spoken about, not to, the same name is evidence again; lists with commas are not address.
    about = "Melanie: Caro and I went to Paris, Lyon, and Nice for the painting fair!"
    also = "Caro sold her first painting at the Lyon fair."
    kept = {term.term for term in rare_shared((about, also), shared_terms(about, also), {}, 400)}
    assert {"caro", "lyon"} <= kept


def test_a_quoted_phrase_keeps_its_commas_and_stays_in_one_sentence() -> None:
    mixed = written(
        "Finishing the screenplay was relief, excitement and some anxiety.",
        "Still bouncing between relief, excitement and worry!",
        14,
    )
    assert "relief, excitement" in mixed.why
    apart = written(
        "Ann: We adopted Biscuit. Fluffy ears, the vet said.",
        "Ann: Biscuit has fluffy ears like his mother.",
        9,
    )
    assert "Both mention Biscuit and Fluffy," in apart.why
