"""Fetching the Neo4j server jars into a version's shared lib dir.

The official tarball is out of reach here, but every jar of the server is on Maven Central. The
jars of each version are pinned, with their digests, in `locks/neo4j-<version>.txt` (written by
`lockgen.py` from the pom beside this module); they are fetched (graph/maven.py) into a staging
dir that is renamed into place only when complete.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Final

from graph.localdb.config import NEO4J_VERSION
from graph.localdb.errors import LocalNeo4jError
from graph.localdb.files import atomic_write, exclusive
from graph.maven import FetchProgress, MavenArtifact, fetch_artifacts, parse_lock

LOCKS: Final = Path(__file__).with_name("locks")


def lock_path(version: str) -> Path:
    return LOCKS / f"neo4j-{version}.txt"


def server_jars(version: str) -> list[MavenArtifact]:
    """The runtime jars of Neo4j `version`, as its lock file pins them."""
    path = lock_path(version)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LocalNeo4jError(
            f"Reverie pins no jars for Neo4j {version} (no {path}); use a Reverie release that "
            f"runs it, or, as its developer, write the lock with `python -m graph.localdb.lockgen {version}`"
        ) from None
    try:
        return parse_lock(text, str(path))
    except ValueError as problem:
        raise LocalNeo4jError(f"{problem}; reinstall Reverie") from None


def jars_installed(lib_dir: Path, marker: Path) -> bool:
    return marker.is_file() and lib_dir.is_dir()


def install_jars(
    lib_dir: Path, marker: Path, *, version: str = NEO4J_VERSION, progress: FetchProgress | None = None
) -> Path:
    """Fill `lib_dir` with the jars of Neo4j `version` once; instant when the marker says an
    earlier install completed. `progress` shows the fetch (log lines when None)."""
    if jars_installed(lib_dir, marker):
        return lib_dir
    jars = server_jars(version)
    version_dir = lib_dir.parent
    version_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(version_dir / ".install.lock"):
        if jars_installed(lib_dir, marker):  # another process finished it while we waited
            return lib_dir
        for leftover in version_dir.glob("lib.partial-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix="lib.partial-", dir=version_dir))
        try:
            # Named as `mvn dependency:copy-dependencies -Dmdep.prependGroupId=true` named them,
            # so jars of two groups never collide and a lib dir from either looks the same.
            fetch_artifacts(
                jars,
                staging,
                what=f"Neo4j {version} server",
                error=LocalNeo4jError,
                progress=progress,
                prepend_group=True,
            )
            shutil.rmtree(lib_dir, ignore_errors=True)  # unmarked, so incomplete
            staging.rename(lib_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        atomic_write(marker, json.dumps({"version": version, "jars": len(jars)}))
    return lib_dir
