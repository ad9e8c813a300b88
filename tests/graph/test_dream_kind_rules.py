"""The rules of themes, duplicates and a night's budget, on memories made in the test."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graph.dreams.duplicates import duplicate_drafts, is_duplicate, is_routine
from graph.dreams.evidence import CandidatePair, Meaning, shared_terms, shared_words
from graph.dreams.kind_words import theme_draft
from graph.dreams.merges import planned_merge, retired_of
from graph.dreams.models import DreamDraft, DreamKind, DreamStatus, sources_key
from graph.dreams.night import by_turns, take_unused
from graph.dreams.postings import indexed
from graph.dreams.records import CitedFragment, EarlierTheme, Memory
from graph.dreams.themes import (
    FALLBACK_COHERENCE,
    MAX_BETWEEN_PAIRS,
    MIN_BETWEEN_PAIRS,
    between_threads,
    coherence_bar,
    distinct_threads,
    grown,
    sittings_of,
    themes_in,
)
from graph.errors import InvalidInputError

pytestmark = pytest.mark.unit

START = datetime(2024, 3, 1, 9, tzinfo=UTC)


def memory(text: str, days: float, memory_id: str | None = None, kind: str = "fragment") -> Memory:
    at = START + timedelta(days=days)
    return Memory(kind, memory_id or f"m{days}", text, 0.8, at, at)  # type: ignore[arg-type]


def pair(first: Memory, second: Memory, cosine: float | None = None) -> CandidatePair:
    """The pair as the finder weighs it in a profile of 100 where only these two use their words."""
    meaning = Meaning(cosine, 0.5, 0.5) if cosine is not None else None
    terms = shared_terms(first.text, second.text)
    shared, framed = shared_words((first.text, second.text), terms, dict.fromkeys(terms, 2), 100)
    return CandidatePair(first, second, meaning, shared, 100, framed)


def forty_days_apart(prefix: str, *texts: str) -> list[Memory]:
    """The texts as memories told 40 days apart, with ids `prefix`0, `prefix`1, ..."""
    return [memory(text, 40 * index, f"{prefix}{index}") for index, text in enumerate(texts)]


KAYAK = [
    memory("Took the kayak out on the lake at dawn and saw a heron fishing.", 0),
    memory("Patched a crack in the kayak hull with epoxy in the garage.", 40),
    memory("Booked a guided kayak tour along the fjords for the holiday.", 80),
    memory("Sold the old kayak paddle and ordered a carbon one online.", 120),
]


def test_a_word_through_three_sittings_months_apart_is_a_theme_spread_from_first_to_last() -> None:
    [theme] = themes_in({"kayak": KAYAK}, corpus_size=60)
    assert theme.term == "kayak" and theme.sittings == 4
    assert theme.sources == tuple(KAYAK)


def test_a_word_capitalised_only_to_open_a_sentence_is_named_as_a_word_and_a_name_as_a_name() -> None:
    pottery = forty_days_apart(
        "p",
        "Signed up for a pottery class near the station, first lesson on Monday.",
        "Took the kids to a pottery workshop and we each made a bowl.",
        "Pottery is the only thing that calms me down after work lately.",
    )
    [theme] = themes_in({"pottery": pottery}, corpus_size=60)
    assert theme.term == "pottery"
    names = {
        "Odile": (
            "Grandma Odile called to say her tomatoes finally ripened.",
            "Visited Odile in the care home, she beat everyone at scrabble.",
            "Odile turns ninety next month and we are planning a lunch.",
        ),
        # Never written in lower case, a name keeps its capital even where it only opens sentences.
        "Ludmila": (
            "Ludmila, my physiotherapist, says the shoulder needs rest.",
            "Ludmila gave me stretches for the shoulder and the neck.",
            "Ludmila moved my appointment to Thursday morning.",
        ),
    }
    for name, texts in names.items():
        [theme] = themes_in({name.lower(): forty_days_apart(name, *texts)}, corpus_size=60)
        assert theme.term == name


def test_no_theme_from_one_sitting_a_short_span_an_everyday_word_or_one_sentence_repeated() -> None:
    one_evening = [memory(m.text, 0.01 * i, f"e{i}") for i, m in enumerate(KAYAK)]
    one_week = [memory(m.text, 2 * i, f"w{i}") for i, m in enumerate(KAYAK)]
    dinner = forty_days_apart(
        "d",
        "Cooked dinner for my parents and we played cards after.",
        "Dinner at the new place downtown was too salty for me.",
        "Skipped dinner because the meeting ran until nine.",
    )
    routine = [memory("Cleaned the kitchen and did two loads of washing.", 40 * i, f"r{i}") for i in range(3)]
    assert themes_in({"kayak": one_evening}, 60) == []
    assert themes_in({"kayak": one_week}, 60) == []
    assert themes_in({"dinner": dinner}, 60) == []
    assert themes_in({"washing": routine}, 60) == []


# Routine sentences said on three days, one word in a slot each time. A sentence's start or end
# is part of a frame ("Cooked pasta with ...", "... the beans again."), and so are capitalised
# everyday words ("I", "TV"); a name would not be.
ROUTINES = {
    "radiology": (
        "Night shift on radiology, calm.",
        "Night shift on radiology, a difficult family, more or less.",
        "Night shift on radiology, three admissions again.",
    ),
    "inbox": (
        "Ugh, my inbox is awful today.",
        "Ugh, my inbox is a mess today.",
        "Ugh, my inbox is so slow today.",
    ),
    "pasta": (
        "Cooked pasta with chicken, as expected for dinner.",
        "Cooked pasta with tofu for dinner. Went home along the river.",
        "Cooked pasta with leeks, for a change for dinner.",
    ),
    "bean": (
        "In the garden I sowed the beans again.",
        "In the garden I staked the beans again.",
        "In the garden I repotted the beans again. A boat was moored by the bridge.",
    ),
    "licence": (
        "Paid the TV licence, cheaper this time.",
        "Paid the TV licence, need to budget again.",
        "Paid the TV licence, split with my flatmate.",
    ),
    "repott": (
        "In the garden I repotted the dahlias, more or less.",
        "In the garden I repotted the onions. Listened to Keimounoux on the way.",
        "In the garden I repotted the beans again.",
    ),
}


@pytest.mark.parametrize("root", sorted(ROUTINES))
def test_a_word_filling_one_slot_of_a_routine_sentence_is_no_theme(root: str) -> None:
    assert themes_in({root: forty_days_apart(root, *ROUTINES[root])}, 40) == []


def test_a_name_is_a_theme_in_any_frame_or_none() -> None:
    cafe = forty_days_apart(
        "k",
        "Paid the rent, on time. Coffee at Krotravon first.",
        "Cycled to work this morning, sunny. Stopped by Krotravon for a pastry.",
        "In the garden I weeded the beans. Krotravon had a queue out the door.",
    )
    assert [theme.term for theme in themes_in({"krotravon": cafe}, 40)] == ["Krotravon"]
    # A name said in one frame each time ("my sister Ana") is still one person coming back.
    sister = forty_days_apart(
        "a",
        "Went to the market with my sister Ana and bought plums.",
        "Dinner with my sister Ana, who is thinking of moving to Porto.",
        "Helped my sister Ana paint her hallway a dark green.",
    )
    assert [theme.term for theme in themes_in({"ana": sister}, 40)] == ["Ana"]
    # A word every English text uses, capitalised in a title, names no thread.
    title = forty_days_apart(
        "n",
        "Started a fantasy novel, The Name of the Wind, on the train home.",
        "Halfway through The Name of the Wind and the magic school chapters are great.",
        "Lent my copy of The Name of the Wind to a colleague who loves fantasy.",
    )
    assert themes_in({"name": title}, 40) == []


def test_a_word_only_asked_about_thanked_for_or_said_of_the_others_is_no_theme() -> None:
    # Replies to someone else's kayak: a question, thanks, "your"; told of once.
    replies = forty_days_apart(
        "y",
        "Took the kayak out on the lake at dawn and saw a heron fishing.",
        "Did you take the kayak out to the islands in the end?",
        "Thanks for lending me the kayak for the whole long weekend.",
        "Your kayak looks amazing in that photo from the lake house.",
    )
    assert themes_in({"kayak": replies}, 60) == []
    # Told of in three sittings, the thread stands, cited from what the person told.
    told = [*KAYAK[:3], *(memory(m.text, 40 * i + 10, f"q{i}") for i, m in enumerate(replies[1:]))]
    [theme] = themes_in({"kayak": told}, 200)
    assert theme.sources == tuple(KAYAK[:3])
    # A name is exempt: asking after Biscotti is about Biscotti.
    dog = forty_days_apart(
        "b",
        "We adopted a rescue greyhound called Biscotti last weekend!",
        "How is Biscotti settling in with the cats at your place?",
        "Thanks for walking Biscotti while I was stuck at work again.",
    )
    assert [theme.term for theme in themes_in({"biscotti": dog}, 60)] == ["Biscotti"]


def test_a_facts_time_is_not_a_sitting() -> None:
    facts = [memory(m.text, 40 * i, f"f{i}", kind="fact") for i, m in enumerate(KAYAK[:3])]
    assert themes_in({"kayak": facts}, 60) == []


def test_a_dreamed_thread_comes_back_only_grown_and_never_after_a_rejection() -> None:
    [theme] = themes_in({"kayak": KAYAK}, 60)
    newest = KAYAK[-1].when()
    earlier = EarlierTheme("d1", "kayak", DreamStatus.PROPOSED, newest)
    assert grown([theme], [earlier]) == []
    before = EarlierTheme("d1", "kayak", DreamStatus.PROPOSED, newest - timedelta(days=30))
    [again] = grown([theme], [before])
    assert again.builds_on == "d1"
    rejected = EarlierTheme("d1", "kayak", DreamStatus.REJECTED, newest - timedelta(days=30))
    assert grown([theme], [rejected]) == []


def test_sittings_split_at_six_hours() -> None:
    memories = [memory("a", 0, "a"), memory("b", 0.2, "b"), memory("c", 0.5, "c")]
    assert [[m.id for m in group] for group in sittings_of(memories)] == [["a", "b"], ["c"]]


def test_a_restatement_weeks_apart_is_a_duplicate_but_not_a_routine_or_small_talk() -> None:
    first = memory("My daughter Ines is allergic to peanuts and carries an EpiPen.", 0, "a")
    again = memory("Ines, my daughter, is allergic to peanuts and carries an EpiPen.", 40, "b")
    assert is_duplicate(pair(first, again, 0.98))
    assert not is_duplicate(pair(first, memory(again.text, 0.1, "c"), 0.98)), "same sitting"
    friday = memory("Watched a film at home on Friday night and fell asleep.", 0, "f")
    thursday = memory("Watched a film at home on Thursday night and fell asleep.", 40, "t")
    assert not is_duplicate(pair(friday, thursday, 0.97))
    assert not is_duplicate(
        pair(memory("Thanks, see you!", 0, "x"), memory("Thanks, see you!", 9, "y"), 0.99)
    )
    courtesy = "Thanks, Nate! Your support is greatly appreciated. I'll make sure to keep you updated."
    assert not is_duplicate(pair(memory(courtesy, 0, "c1"), memory(courtesy, 30, "c2"), 0.99)), (
        "nothing specific"
    )
    swapped = (
        memory("Jordan moved the standup to Friday to make room for the hiring panel.", 0, "s1"),
        memory("Jordan moved the hiring panel to Friday to make room for the standup.", 30, "s2"),
    )
    assert not is_duplicate(pair(*swapped, 0.97)), "the same words in other roles"
    bills = (
        memory("Paid the phone bill on Saturday, a bit more than the internet one.", 0, "b1"),
        memory("Paid the phone bill on Saturday, a bit more than the gas one.", 30, "b2"),
    )
    assert not is_duplicate(pair(*bills, 0.98)), "one detail swapped"
    rowing = (
        memory("Logged forty-five minutes on the rowing machine at the gym.", 0, "r1"),
        memory("Logged forty minutes on the rowing machine at the gym.", 30, "r2"),
    )
    assert not is_duplicate(pair(*rowing, 0.98)), "another amount"
    allergy = forty_days_apart(
        "p",
        "Doctor Almeida confirmed my penicillin allergy after the hospital rash in Porto last winter.",
        "Doctor Almeida confirmed I have no penicillin allergy after the hospital rash in Porto last winter.",
    )
    assert not is_duplicate(pair(*allergy, 0.98)), "one denies what the other says"


def test_a_routine_sentence_said_on_two_days_is_two_events_not_a_duplicate() -> None:
    risotto = (
        memory("Cooked risotto with tofu and leeks for dinner.", 0, "k1"),
        memory("Cooked risotto with tofu and leeks, for a change, for dinner.", 30, "k2"),
    )
    dinners = pair(*risotto, 0.98)
    assert is_duplicate(dinners)
    others = [
        memory("Cooked risotto with chicken and leeks for dinner.", 10, "o1"),
        memory("Cooked a stew with tofu and leeks for dinner.", 20, "o2"),
    ]
    assert is_routine(dinners, indexed([*risotto, *others], whole=True))
    assert duplicate_drafts([dinners], indexed([*risotto, *others], whole=True)) == []
    # Said a third and a fourth time, a restatement is still one thing said again.
    ines = [
        memory("My daughter Ines is allergic to peanuts and carries an EpiPen.", 40 * i, f"i{i}")
        for i in range(4)
    ]
    restated = pair(ines[0], ines[1], 0.98)
    assert not is_routine(restated, indexed(ines, whole=True))
    assert len(duplicate_drafts([restated], indexed(ines, whole=True))) == 1


def test_a_merge_retracts_the_earlier_unless_only_it_supports_claims() -> None:
    earlier = CitedFragment("a", START, "I paid the boiler repair.", supports=0)
    later = CitedFragment("b", START + timedelta(days=9), "I paid the boiler repair!", supports=0)
    assert retired_of([later, earlier]) is earlier
    holding = CitedFragment("a", START, "I paid the boiler repair.", supports=1)
    assert retired_of([holding, later]) is later


def test_a_merge_is_planned_only_for_two_live_memories_that_mean_the_same() -> None:
    said, again, denied = (
        CitedFragment(memory.id, memory.when(), memory.text, supports=0)
        for memory in forty_days_apart(
            "f",
            "Doctor Almeida confirmed my penicillin allergy in Porto.",
            "In Porto, Doctor Almeida confirmed my penicillin allergy.",
            "Doctor Almeida confirmed I have no penicillin allergy in Porto.",
        )
    )
    merge = planned_merge("d1", [again, said])
    assert (merge.kept, merge.retired) == (again, said)
    with pytest.raises(
        InvalidInputError, match=r"no duplicate: .*“no penicillin allergy porto”.*Nothing was changed"
    ):
        planned_merge("d1", [said, denied])
    with pytest.raises(InvalidInputError, match="no longer has two live memories"):
        planned_merge("d1", [said])


def draft(kind: DreamKind, *ids: str) -> DreamDraft:
    [theme] = themes_in({"kayak": KAYAK}, corpus_size=60)
    topic = "".join(ids) if kind is DreamKind.THEME else None  # a thread of its own, or none
    return theme_draft(theme).model_copy(
        update={"kind": kind, "source_ids": ids, "pair_key": sources_key(ids), "topic": topic}
    )


def test_kinds_take_turns_and_a_memory_is_cited_once_a_night() -> None:
    duplicates = [draft(DreamKind.DUPLICATE, "a", "b"), draft(DreamKind.DUPLICATE, "c", "d")]
    themes = [draft(DreamKind.THEME, "e", "f", "g"), draft(DreamKind.THEME, "a", "h", "i")]
    ordered = by_turns(duplicates, themes)
    assert [d.source_ids for d in ordered] == [("a", "b"), ("e", "f", "g"), ("c", "d"), ("a", "h", "i")]
    used: set[str] = set()
    taken = take_unused(ordered, 10, used)
    assert [d.source_ids for d in taken] == [("a", "b"), ("e", "f", "g"), ("c", "d")]
    assert take_unused(ordered, 0, set()) == []


def test_a_topic_still_open_is_not_asked_again_unless_a_theme_grows_it() -> None:
    [kayak] = themes_in({"kayak": KAYAK}, 60)
    asked = theme_draft(kayak)
    assert asked.topic == "kayak"
    assert take_unused([asked], 5, set(), {"kayak"}) == [], "the person has not answered yet"
    grows = theme_draft(replace(kayak, builds_on="d1"))
    assert take_unused([grows], 5, set(), {"kayak"}) == [grows]
    topics: set[str] = set()
    assert take_unused([asked], 5, set(), topics) == [asked] and topics == {"kayak"}


def test_one_theme_per_thread_and_none_repeating_an_earlier_dream() -> None:
    [kayak] = themes_in({"kayak": KAYAK}, 60)
    paddle = replace(kayak, topic="paddl", term="paddle", weight=kayak.weight / 2)
    assert distinct_threads([kayak, paddle], {}) == [kayak], "two words, one thread"
    dreamed_together = {KAYAK[0].id: {KAYAK[1].id}, KAYAK[1].id: {KAYAK[0].id}}
    assert distinct_threads([kayak], dreamed_together) == []
    assert distinct_threads([replace(kayak, builds_on="d1")], dreamed_together) != [], "a thread that grew"


def test_the_coherence_bar_is_what_few_pairs_between_threads_reach() -> None:
    between = [index / 100 for index in range(-100, 100)]  # -1.00 .. 0.99 units, 200 pairs
    assert coherence_bar(between) == pytest.approx(0.92), "4% of the pairs reach 0.92 or more"
    assert coherence_bar(list(reversed(between))) == coherence_bar(between)
    assert coherence_bar(between[: MIN_BETWEEN_PAIRS - 1]) == FALLBACK_COHERENCE, "too few to tell"


def test_pairs_between_threads_leave_out_pairs_a_theme_cites_and_stay_bounded() -> None:
    members = [memory(f"note {index}", index, f"m{index:03d}") for index in range(80)]
    within = {("m000", "m001"), ("m001", "m002")}
    between = between_threads(members, within)
    assert not within & set(between) and all(first < second for first, second in between)
    assert len(between) <= MAX_BETWEEN_PAIRS < 80 * 79 // 2
    assert between == between_threads(list(reversed(members)), within), "the same pairs each time"
