"""Whether two near-identical texts mean the same thing (`graph/dreams/same_meaning.py`), on
sentences of many shapes: each way two can differ, and restatements that must stay one memory."""

from __future__ import annotations

import pytest

from graph.dreams.same_meaning import Difference, meaning_difference

pytestmark = pytest.mark.unit

DIFFERENT = [
    # negation, in every form it takes
    (
        "Doctor Almeida confirmed my penicillin allergy after the hospital rash in Porto last winter.",
        "Doctor Almeida confirmed I have no penicillin allergy after the hospital rash in Porto last winter.",
        Difference.NEGATION,
    ),
    (
        "My brother eats meat at family dinners.",
        "My brother never eats meat at family dinners.",
        Difference.NEGATION,
    ),
    (
        "The landlord fixed the boiler before winter.",
        "The landlord didn't fix the boiler before winter.",
        Difference.NEGATION,
    ),
    (
        "The landlord fixed the boiler before winter.",
        "The landlord didnt fix the boiler before winter.",
        Difference.NEGATION,
    ),
    (
        "I take my coffee with sugar at the office.",
        "I take my coffee without sugar at the office.",
        Difference.NEGATION,
    ),
    (
        "Marta works at the Braga clinic as a nurse.",
        "Marta no longer works at the Braga clinic as a nurse.",
        Difference.NEGATION,
    ),
    (
        "I used to climb at the Lisbon gym with Rui.",
        "I climb at the Lisbon gym with Rui.",
        Difference.NEGATION,
    ),
    (
        "Nobody at the bakery knew about the gluten.",
        "Everybody at the bakery knew about the gluten.",
        Difference.NEGATION,
    ),
    # a negation that moved: the same count, another thing denied
    (
        "Ines does not like the piano lessons, but she likes the violin lessons.",
        "Ines likes the piano lessons, but she does not like the violin lessons.",
        Difference.NEGATION,
    ),
    # a changed number or amount, in digits or words
    (
        "We paid 1,200 euros for the boiler repair.",
        "We paid 1,500 euros for the boiler repair.",
        Difference.QUANTITY,
    ),
    (
        "Logged forty-five minutes on the rowing machine.",
        "Logged forty minutes on the rowing machine.",
        Difference.QUANTITY,
    ),
    (
        "I have two cats and three dogs at the farmhouse.",
        "I have three cats and two dogs at the farmhouse.",
        Difference.QUANTITY,
    ),
    (
        "I always take the train to Braga for work.",
        "I sometimes take the train to Braga for work.",
        Difference.QUANTITY,
    ),
    (
        "I take the train to Braga for work.",
        "I rarely take the train to Braga for work.",
        Difference.QUANTITY,
    ),
    (
        "All the tomato seedlings died in the frost.",
        "Some of the tomato seedlings died in the frost.",
        Difference.QUANTITY,
    ),
    (
        "I eat fish at the harbour restaurant.",
        "I only eat fish at the harbour restaurant.",
        Difference.QUANTITY,
    ),
    (
        "The physio said to run 3.5 km on Sundays.",
        "The physio said to run 5 km on Sundays.",
        Difference.QUANTITY,
    ),
    (
        "It was my first visit to the Porto dentist.",
        "It was my second visit to the Porto dentist.",
        Difference.QUANTITY,
    ),
    # another day, date or time
    (
        "The boiler broke on 3 March, the plumber came late.",
        "The boiler broke on 5 March, the plumber came late.",
        Difference.WHEN,
    ),
    (
        "Watched a film at home on Friday night and fell asleep.",
        "Watched a film at home on Thursday night and fell asleep.",
        Difference.WHEN,
    ),
    (
        "We moved into the flat in Porto last spring.",
        "We moved into the flat in Porto last autumn.",
        Difference.WHEN,
    ),
    # a swapped detail: place, person, thing, verb
    ("Met Ana at the Lisbon marathon expo.", "Met Ana at the Porto marathon expo.", Difference.DETAIL),
    (
        "Doctor Almeida confirmed the allergy at the clinic.",
        "Doctor Silva confirmed the allergy at the clinic.",
        Difference.DETAIL,
    ),
    (
        "Paid the phone bill on Saturday, more than the internet one.",
        "Paid the phone bill on Saturday, more than the gas one.",
        Difference.DETAIL,
    ),
    ("My daughter Ines is allergic to peanuts.", "My son Tomas is allergic to peanuts.", Difference.DETAIL),
    (
        "The vet confirmed the kitten has a heart murmur.",
        "The vet ruled out that the kitten has a heart murmur.",
        Difference.DETAIL,
    ),
    (
        "The rash started before the penicillin course.",
        "The rash started after the penicillin course.",
        Difference.DETAIL,
    ),
    (
        "The same dentist in Braga fixed the crown.",
        "Another dentist in Braga fixed the crown.",
        Difference.DETAIL,
    ),
    ("The driving exam in Coimbra went well.", "The driving exam in Coimbra went badly.", Difference.DETAIL),
    # the same words in other roles
    (
        "Ana told Ben about the surprise party at the Porto flat.",
        "Ben told Ana about the surprise party at the Porto flat.",
        Difference.ROLES,
    ),
    (
        "Jordan moved the standup to make room for the hiring panel.",
        "Jordan moved the hiring panel to make room for the standup.",
        Difference.ROLES,
    ),
]

