"""The packages import one way (docs/architecture.md): the import-linter contracts in
pyproject.toml hold for the code as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from importlinter.cli import lint_imports

pytestmark = pytest.mark.unit

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_every_import_contract_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PYPROJECT.parent)
    assert lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True) == 0
