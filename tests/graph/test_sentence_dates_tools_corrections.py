"""sentence-v1, round three (issue 50): dates in any common writing said of a birth or a death,
tools shown by use and given up, and corrections read for the new value only. Pure: no
database, no model."""

from __future__ import annotations

import pytest

from graph.memory.sentence_verifier import SentenceVerifier
from graph.memory.verifier import ClaimStatement, Verdict, Verification

pytestmark = pytest.mark.unit

VERIFIER = SentenceVerifier()


def _verify(text: str, predicate: str, obj: str, subject: str = "user") -> Verification:
    claim = ClaimStatement(subject, predicate, obj, "positive", "assertion", None, None, None)
    return VERIFIER.verify(claim, [text])


@pytest.mark.parametrize(
    ("text", "predicate", "obj", "subject"),
    [
        ("Born on the thirty-first of October 1979, a Halloween baby.", "born_on", "1979-10-31", "user"),
        ("I was born on the second of July 1984.", "born_on", "1984-07-02", "user"),
        ("My date of birth is 1992-08-19, for the form.", "born_on", "1992-08-19", "user"),
        # Unambiguous numbers: no month 27, and the same day read either way.
        ("dob 27/01/1986", "born_on", "1986-01-27", "user"),
        ("born 05/05/95, cinco de mayo", "born_on", "1995-05-05", "user"),
        # The writer says the order, or another date of theirs settles it.
        ("bday 06/09/1990 (US format)", "born_on", "1990-06-09", "user"),
        ("Kids: Oli born 24/02/2014, Bea born 03/07/2016.", "born_on", "2016-07-03", "Bea"),
        # A year, or a birth said as what the person was as a baby.
        ("I'm a 1983 baby, born in Hull.", "born_on", "1983", "user"),
        ("Birthday today! Forty years since 9 Dec 1985.", "born_on", "1985-12-09", "user"),
        # Deaths said gently, and a date given right after the event is named.
        ("We said goodbye to Grandad Len in 2018.", "died_on", "2018", "Len"),
        ("Uncle Sid was killed in a crash on 4 May 1999.", "died_on", "1999-05-04", "Sid"),
        ("Five years since we lost Auntie Pam. 30 Jan 2020.", "died_on", "2020-01-30", "Pam"),
    ],
)
def test_dates_are_read_in_every_common_writing(text: str, predicate: str, obj: str, subject: str) -> None:
    assert _verify(text, predicate, obj, subject).verdict is Verdict.ENTAILED


# A date belonging to another event of the sentence, and someone else's relation.
_OTHER_DATES = [
    ("I was born in 1970 and we moved to Leeds on 2 June 1977.", "born_on", "1977-06-02", "user"),
    ("Gran died in 2011; she was born on 8 March 1930.", "died_on", "1930-03-08", "Gran"),
    ("My neighbour's dad died on 3 March 2021.", "died_on", "2021-03-03", "Dad"),
]


def test_a_date_of_something_else_is_refused() -> None:
    verdicts = [_verify(*case).verdict for case in _OTHER_DATES]
    assert Verdict.ENTAILED not in verdicts


def test_a_date_whose_order_is_unsettled_is_refused_with_a_reason() -> None:
    found = _verify("born 5/6/91 in Leeds", "born_on", "1991-06-05")
    assert found.verdict is Verdict.INSUFFICIENT
    assert "'5/6/91'" in found.reason and "day first" in found.reason and "in words" in found.reason
    # The year is the same in either order.
    assert _verify("born 5/6/91 in Leeds", "born_on", "1991").verdict is Verdict.ENTAILED


def test_a_tool_given_up_is_not_used() -> None:
    assert _verify("Gave up on Headspace after a month.", "uses", "Headspace").verdict is not Verdict.ENTAILED


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("I said Monday but I meant Wednesday.", "Wednesday"),
        ("not Cardiff - Swansea, sorry", "Swansea"),
        ("Correction: Jo's surname is Patel, not Shah.", "Patel"),
        ("Whoops, it's Aoife, not Eva.", "Aoife"),
    ],
)
def test_the_corrected_value_is_read(text: str, obj: str) -> None:
    assert _verify(text, "corrected", obj).verdict is Verdict.ENTAILED


@pytest.mark.parametrize(
    ("text", "obj", "marker"),
    [
        ("I said Monday but I meant Wednesday.", "Monday", "said"),
        ("The train leaves at 7, sorry, 8.", "7", "sorry"),
        ("Earlier I wrote that Sam lives in York. Wrong, he lives in Hull.", "York", "wrote"),
    ],
)
def test_the_old_value_is_not_the_correction(text: str, obj: str, marker: str) -> None:
    found = _verify(text, "corrected", obj)
    assert found.verdict is not Verdict.ENTAILED
    assert f"'{marker}' marks it as the value being corrected" in found.reason
