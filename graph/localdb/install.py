"""Fetching the Neo4j server jars from Maven Central into a version's shared lib dir.

The official tarball is out of reach here, but every jar of the server is on Maven Central, so
`mvn` resolves the pom beside this module (see graph/maven.py) into a staging dir that is
renamed into place only when complete.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from graph.localdb.config import NEO4J_VERSION, POM
from graph.localdb.errors import LocalNeo4jError
from graph.localdb.files import atomic_write, exclusive
from graph.maven import fetch_with_maven


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
            fetch_with_maven(
                "copy-dependencies",
                staging,
                f"org.neo4j.neo4j-{NEO4J_VERSION}.jar",
                what=f"the Neo4j {NEO4J_VERSION} jars",
                error=LocalNeo4jError,
                properties={"includeScope": "runtime", "mdep.prependGroupId": "true"},
                pom=POM,
            )
            shutil.rmtree(lib_dir, ignore_errors=True)  # unmarked, so incomplete
            staging.rename(lib_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        jars = sum(1 for _ in lib_dir.glob("*.jar"))
        atomic_write(marker, json.dumps({"version": NEO4J_VERSION, "jars": jars}))
    return lib_dir
