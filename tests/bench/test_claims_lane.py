"""The claims lane (python -m bench.claims): what it counts, and that evidence spans reach the verifier."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

import bench.report
from bench.claims.__main__ import main, measure, render
from bench.claims.items import Label, Part, load_part
from graph.memory.verifier import ClaimStatement, Verdict, Verification

pytestmark = pytest.mark.unit


class _EntailsAll:
    name = "entails-all"

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification:
        return Verification(Verdict.ENTAILED, self.name, "everything goes")


class _EntailsQuoted:
    """Entails exactly the claims that arrive with an evidence span."""

    name = "entails-quoted"

    def verify(self, claim: ClaimStatement, fragments: Sequence[str]) -> Verification:
        verdict = Verdict.ENTAILED if claim.evidence is not None else Verdict.INSUFFICIENT
        return Verification(verdict, self.name, "quoted" if claim.evidence else "no span")


def test_a_verifier_that_entails_everything_finds_every_true_claim_and_refuses_nothing() -> None:
    items = load_part(Part.TUNING)
    run = measure(_EntailsAll(), Part.TUNING, items, with_evidence=True)
    true_claims = sum(item.label is Label.TRUE for item in items)
    assert (run.overall.recall, run.overall.refusal) == (1.0, 0.0)
    assert run.overall.precision == true_claims / len(items)
    assert set(run.predicates_below_floor) == {item.predicate for item in items}
    assert "unsupported claims refused: 0.0% against >= 90%: not met" in render(run)


@pytest.mark.parametrize("part", [Part.HELD_OUT, Part.HELD_OUT_B, Part.HELD_OUT_C])
def test_evidence_spans_reach_the_verifier_only_when_given(part: Part) -> None:
    items = load_part(part)
    quoted = [item for item in items if item.claim.evidence is not None]
    given = measure(_EntailsQuoted(), part, items, with_evidence=True)
    removed = measure(_EntailsQuoted(), part, items, with_evidence=False)
    assert given.overall.entailed == len(quoted)
    assert removed.overall.entailed == 0


def test_the_lane_writes_every_run_and_verdict_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench.report, "RESULTS_DIR", tmp_path)
    assert main(["--part", "tuning"]) == 0
    (written,) = tmp_path.glob("claims-*.json")
    document = json.loads(written.read_text())
    runs = document["runs"]
    assert [(run["verifier"], run["evidence_spans"]) for run in runs] == [
        ("lexical-v1", "given"),
        ("lexical-v1", "removed"),
        ("sentence-v1", "given"),
        ("sentence-v1", "removed"),
    ]
    assert len(runs[0]["items"]) == len(load_part(Part.TUNING))
    assert "lexical-v1 on tuning" in capsys.readouterr().out
