"""Writing the lock file of a Neo4j version, for Reverie's developers when they move to a new one:

    python -m graph.localdb.lockgen 2026.08.1

Maven resolves the pom beside this module with `<neo4j.version>` set to that version (its parent
BOM pins the third-party jars), as `dependency:copy-dependencies -DincludeScope=runtime` would. Each
jar's SHA-1 and size are read from the local Maven repository, and each SHA-1 is checked against
the `.sha1` file the repository publishes beside the jar (Maven Central, or the mirror
REVERIE_MAVEN_REPOSITORY names); on any mismatch nothing is written. This needs `mvn`, unlike
Reverie itself, which only reads the lock.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

import httpx2

from graph.localdb.config import POM
from graph.localdb.files import atomic_write
from graph.localdb.install import lock_path
from graph.maven import MavenArtifact, file_sha1, render_lock, repository_url

_DEPENDENCY_PLUGIN: Final = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_VERSION_PROPERTY: Final = re.compile(r"<neo4j\.version>[^<]*</neo4j\.version>")
# A line of `dependency:list`: group:artifact:type[:classifier]:version:scope:/absolute/path,
# then perhaps ` -- module name`.
_LISTED: Final = re.compile(
    r"^\s*(?P<group>[^:\s]+):(?P<artifact>[^:\s]+):(?P<type>[^:\s]+):(?:(?P<classifier>[^:\s]+):)?"
    r"(?P<version>[^:\s]+):(?:compile|runtime):(?P<path>/.+?)(?: -- .*)?$"
)


class LockError(Exception):
    """The lock cannot be written; the message says why."""


def pom_for(version: str, pom_text: str) -> str:
    """The pom with its `<neo4j.version>` set to `version`."""
    text, count = _VERSION_PROPERTY.subn(f"<neo4j.version>{version}</neo4j.version>", pom_text)
    if count != 1:
        raise LockError(f"the pom has {count} <neo4j.version> properties, not one")
    return text


def parse_listing(text: str) -> list[tuple[MavenArtifact, Path]]:
    """The jars a `dependency:list -DoutputAbsoluteArtifactFilename=true` output names, each
    pinned to the digest and size of the file Maven resolved."""
    found = []
    for line in text.splitlines():
        match = _LISTED.match(line)
        if match is None:
            continue
        if match["type"] != "jar":
            raise LockError(f"{line.strip()} is not a jar; the lock format only holds jars")
        path = Path(match["path"])
        artifact = MavenArtifact(
            group=match["group"],
            artifact=match["artifact"],
            version=match["version"],
            classifier=match["classifier"] or "",
            sha1=file_sha1(path),
            size=path.stat().st_size,
        )
        found.append((artifact, path))
    return found


def resolve(version: str, pom: Path) -> list[MavenArtifact]:
    """The runtime jars of Neo4j `version`, resolved by `mvn` from `pom`."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LockError("writing a lock needs Maven (`mvn`) on PATH")
    with tempfile.TemporaryDirectory(prefix="reverie-lockgen-") as work_name:
        work = Path(work_name)
        (work / "pom.xml").write_text(pom_for(version, pom.read_text(encoding="utf-8")), encoding="utf-8")
        listing = work / "dependencies.txt"
        done = subprocess.run(
            [
                mvn,
                "-B",
                "--no-transfer-progress",
                "-f",
                str(work / "pom.xml"),
                f"{_DEPENDENCY_PLUGIN}:list",
                "-DincludeScope=runtime",
                "-DoutputAbsoluteArtifactFilename=true",
                f"-DoutputFile={listing}",
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            cwd=work,
        )
        if done.returncode != 0 or not listing.is_file():
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
            raise LockError(f"mvn failed (exit {done.returncode}):\n{tail}")
        jars = [artifact for artifact, _ in parse_listing(listing.read_text(encoding="utf-8"))]
    if not any(jar.coordinates == f"org.neo4j:neo4j:{version}" for jar in jars):
        raise LockError(f"mvn resolved no org.neo4j:neo4j:{version}")
    return jars


def mismatches(jars: Sequence[MavenArtifact], repository: str) -> list[str]:
    """What differs between each jar's digest and the `.sha1` the repository publishes for it."""
    with httpx2.Client(timeout=30.0, follow_redirects=True) as client:

        def check(jar: MavenArtifact) -> str | None:
            url = f"{repository}{jar.path}.sha1"
            response = client.get(url)
            if response.status_code != 200:
                return f"{url}: HTTP {response.status_code}"
            # Some older .sha1 files follow the digest with the file's name.
            published = (response.text.split() or [""])[0].lower()
            return None if published == jar.sha1 else f"{url}: publishes {published}, mvn got {jar.sha1}"

        with ThreadPoolExecutor(8) as pool:
            return [problem for problem in pool.map(check, jars) if problem is not None]


def write_lock(version: str, output: Path, pom: Path = POM) -> int:
    """Resolve, cross-check and write the lock of `version` to `output`; the number of jars."""
    jars = resolve(version, pom)
    repository = repository_url()
    problems = mismatches(jars, repository)
    if problems:
        raise LockError("digests differ from what the repository publishes:\n" + "\n".join(problems))
    header = (
        f"The runtime jars of Neo4j {version}: graph/localdb/pom.xml with <neo4j.version> {version},\n"
        "as `mvn dependency:copy-dependencies -DincludeScope=runtime` resolves it. Each jar is pinned\n"
        f"to its SHA-1 (checked against {repository}) and size in bytes.\n"
        f"Written by `python -m graph.localdb.lockgen {version}`; do not edit by hand.\n"
        "group:artifact:version[:classifier]  sha1  size"
    )
    atomic_write(output, render_lock(jars, header))
    return len(jars)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graph.localdb.lockgen", description=__doc__)
    parser.add_argument("version", help="the Neo4j version, e.g. 2026.08.1")
    parser.add_argument("--output", type=Path, help="where to write (default: locks/neo4j-<version>.txt)")
    args = parser.parse_args(argv)
    output = args.output or lock_path(args.version)
    try:
        count = write_lock(args.version, output)
    except (LockError, OSError, httpx2.HTTPError) as problem:
        print(f"lockgen: {problem}; no lock written", file=sys.stderr)
        return 1
    print(f"{output}: {count} jars")
    return 0


if __name__ == "__main__":
    sys.exit(main())
