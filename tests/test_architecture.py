"""The packages import one way (docs/architecture.md): the import-linter contracts in
pyproject.toml hold for the code as it is."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

pytestmark = pytest.mark.unit

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_every_import_contract_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PYPROJECT.parent)
    # import-linter sets up its logging with dictConfig, which disables every logger made before
    # it: the tests after this one in the same process that read a log (caplog) saw nothing.
    enabled = [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.disabled
    ]
    try:
        assert lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True) == 0
    finally:
        for logger in enabled:
            logger.disabled = False
