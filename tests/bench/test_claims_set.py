"""The labelled claims set (bench/claims): every part loads, and each covers what it must."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.claims.items import ClaimSetError, Label, LabelledClaim, Part, Register, Trap, load, load_part
from graph.memory.predicates import PREDICATE_RULES

pytestmark = pytest.mark.unit

# A dream's proposition, never sent by a host about what a person said.
MEASURED_PREDICATES = frozenset(PREDICATE_RULES) - {"connected_to"}
# The predicates hosts send most get more items than the floor.
BUSIEST_PREDICATES = ("works_at", "likes", "prefers", "uses", "knows", "has_goal", "relationship_to")
FLOOR = 8
# held_out_c was written to a brief of about a dozen per predicate, half true and half not.
BUSY_FLOOR = {Part.HELD_OUT_C: 10}
# held_out_c was written as a host that read the words would send claims: a span on nearly each.
MOST_QUOTED = {Part.HELD_OUT_C: 1.0}
ID_PREFIX = {Part.TUNING: "t-", Part.HELD_OUT: "h-", Part.HELD_OUT_B: "b-", Part.HELD_OUT_C: "c-"}


@pytest.fixture(scope="module")
def parts() -> dict[Part, tuple[LabelledClaim, ...]]:
    return {part: load_part(part) for part in Part}


@pytest.mark.parametrize("part", list(Part))
def test_each_predicate_has_true_and_unsupported_claims(
    parts: dict[Part, tuple[LabelledClaim, ...]], part: Part
) -> None:
    counts = Counter((item.predicate, item.label) for item in parts[part])
    assert {item.predicate for item in parts[part]} == MEASURED_PREDICATES
    for predicate in MEASURED_PREDICATES:
        floor = BUSY_FLOOR.get(part, 12) if predicate in BUSIEST_PREDICATES else FLOOR
        for label in Label:
            found = counts[predicate, label]
            assert found >= floor, f"{part}: {predicate} has {found} {label}"


@pytest.mark.parametrize("part", list(Part))
def test_every_register_trap_and_polarity_is_present(
    parts: dict[Part, tuple[LabelledClaim, ...]], part: Part
) -> None:
    items = parts[part]
    assert {item.register for item in items} == set(Register)
    assert {item.trap for item in items} == {*Trap, None}
    negative = {item.label for item in items if item.claim.polarity == "negative"}
    assert negative == set(Label)


@pytest.mark.parametrize("part", list(Part))
def test_evidence_is_quoted_from_the_text_on_about_half(
    parts: dict[Part, tuple[LabelledClaim, ...]], part: Part
) -> None:
    items = parts[part]
    quoted = [item for item in items if item.claim.evidence is not None]
    assert all(item.claim.evidence in item.text for item in quoted if item.claim.evidence)
    assert 0.35 <= len(quoted) / len(items) <= MOST_QUOTED.get(part, 0.65)
    assert any(item.label is Label.UNSUPPORTED for item in quoted)


def test_ids_are_unique_and_name_their_part(parts: dict[Part, tuple[LabelledClaim, ...]]) -> None:
    ids = [item.id for items in parts.values() for item in items]
    assert len(ids) == len(set(ids))
    for part, items in parts.items():
        assert all(item.id.startswith(f"{ID_PREFIX[part]}{item.predicate}-") for item in items)


@pytest.mark.parametrize(
    ("held_out", "earlier"),
    [(Part.HELD_OUT, Part.TUNING), (Part.HELD_OUT_B, Part.TUNING), (Part.HELD_OUT_B, Part.HELD_OUT)],
)
def test_a_held_out_part_shares_no_text_or_object_with_an_earlier_part(
    parts: dict[Part, tuple[LabelledClaim, ...]], held_out: Part, earlier: Part
) -> None:
    def texts(part: Part) -> set[str]:
        return {item.text for item in parts[part]}

    def objects(part: Part) -> set[str]:
        return {item.claim.object.casefold() for item in parts[part]}

    # Only what is shared is named, so a failure shows nothing else of the other part.
    shared_texts = texts(held_out) & texts(earlier)
    shared_objects = objects(held_out) & objects(earlier)
    assert not shared_texts, f"{held_out} repeats texts of {earlier}: {sorted(shared_texts)}"
    assert not shared_objects, f"{held_out} reuses objects of {earlier}: {sorted(shared_objects)}"


@pytest.mark.parametrize("earlier", [Part.TUNING, Part.HELD_OUT, Part.HELD_OUT_B])
def test_the_third_held_out_part_repeats_no_text_of_an_earlier_part(
    parts: dict[Part, tuple[LabelledClaim, ...]], earlier: Part
) -> None:
    # Its writer read none of the other parts, so everyday objects ("vegan", "chess") recur by
    # chance and are allowed; a repeated text would mean a claim measured twice.
    shared = {item.text for item in parts[Part.HELD_OUT_C]} & {item.text for item in parts[earlier]}
    assert not shared, f"held_out_c repeats texts of {earlier}: {sorted(shared)}"


def _line(claim_changes: dict[str, object] | None = None, **changes: object) -> str:
    claim: dict[str, object] = {
        "subject": "user",
        "predicate": "likes",
        "object": "jazz",
        "polarity": "positive",
        "modality": "assertion",
        "valid_from": None,
        "valid_to": None,
    }
    claim.update(claim_changes or {})
    item: dict[str, object] = {
        "id": "t-likes-001",
        "register": "plain",
        "trap": None,
        "text": "I love jazz.",
        "claim": claim,
        "evidence": "I love jazz",
        "label": "true",
        "note": None,
    }
    item.update(changes)
    return json.dumps(item)


def test_a_good_line_becomes_a_claim_statement_with_every_field(tmp_path: Path) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text(_line({"valid_from": "2020-03-01"}) + "\n\n")
    (item,) = load(path)
    assert (item.claim.subject, item.claim.predicate, item.claim.object) == ("user", "likes", "jazz")
    assert item.claim.valid_from == datetime(2020, 3, 1, tzinfo=UTC)
    assert item.claim.evidence == "I love jazz"
    assert item.statement(with_evidence=False).evidence is None


@pytest.mark.parametrize(
    ("claim_changes", "changes", "field"),
    [
        ({}, {"register": "chat"}, "field register"),
        ({}, {"label": "maybe"}, "field label"),
        ({}, {"evidence": "I adore jazz"}, "field evidence"),
        ({}, {"colour": "blue"}, "field colour"),
        ({"predicate": "enjoys"}, {}, "field claim.predicate"),
        ({"valid_from": "March 2020"}, {}, "field claim.valid_from"),
    ],
)
def test_a_bad_line_is_refused_naming_file_line_and_field(
    tmp_path: Path, claim_changes: dict[str, object], changes: dict[str, object], field: str
) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text(_line(id="t-likes-000") + "\n" + _line(claim_changes, **changes) + "\n")
    with pytest.raises(ClaimSetError, match=rf"claims\.jsonl line 2: .*{field}"):
        load(path)


def test_a_repeated_id_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text(_line() + "\n" + _line() + "\n")
    with pytest.raises(ClaimSetError, match="line 2: field id: 't-likes-001' was already used on line 1"):
        load(path)
