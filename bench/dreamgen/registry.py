"""The synthetic dream lanes by name, each a generator at a seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from bench.dreamgen import chat, dozen, journal, sitting
from bench.dreamgen.truth import Lane

GENERATORS: Final[dict[str, Callable[[int], Lane]]] = {
    "dozen": dozen.dozen,
    "dozen-sitting": dozen.dozen_sitting,
    "sitting": sitting.sitting,
    "sitting-dated": sitting.sitting_dated,
    "journal-40": journal.first_months,
    "chat": chat.chat,
    "journal-2400": journal.years,
}
