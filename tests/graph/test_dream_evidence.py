"""The dream phase's evidence, selection and wording, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.dreams.evidence import (
    MIN_LEXICAL_SCORE,
    MIN_LINK_SCORE,
    MUTUAL_NEAREST,
    REFERENCE_SIZE,
    CandidatePair,
    Meaning,
    Memory,
    SharedTerm,
    english_rarity,
    is_restatement,
    link_floor,
    link_score,
    mutual_bonus,
    names_one_thing,
    shared_terms,
    shared_words,
    term_weight,
    written_as_names,
)
from graph.dreams.generator import LinkGenerator, connections
from graph.dreams.night import Findings, propose_night
from graph.dreams.writer import DreamTexts, excerpt, write

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
    shared, framed = shared_words((first.text, second.text), terms, frequency, size)
    return CandidatePair(first, second, meaning, shared, size, framed)


def test_greetings_and_fillers_are_no_shared_evidence() -> None:
    first = "Caroline: Hey Mel, what's up? Been a busy week since we talked."
    second = "Caroline: Hey Mel! Long time no talk, so good to hear from you since then."
    shared = shared_terms(first, second)
    assert not {"hey", "since", "talked", "talk", "good", "week"} & set(shared)
    # What is left is the two speakers' names, which every memory of the profile carries.
    assert shared_words((first, second), shared, dict.fromkeys(shared, 300), 400)[0] == ()


def test_a_pair_that_shares_only_small_talk_is_not_a_connection() -> None:
    greeting = pair(
        memory("a", "Hey! Thanks so much, talk soon."), memory("b", "Hey, thanks! Talk soon.", 30), 0.84
    )
    assert greeting.shared == ()
    assert link_score(greeting) is None
    # Saying what one likes best is tone too: the trilogy and the desserts share no topic by it.
    faves = pair(
        memory("a", "This fantasy trilogy is one of my faves, the battles blow me away."),
        memory("b", "Dairy-free desserts are my faves, coconut ones above all.", 150),
        0.80,
    )
    assert "faves" not in {term.term for term in faves.shared} and link_score(faves) is None


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
    # A verb opening a sentence before a name is no first name.
    assert written_as_names("Brushed Vobounais after the muddy run.") == {"vobounai"}


def test_a_shared_rare_name_links_memories_whose_meanings_are_not_far_apart() -> None:
    first = memory("a", "I owe Thaddeus forty euros for the concert tickets.")
    second = memory("b", "Thaddeus Ruark is organising the street party and asked me to bring lanterns.", 40)
    score = link_score(pair(first, second, 0.80, neighbourhood=0.79, size=200))
    assert score is not None and score >= MIN_LINK_SCORE
    unnamed = memory("c", "My cousin is organising the street party and asked me to bring lanterns.", 40)
    assert link_score(pair(first, unnamed, 0.80, neighbourhood=0.79, size=200)) is None


def test_a_name_only_two_memories_say_links_them_however_far_apart_the_rest_of_them_is() -> None:
    """A name said in passing beside other news: the vectors read the news, the name ties them."""
    first = memory("a", "Night shift on the stroke unit, calm. Lent Treladou my umbrella.")
    second = memory("b", "Paid the gas bill, late. Treladou rang in the evening.", 30)
    far = pair(first, second, 0.70, neighbourhood=0.80, size=40)
    assert far.meaning is not None and far.meaning.distinctiveness < 0
    assert link_score(far) is not None
    # Without a name of its own, the same distance keeps two memories apart.
    common = memory("c", "Paid the gas bill, late. My sister rang in the evening.", 30)
    assert link_score(pair(first, common, 0.70, neighbourhood=0.80, size=40)) is None


def test_a_word_both_say_in_one_routine_frame_is_no_evidence_unless_it_names_one_thing() -> None:
    first = memory("a", "Paid the car insurance, split with my flatmate.")
    second = memory("b", "Paid the phone bill, split with my flatmate.", 20)
    shared = shared_terms(first.text, second.text)
    frequency = dict.fromkeys(shared, 4)
    evidence, framed = shared_words((first.text, second.text), shared, frequency, 40)
    assert {"split", "flatmate"} <= set(shared) and not {term.term for term in evidence} & {
        "split",
        "flatmate",
    }
    # Not evidence, yet kept apart: said again in the same frame, they make a restatement specific.
    assert {"split", "flatmate"} <= {term.term for term in framed}
    # The same word in sentences of their own is evidence.
    other = memory("c", "My flatmate is moving to Leeds in spring.", 20)
    terms = shared_terms(first.text, other.text)
    assert [
        t.term for t in shared_words((first.text, other.text), terms, dict.fromkeys(terms, 4), 40)[0]
    ] == ["flatmate"]
    # A frame with a word that is not everyday English is the subject's own phrase.
    trivia = (
        memory("f", "We won the Harry Potter trivia night!"),
        memory("g", "Harry Potter trivia again on Friday.", 9),
    )
    terms = shared_terms(trivia[0].text, trivia[1].text)
    kept = {
        t.term for t in shared_words((trivia[0].text, trivia[1].text), terms, dict.fromkeys(terms, 3), 40)[0]
    }
    assert "trivia" in kept
    # A name only the two say ties them in any frame.
    named = (
        memory("d", "Paid the rent, then coffee with Ysolde."),
        memory("e", "Lunch with Ysolde at noon.", 9),
    )
    terms = shared_terms(named[0].text, named[1].text)
    assert [
        t.term for t in shared_words((named[0].text, named[1].text), terms, dict.fromkeys(terms, 2), 40)[0]
    ] == ["ysolde"]


def test_meaning_alone_must_stand_well_above_both_neighbourhoods() -> None:
    first, second = (
        memory("a", "My knee hurts after running."),
        memory("b", "The physio gave me exercises.", 20),
    )
    assert link_score(pair(first, second, 0.82, neighbourhood=0.80)) is None
    assert link_score(pair(first, second, 0.95, neighbourhood=0.78)) is not None


def test_the_ing_tail_of_a_hyphenated_word_names_no_pastime() -> None:
    screen = memory("a", "Saw my script on the big screen, nerve-wracking but inspiring.")
    show = memory("b", "Cooked on a TV show, a bit nerve-wracking to put myself out there.", 90)
    [wracking] = [term for term in pair(screen, show, 0.8).shared if term.term == "wracking"]
    assert wracking.compound and not names_one_thing(wracking)
    assert link_score(pair(screen, show, 0.70, neighbourhood=0.80, size=740)) is None
    # Written as a word of its own, the same -ing form names an activity.
    fabric = memory("c", "Bought quilting fabric at the fair.")
    lesson = memory("d", "Quilting class on Sunday.", 9)
    [term] = [term for term in pair(fabric, lesson, 0.8).shared if term.term == "quilting"]
    assert not term.compound and names_one_thing(term)


def test_two_memories_that_each_name_their_own_thing_are_alike_not_one_thing() -> None:
    cabin = memory("a", "A cousin offered us her fishing cabin on Lofoten for a week in March.")
    ferry = memory("b", "Booked a ferry to Hvar for the second week of July.", 10)
    assert link_score(pair(cabin, ferry, 0.95, neighbourhood=0.78)) is None
    # The same closeness links them when neither names a place of its own, or one only does.
    unnamed = memory("c", "Booked a ferry to the island for the second week of July.", 10)
    assert link_score(pair(cabin, unnamed, 0.95, neighbourhood=0.78)) is not None
    # A month's or a relative's name is everyday English, not a thing of its own.
    mum = memory("d", "Mum booked a ferry for the second week of July.", 10)
    cabin_for_mum = memory("e", "My Mum wants a cabin for a week in March.")
    assert link_score(pair(cabin_for_mum, mum, 0.95, neighbourhood=0.78)) is not None


def test_one_dream_per_memory_and_links_across_time_first() -> None:
    hub = memory("hub", "We adopted a rescue greyhound called Pixel.")
    same_day = memory("x", "Pixel sleeps on the sofa all afternoon.", 0)
    months_later = memory("y", "Pixel won second prize at the greyhound show.", 90)
    other = memory("z", "Pixel needs a new collar before the show.", 91)
    pairs = [pair(hub, same_day, 0.92), pair(hub, months_later, 0.92), pair(months_later, other, 0.92)]
    chosen = connections(pairs, max_outputs=5)
    assert [(p.first.id, p.second.id) for p, _ in chosen] == [("hub", "y")]


def test_two_pairs_about_one_topic_are_one_question_a_night() -> None:
    game = [
        pair(
            memory("a", "Started The Witcher 3 on the new console."),
            memory("b", "Finished The Witcher 3 main story at last.", 200),
            0.90,
        ),
        pair(
            memory("c", "Bought The Witcher 3 soundtrack on vinyl.", 30),
            memory("d", "Watched a Witcher 3 speedrun with Sam.", 90),
            0.90,
        ),
    ]
    pottery = pair(
        memory("e", "Signed up for a pottery class on Thursdays.", 10),
        memory("f", "The pottery wheel finally arrived.", 100),
        0.90,
    )
    assert {candidate.topic for candidate in game} == {"witcher"} and pottery.topic == "pottery"
    chosen = [{p.first.id, p.second.id} for p, _ in connections([*game, pottery], max_outputs=5)]
    assert len(chosen) == 2 and {"e", "f"} in chosen, "one of the game's pairs, and pottery"
    # A host's model is shown both, to ask about the one it finds best.
    assert len(connections([*game, pottery], max_outputs=5, per_topic=False)) == 3


@pytest.mark.anyio
async def test_a_pair_about_a_topic_still_open_waits_for_the_answer() -> None:
    game = pair(
        memory("c", "Bought The Witcher 3 soundtrack on vinyl.", 30),
        memory("d", "Watched a Witcher 3 speedrun with Sam.", 90),
        0.90,
    )
    answered = Findings([game], [], [], open_topics=frozenset())
    [link] = (await propose_night(answered, LinkGenerator(), 5)).drafts
    assert link.topic == "witcher"
    still_open = Findings([game], [], [], open_topics=frozenset({"witcher"}))
    assert (await propose_night(still_open, LinkGenerator(), 5)).drafts == []


def test_links_within_one_sitting_only_for_a_profile_told_at_once() -> None:
    told_at_once = [
        pair(
            memory("a", "Pixel the greyhound sleeps all day."),
            memory("b", "Pixel won a greyhound prize."),
            0.92,
        )
    ]
    assert [(p.first.id, p.second.id) for p, _ in connections(told_at_once, max_outputs=5)] == [("a", "b")]
    with_history = [
        *told_at_once,
        pair(memory("c", "Bought a tent for the trip."), memory("d", "The trip is in May.", 60), 0.5),
    ]
    assert connections(with_history, max_outputs=5) == [], "the person linked those while talking"


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


def test_the_topic_is_a_name_as_the_person_wrote_it_never_two_keywords() -> None:
    job = written(
        "Jon: I also lost my job at Door Dash this month.",
        "Jon: Since I lost my job at Door Dash, things have been tough.",
        54,
    )
    assert job.hypothesis.startswith("You mentioned Door Dash again 54 days later")
    books = written(
        "Tim: I reread Lord of the Rings on the train.",
        "Tim: A poster of Lord of the Rings hangs in my room.",
        7,
    )
    assert "Both mention Lord of the Rings," in books.why
    game = written(
        "I played The Witcher 3 all weekend, the impact of choices is huge.",
        "Back to The Witcher 3 again, that impact is huge.",
        61,
    )
    assert game.hypothesis.startswith("You mentioned The Witcher 3 again two months later")
    brands = written("Brands like Nike and Under Armour, maybe.", "I've always liked Under Armour.", 30)
    assert "Both mention Under Armour," in brands.why
    apart = written(
        "Gina: Marley flooring arrived, the studio opens in April with Lupita teaching.",
        "Gina: Lupita loves the Marley floor we laid.",
        3,
    )
    # Two names from different places in the sentence are not one topic: the strongest alone.
    assert " and " not in apart.why.split(",")[0] and ("Marley" in apart.why or "Lupita" in apart.why)


def test_the_hypothesis_claims_only_what_the_timing_supports() -> None:
    earlier = "We built a treehouse for the kids in the old oak."
    later = "The treehouse in the oak needs a new rope ladder."
    sitting = written(earlier, later, 0)
    days = written(earlier, later, 9)
    months = written(earlier, later, 120)
    assert sitting.hypothesis.startswith("You talked about treehouse more than once in one conversation")
    assert days.hypothesis.startswith("You mentioned treehouse again 9 days later, perhaps as one thing")
    assert months.hypothesis.startswith(
        "You mentioned treehouse again four months later, so treehouse may be"
    )
    for texts in (sitting, days, months):
        # A link is not a cause: no text says the earlier memory led to the later one.
        assert not any(claim in texts.hypothesis + texts.what_if for claim in ("follows from", "led to"))


def test_a_plan_named_again_is_told_as_mentioned_never_as_done() -> None:
    plan = written(
        "Thinking of flying to Lisbon in May with Inês, looking at flats near Alfama.",
        "Still planning the Lisbon trip, Inês wants to see the tiles museum.",
        18,
    )
    # Two messages planning a trip: she has not been, so nothing says she went or came back.
    assert plan.hypothesis.startswith(
        ("You mentioned Lisbon again 18 days", "You mentioned Inês again 18 days")
    )
    assert not any(claim in plan.hypothesis + plan.what_if for claim in ("came back", "happened", "went"))


def test_a_name_keeps_the_case_the_memories_write_it_in() -> None:
    cello = written(
        "Bach's cello suites are what I practise every evening now.",
        "Tried the prelude from the suites by Bach's son today, much harder.",
        40,
    )
    assert "Bach" in cello.hypothesis + cello.why and "bach" not in cello.hypothesis + cello.why


def test_a_name_used_only_to_address_someone_is_no_shared_topic() -> None:
    praise = "Melanie: That's awesome, Caro! You found the courage to be yourself."
    painting = "Melanie: Your painting of the lake made me cry, Caro!"
    shared = shared_terms(praise, painting)
    assert "caro" in shared
    assert "caro" not in {term.term for term in shared_words((praise, painting), shared, {}, 400)[0]}
    # Spoken about, not to, the same name is evidence again; lists with commas are not address.
    about = "Melanie: Caro and I went to Paris, Lyon, and Nice for the painting fair!"
    also = "Caro sold her first painting at the Lyon fair."
    kept = {term.term for term in shared_words((about, also), shared_terms(about, also), {}, 400)[0]}
    assert {"caro", "lyon"} <= kept


def test_a_phrase_is_words_side_by_side_in_one_clause() -> None:
    campfire = written(
        "Melanie: We roasted marshmallows around the campfire.",
        "Melanie: We roast marshmallows and tell stories.",
        80,
    )
    assert "Both mention roasted marshmallows," in campfire.why
    mixed = written(
        "Finishing the screenplay was relief, excitement and some anxiety.",
        "Still bouncing between relief, excitement and worry!",
        14,
    )
    assert "relief, excitement" not in mixed.why
    apart = written(
        "Ann: We adopted Biscuit. Fluffy ears, the vet said.",
        "Ann: Biscuit has fluffy ears like his mother.",
        9,
    )
    assert "Biscuit and Fluffy" not in apart.why and "Biscuit" in apart.why
    shelves = written(
        "[shared a photo: a bookcase filled with books and a toy car]",
        "[shared a photo: a bookcase filled with dvds and movies]",
        48,
    )
    assert shelves.hypothesis.startswith("You mentioned bookcase again 48 days later"), (
        "not 'bookcase filled'"
    )


def test_a_word_only_the_pair_uses_and_english_rarely_does_weighs_as_a_name() -> None:
    axolotl = SharedTerm("axolotl", 2, english_rarity("axolotl"), entity=False)
    name = SharedTerm("ludmila", 2, english_rarity("ludmila"), entity=True)
    assert names_one_thing(axolotl) and term_weight(axolotl, 200) == pytest.approx(term_weight(name, 200))
    # Used by a third memory, or a word English uses often: no longer one thing.
    assert not names_one_thing(SharedTerm("axolotl", 3, 1.0, entity=False))
    assert not names_one_thing(SharedTerm("hectic", 2, english_rarity("hectic"), entity=False))
    # A pastime named by a verb's -ing form is one thing; how a day went is not.
    assert names_one_thing(SharedTerm("quilting", 2, english_rarity("quilting"), entity=False))
    assert not names_one_thing(SharedTerm("swamped", 2, english_rarity("swamped"), entity=False))
    planted = pair(
        memory("a", "My nephew wants an axolotl for his birthday."),
        memory("b", "At the pet shop an axolotl stared at me through the glass.", 30),
        0.80,
        neighbourhood=0.80,
        size=200,
    )
    assert link_score(planted) is not None


def test_the_floor_is_lower_where_fewer_pairs_are_compared_and_never_higher() -> None:
    assert link_floor(REFERENCE_SIZE) == pytest.approx(MIN_LINK_SCORE)
    assert link_floor(100_000) == pytest.approx(MIN_LINK_SCORE)
    assert link_floor(12) < link_floor(200) < MIN_LINK_SCORE
    # Under a dozen memories the floor stays at a dozen's: there is no neighbourhood below it.
    assert link_floor(2) == link_floor(12) > 0.5 * MIN_LINK_SCORE
    assert link_floor(12, with_meaning=False) < MIN_LEXICAL_SCORE


def test_being_each_others_nearest_counts_only_where_the_neighbourhood_is_most_of_the_profile() -> None:
    first, second = (
        memory("a", "Our beagle tore a ligament."),
        memory("b", "The vet says the dog needs surgery.", 20),
    )
    meaning = Meaning(0.82, 0.75, 0.75, mutual_nearest=True)
    small = CandidatePair(first, second, meaning, (), 11)
    large = CandidatePair(first, second, meaning, (), 5_000)
    assert mutual_bonus(small) == pytest.approx(MUTUAL_NEAREST)
    assert mutual_bonus(large) < 0.01
    assert link_score(small) is not None and link_score(large) is None


def test_a_quote_shows_the_word_in_whatever_case_or_form_the_memory_writes_it() -> None:
    opening = "Jon: Hey Gina, hope you're doing great! Still working on my business plans, slowly. "
    rome = excerpt(opening + "Took a short trip last week to Rome to clear my mind.", "Rome", 90)
    assert "Rome" in rome and rome.startswith("…")
    bowl = excerpt(opening + "Also painted a bowl for my mother, glazed in blue.", "bowls", 90)
    assert "bowl" in bowl and bowl.startswith("…")


def test_a_quote_is_never_cut_inside_a_word() -> None:
    text = (
        "我们在公园里跑步\uff0c然后去了图书馆看书。" * 4
        + "Witcher"
        + "我们在公园里跑步\uff0c然后去了图书馆。" * 4
    )
    quote = excerpt(text, "图书", 40)
    assert quote.startswith("…") and quote.endswith("…") and len(quote) <= 42
    body = quote.strip("…")
    start = text.index(body)
    for cut in (start, start + len(body)):
        assert not (
            text[cut - 1 : cut].isascii() and text[cut : cut + 1].isascii() and text[cut - 1].isalpha()
        )
    spaced = excerpt(
        "An unremarkable sentence about the lighthouse museum in Maine this summer.", "museum", 30
    )
    assert all(word in spaced.replace("…", "").split() for word in spaced.replace("…", "").split())
    assert "…" in spaced and "museu…" not in spaced


def test_a_phrase_only_two_memories_say_names_one_thing() -> None:
    failed = memory("a", "John: Especially after I failed the military aptitude test last spring.")
    retook = memory("b", "John: Last week I retook the aptitude test and did much better.", 60)
    linked = pair(failed, retook, 0.80)
    [aptitude] = [term for term in linked.shared if term.term == "aptitude"]
    assert aptitude.phrase and names_one_thing(aptitude)
    # Commoner English than "axolotl", the word alone says less; in one phrase it says one thing.
    assert link_score(linked) is not None
    # The same word in two different phrases is two uses of a word, not one thing.
    apart = pair(
        memory("c", "She has a real aptitude for languages, says her teacher."),
        memory("d", "The test measured aptitude rather than knowledge, apparently.", 60),
        0.80,
    )
    [alone] = [term for term in apart.shared if term.term == "aptitude"]
    assert not alone.phrase and link_score(apart) is None
    # A phrase of words English also reads as verbs or adjectives is a way of speaking ("takes
    # guts", "staying hopeful"), not a thing's name.
    idiom = pair(
        memory("e", "Trying new things takes guts and it pays off."),
        memory("f", "Helping out like that takes guts, well done.", 60),
        0.80,
    )
    [guts] = [term for term in idiom.shared if term.term == "guts"]
    assert guts.phrase and not names_one_thing(guts) and link_score(idiom) is None


def test_a_rare_word_for_a_quality_names_no_one_thing() -> None:
    # Music and painting are both cathartic; a painting and a reunion both show togetherness.
    for first, second in (
        (
            "Playing the cello is so cathartic after a long shift.",
            "Painting has always felt cathartic to me.",
        ),
        (
            "The mural is a symbol of togetherness for the street.",
            "The reunion was pure togetherness, all of us.",
        ),
    ):
        quality = pair(memory("a", first), memory("b", second, 40), 0.80)
        [term] = quality.shared
        assert not names_one_thing(term) and link_score(quality) is None
    # A rare thing's name still does.
    axolotl = pair(
        memory("c", "Cleaned the axolotl tank before the guests came."),
        memory("d", "The axolotl has grown a new gill, it seems.", 40),
        0.80,
    )
    assert names_one_thing(axolotl.shared[0]) and link_score(axolotl) is not None
