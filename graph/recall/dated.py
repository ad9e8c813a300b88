"""Recall's date lane: when a question names days ("on 13 October 2023", "in June"), the
fragments said in them are candidates of their own, and every candidate said in them is lifted
(`graph/recall/fusion.py`). A question that names a day is most often about what was said or
done that day, and the words it shares with the answer are few: on the LoCoMo development split,
questions naming a date found their evidence in the top 10 less often than the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Final

from graph.access import PackedVector, ProfileTx
from graph.recall.dated_queries import SAID_WITHIN
from graph.recall.periods import Period, nearness
from graph.recall.records import FoundMemory
from graph.recall.request import RecallRequest

# A period longer than this (a year) is too wide to read whole: its fragments are only lifted
# when another lane finds them.
LONGEST_READ_DAYS: Final = 31
# A date that names no year is read in each of this many years up to the one recall looks from.
YEARS_BACK: Final = 10
# At most this many fragments are read per day range, and at most this many ranges a recall
# (a month without a year is one range per year, oldest first; the last ones are kept): the lane
# stays bounded however many dates a question lists.
SAID_WITHIN_CAP: Final = 1000
MAX_SPANS: Final = 12


def readable(periods: Sequence[Period]) -> list[Period]:
    """The periods short enough for the lane to read whole."""
    return [period for period in periods if period.days <= LONGEST_READ_DAYS]


async def said_within(
    tx: ProfileTx,
    request: RecallRequest,
    periods: Sequence[Period],
    vector: PackedVector | None,
    model_id: str | None,
) -> list[FoundMemory]:
    """The live fragments said in `periods` or their grace days, nearest `vector` first (scored by cosine, 0
    without one), at most `request.candidates`."""
    now = request.known_at or datetime.now().astimezone()
    years = range(now.year - YEARS_BACK, now.year + 1)
    bounds = [bound for period in periods for bound in period.bounds(years)][-MAX_SPANS:]
    spans = [{"from": start, "to": end} for start, end in bounds]
    rows = await tx.run(
        SAID_WITHIN,
        spans=spans,
        cap=SAID_WITHIN_CAP,
        limit=request.candidates,
        statuses=list(request.statuses("fragment")),
        vector=vector,
        model=model_id,
        known_at=request.known_at,
        valid_at=request.valid_at,
    )
    return [memory for memory in map(FoundMemory.from_row, rows) if nearness(memory.occurred_at, periods) > 0]
