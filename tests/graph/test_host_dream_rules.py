"""The rules of host-written dreams that need no database: who wrote a dream, and which words
a new or reworded dream takes."""

from __future__ import annotations

import pytest

from graph.dreams.host import DreamWords, writer_name
from graph.errors import InvalidInputError
from graph.memory.models import ClaimInput

pytestmark = pytest.mark.unit

COMPLETE = DreamWords("Is it one story?", "Both name Herbert.", "What if it is?", "Ask the person.")


@pytest.mark.parametrize(
    ("client_name", "writer"),
    [
        ("claude-ai", "host:claude-ai"),
        ("  Visual Studio\nCode\t", "host:Visual Studio Code"),
        ("", "host:unknown"),
        (None, "host:unknown"),
        ("\x00\x1b", "host:unknown"),
        ("x" * 500, "host:" + "x" * 80),
    ],
)
def test_the_writer_is_the_clients_own_name_cleaned_and_bounded(client_name: str | None, writer: str) -> None:
    assert writer_name(client_name) == writer


def test_a_new_dream_needs_every_text_and_rewording_any_one() -> None:
    assert COMPLETE.stored(complete=True)["why"] == "Both name Herbert."
    partial = DreamWords(why="  Said twice.  ")
    assert partial.stored(complete=False) == {"why": "Said twice."}
    with pytest.raises(InvalidInputError, match="hypothesis, what_if, possible_outcome"):
        partial.stored(complete=True)
    with pytest.raises(InvalidInputError, match="nothing to reword"):
        DreamWords().stored(complete=False)


@pytest.mark.parametrize("field", ["hypothesis", "why", "what_if", "possible_outcome"])
def test_blank_or_overlong_words_are_refused(field: str) -> None:
    for text in ("   ", "x" * 401):
        with pytest.raises(InvalidInputError, match=field):
            DreamWords(**{field: text}).stored(complete=False)


def test_the_statement_is_stored_as_remembers_claim_shape() -> None:
    claim = ClaimInput(subject="user", predicate="likes", object="rye", extract_conf=0.9, resolution_conf=0.8)
    stored = DreamWords(statement=claim).stored(complete=False)
    assert ClaimInput.model_validate_json(stored["statement"]) == claim
