"""Fetching artifacts from Maven Central with `mvn`, for the Neo4j jars and the embedding models.

Maven checksums what it downloads, caches it in ~/.m2 for every checkout, and honours a mirror
in ~/.m2/settings.xml, so both installs hand it the work through its dependency plugin.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final

_DEPENDENCY_PLUGIN: Final = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_TIMEOUT_S: Final = 1800
_TAIL_LINES: Final = 40


def fetch_with_maven(
    goal: str,
    output: Path,
    expected: str,
    *,
    what: str,
    error: type[Exception],
    properties: Mapping[str, str] | None = None,
    pom: Path | None = None,
    otherwise: str = " and retry",
) -> Path:
    """`output / expected`, after the dependency plugin's `goal` (with `properties` and the
    project `pom`, if any) has written into `output`. `error` carries what went wrong, saying
    what to do: `what` names what is fetched, `otherwise` ends the advice when mvn is missing.
    """
    mvn = shutil.which("mvn")
    if mvn is None:
        raise error(
            f"Maven (`mvn`) is not on PATH; Reverie uses it to fetch {what} from Maven Central. "
            f"Install Maven 3.6+ (e.g. `apt-get install maven`){otherwise}."
        )
    options = {**(properties or {}), "outputDirectory": str(output)}
    command = [
        mvn,
        "-B",
        "--no-transfer-progress",
        *(["-f", str(pom)] if pom is not None else []),
        f"{_DEPENDENCY_PLUGIN}:{goal}",
        *(f"-D{name}={value}" for name, value in options.items()),
    ]
    try:
        # Run in `output` so that no pom.xml in the caller's directory becomes the project.
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
            cwd=output,
        )
    except subprocess.TimeoutExpired:
        raise error(
            f"mvn took over {_TIMEOUT_S // 60} min fetching {what}; check the network and retry"
        ) from None
    fetched = output / expected
    if done.returncode != 0 or not fetched.is_file():
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-_TAIL_LINES:])
        raise error(
            f"mvn failed (exit {done.returncode}) fetching {what}. Check access to Maven Central "
            f"(or the mirror in ~/.m2/settings.xml) and retry. Last lines of its output:\n{tail}"
        )
    return fetched