SAME = [
    # reordered: an apposition, a clause moved whole, a word moved across the sentence
    (
        "My daughter Ines is allergic to peanuts and always carries an EpiPen in her bag.",
        "Ines, my daughter, is allergic to peanuts and always carries her EpiPen in her bag.",
    ),
    ("I'm allergic to penicillin, Doctor Almeida said.", "Doctor Almeida said I am allergic to penicillin."),
    (
        "Visited grandma in Braga, then went hiking in Geres with Tomas.",
        "Went hiking in Geres with Tomas, then visited grandma in Braga.",
    ),
    ("In Porto, Ana and I ate at the Tasca do Joel.", "Ana and I ate at the Tasca do Joel in Porto."),
    # function words, contractions, tone
    ("Sold the old kayak paddle to a neighbour.", "Sold the old kayak paddle to my neighbour."),
    ("I've got a penicillin allergy, the doctor says.", "I have a penicillin allergy, the doctor says."),
    ("I really love the sourdough starter Herbert.", "I love the sourdough starter, Herbert, haha."),
    # case and punctuation
    ("THE BOILER in the flat finally broke!!", "the boiler in the flat finally broke."),
    ("Ana\u2019s thesis defence is in Coimbra", "ana's thesis defence is in coimbra!"),
    # the same negation however it is written, the same amount however it is written
    ("I don't have a penicillin allergy.", "I have no penicillin allergy."),
    ("I have no penicillin allergy", "I have no allergy to penicillin"),
    ("I can't stand cilantro in my tacos.", "I cannot stand cilantro in my tacos."),
    ("Ana didnt like the Saramago novel", "Ana did not like the Saramago novel"),
    ("Logged 45 minutes on the rowing machine.", "Logged forty-five minutes on the rowing machine."),
    ("We paid 1,200 euros for the boiler repair.", "We paid 1200 euros for the boiler repair."),
    ("Bought a dozen eggs at the farm.", "Bought 12 eggs at the farm."),
    ("Read two hundred and five pages of the thesis.", "Read 205 pages of the thesis."),
    ("The boiler broke on March 3rd 2024.", "On March 3rd 2024 the boiler broke."),
]


@pytest.mark.parametrize(("first", "second", "kind"), DIFFERENT)
def test_two_texts_that_differ_in_meaning_are_told_apart_both_ways(
    first: str, second: str, kind: Difference
) -> None:
    found = meaning_difference(first, second)
    assert found is not None and found.kind is kind, found
    back = meaning_difference(second, first)
    assert back is not None and back.kind is kind, back


@pytest.mark.parametrize(("first", "second"), SAME)
def test_a_restatement_means_the_same_both_ways(first: str, second: str) -> None:
    assert meaning_difference(first, second) is None
    assert meaning_difference(second, first) is None


def test_the_difference_names_what_each_says() -> None:
    found = meaning_difference(
        "Doctor Almeida confirmed my penicillin allergy.",
        "Doctor Almeida confirmed I have no penicillin allergy.",
    )
    assert found is not None
    assert (
        found.describe()
        == "one denies what the other says: nothing in one, “no penicillin allergy” in the other"
    )
    swapped = meaning_difference("Met Ana at the Lisbon expo.", "Met Ana at the Porto expo.")
    assert swapped is not None and (swapped.first, swapped.second) == (("lisbon",), ("porto",))


def test_any_text_is_read_without_error() -> None:
    for text in ("", "!!!", "2nd", "and", "hundred", "no", "没有 过敏", "a\u0301 1,2,3 and and"):
        assert meaning_difference(text, text) is None
