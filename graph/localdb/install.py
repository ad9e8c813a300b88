"""Fetching the Neo4j server jars from Maven Central into a version's shared lib dir.

The official tarball is out of reach here, but every jar of the server is on Maven Central, so
`mvn` resolves the pom beside this module (checksummed by Maven, cached in ~/.m2) into a staging
dir that is renamed into place only when complete.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Final

from graph.localdb.config import NEO4J_VERSION, POM
from graph.localdb.errors import LocalNeo4jError
from graph.localdb.files import LOG_TAIL_LINES, atomic_write, exclusive

_DEP_PLUGIN: Final = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_MVN_TIMEOUT: Final = 1800


def jars_installed(lib_dir: Path, marker: Path) -> bool:
    return marker.is_file() and lib_dir.is_dir()


def install_jars(lib_dir: Path, marker: Path) -> Path:
    """Fill `lib_dir` once; instant when the marker says an earlier install completed."""
    if jars_installed(lib_dir, marker):
        return lib_dir
    version_dir = lib_dir.parent
    version_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(version_dir / ".install.lock"):
        if jars_installed(lib_dir, marker):  # another process finished it while we waited
            return lib_dir
        for leftover in version_dir.glob("lib.partial-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix="lib.partial-", dir=version_dir))
        try:
            _copy_dependencies(staging)
            shutil.rmtree(lib_dir, ignore_errors=True)  # unmarked, so incomplete
            staging.rename(lib_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        jars = sum(1 for _ in lib_dir.glob("*.jar"))
        atomic_write(marker, json.dumps({"version": NEO4J_VERSION, "jars": jars}))
    return lib_dir


def _copy_dependencies(dest: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalNeo4jError(
            f"Maven (`mvn`) is not on PATH; Reverie uses it to fetch the Neo4j {NEO4J_VERSION} "
            "jars from Maven Central. Install Maven 3.6+ (e.g. `apt-get install maven`) and retry."
        )
    cmd = [
        mvn,
        "-B",
        "--no-transfer-progress",
        "-f",
        str(POM),
        f"{_DEP_PLUGIN}:copy-dependencies",
        f"-DoutputDirectory={dest}",
        "-DincludeScope=runtime",
        "-Dmdep.prependGroupId=true",
    ]
    try:
        done = subprocess.run(
            cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=_MVN_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise LocalNeo4jError(
            "mvn took over 30 min fetching the Neo4j jars; check the network and retry"
        ) from exc
    output = "\n".join((done.stdout + done.stderr).splitlines()[-LOG_TAIL_LINES:])
    if done.returncode != 0 or not (dest / f"org.neo4j.neo4j-{NEO4J_VERSION}.jar").is_file():
        raise LocalNeo4jError(
            f"mvn failed (exit {done.returncode}) fetching Neo4j {NEO4J_VERSION} jars. Check "
            "access to Maven Central (or the mirror in ~/.m2/settings.xml) and retry. "
            f"Last lines of its output:\n{output}"
        )
