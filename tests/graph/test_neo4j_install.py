"""Installing the Neo4j jars a lock file pins, and writing such a lock: a local HTTP server stands
in for Maven Central, a fake `mvn` for Maven."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import graph.localdb.install
from graph.localdb import LocalNeo4jError
from graph.localdb.config import POM
from graph.localdb.install import install_jars, jars_installed, server_jars
from graph.localdb.lockgen import LockError, parse_listing, pom_for, write_lock
from graph.maven import MavenArtifact, parse_lock, render_lock
from tests.graph.maven_support import FakeRepository, files_under, serving

pytestmark = pytest.mark.unit

VERSION = "9.9.9"


@pytest.fixture
def central(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRepository]:
    with serving(tmp_path / "central", monkeypatch) as repository:
        yield repository


@pytest.fixture
def locked(central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[MavenArtifact]:
    """Neo4j 9.9.9: two jars published, pinned by a lock in a folder of locks of its own."""
    jars = [
        central.publish("org.neo4j", "neo4j", VERSION, b"the server"),
        central.publish("io.netty", "netty-epoll", "1.0", b"native", classifier="linux-x86_64"),
    ]
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / f"neo4j-{VERSION}.txt").write_text(render_lock(jars, "A test lock."))
    monkeypatch.setattr(graph.localdb.install, "LOCKS", locks)
    return jars


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    version_dir = tmp_path / "reverie" / "neo4j" / VERSION
    return version_dir / "lib", version_dir / "install-complete.json"


def test_install_fetches_the_locked_jars_into_staging_then_marks(
    locked: list[MavenArtifact], central: FakeRepository, tmp_path: Path
) -> None:
    lib_dir, marker = _dirs(tmp_path)
    # Leftovers of an interrupted install: a staging dir and an unmarked lib dir.
    (lib_dir.parent / "lib.partial-old").mkdir(parents=True)
    lib_dir.mkdir()
    (lib_dir / "stale.jar").touch()
    assert install_jars(lib_dir, marker, version=VERSION) == lib_dir
    assert install_jars(lib_dir, marker, version=VERSION) == lib_dir
    assert len(central.requests) == 2, "the second install found the marker"
    # Named as copy-dependencies with prependGroupId named them: config.jvm_command takes lib/*.
    assert sorted(path.name for path in lib_dir.iterdir()) == [
        "io.netty.netty-epoll-1.0-linux-x86_64.jar",
        f"org.neo4j.neo4j-{VERSION}.jar",
    ]
    assert json.loads(marker.read_text()) == {"version": VERSION, "jars": 2}
    assert not list(lib_dir.parent.glob("lib.partial-*"))


def test_install_is_instant_once_marked(tmp_path: Path) -> None:
    lib_dir, marker = _dirs(tmp_path)
    lib_dir.mkdir(parents=True)
    marker.write_text("{}")
    assert install_jars(lib_dir, marker, version="0.0.0-no-lock") == lib_dir


def test_a_failed_install_leaves_nothing(
    locked: list[MavenArtifact], central: FakeRepository, tmp_path: Path
) -> None:
    (central.root / locked[1].path).unlink()
    lib_dir, marker = _dirs(tmp_path)
    with pytest.raises(LocalNeo4jError, match=r"netty-epoll:1\.0:linux-x86_64 could not be downloaded"):
        install_jars(lib_dir, marker, version=VERSION)
    assert not jars_installed(lib_dir, marker) and not lib_dir.exists()
    assert files_under(lib_dir.parent) == [".install.lock"]


def test_a_version_without_a_lock_says_how_to_write_one(tmp_path: Path) -> None:
    lib_dir, marker = _dirs(tmp_path)
    with pytest.raises(LocalNeo4jError, match=r"python -m graph\.localdb\.lockgen 0\.0\.0-no-lock"):
        install_jars(lib_dir, marker, version="0.0.0-no-lock")


def test_a_damaged_lock_asks_for_a_reinstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / f"neo4j-{VERSION}.txt").write_text("org.neo4j:neo4j:9.9.9\n")
    monkeypatch.setattr(graph.localdb.install, "LOCKS", tmp_path)
    with pytest.raises(LocalNeo4jError, match=r"neo4j-9\.9\.9\.txt:1 is not .*; reinstall Reverie"):
        server_jars(VERSION)


def test_the_pom_gets_the_version_asked_for() -> None:
    pom = pom_for("2026.08.1", POM.read_text())
    assert "<neo4j.version>2026.08.1</neo4j.version>" in pom
    assert pom.count("neo4j.version") == POM.read_text().count("neo4j.version")
    with pytest.raises(LockError, match=r"has 0 <neo4j\.version> properties"):
        pom_for("1", "<project/>")


def _jar(folder: Path, name: str, content: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(content)
    return folder / name


def test_a_listing_names_each_jar_with_its_digest(tmp_path: Path) -> None:
    server = _jar(tmp_path, "neo4j.jar", b"the server")
    epoll = _jar(tmp_path, "epoll.jar", b"native")
    listing = (
        "\nThe following files have been resolved:\n"
        f"   org.neo4j:neo4j:jar:{VERSION}:compile:{server} -- module org.neo4j.community [auto]\n"
        f"   io.netty:netty-epoll:jar:linux-x86_64:1.0:runtime:{epoll}\n"
    )
    [(first, first_path), (second, _)] = parse_listing(listing)
    assert first.coordinates == f"org.neo4j:neo4j:{VERSION}" and first_path == server
    assert second.coordinates == "io.netty:netty-epoll:1.0:linux-x86_64" and second.size == 6


def _fake_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str) -> None:
    """An `mvn` that writes `listing` to the file its -DoutputFile names."""
    script = tmp_path / "bin" / "mvn"
    script.parent.mkdir()
    (tmp_path / "listing.txt").write_text(listing)
    script.write_text(
        '#!/bin/sh\nfor arg in "$@"; do case "$arg" in\n'
        f'  -DoutputFile=*) cp "{tmp_path / "listing.txt"}" "${{arg#-DoutputFile=}}";;\n'
        "esac; done\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{script.parent}:{os.environ['PATH']}")


def _resolved(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[MavenArtifact]:
    """Two jars Maven 'resolved' (in a fake local repository), published with their .sha1."""
    jars = [
        central.publish("org.neo4j", "neo4j", VERSION, b"the server"),
        central.publish("io.netty", "netty-epoll", "1.0", b"native", classifier="linux-x86_64"),
    ]
    for jar in jars:
        central.put(jar.path + ".sha1", f"{jar.sha1}  {jar.file_name}\n".encode())
    server = _jar(tmp_path / "m2", "neo4j.jar", b"the server")
    epoll = _jar(tmp_path / "m2", "epoll.jar", b"native")
    _fake_mvn(
        tmp_path,
        monkeypatch,
        f"   org.neo4j:neo4j:jar:{VERSION}:compile:{server}\n"
        f"   io.netty:netty-epoll:jar:linux-x86_64:1.0:runtime:{epoll}\n",
    )
    return jars


def test_a_lock_is_written_when_every_digest_matches_the_published_one(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jars = _resolved(central, tmp_path, monkeypatch)
    output = tmp_path / "neo4j-lock.txt"
    assert write_lock(VERSION, output) == 2
    assert parse_lock(output.read_text(), "lock") == sorted(jars, key=lambda jar: jar.coordinates)
    assert f"python -m graph.localdb.lockgen {VERSION}" in output.read_text()


def test_no_lock_is_written_when_a_published_digest_differs(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jars = _resolved(central, tmp_path, monkeypatch)
    central.put(jars[1].path + ".sha1", b"0" * 40)
    output = tmp_path / "neo4j-lock.txt"
    with pytest.raises(
        LockError, match=rf"{jars[1].file_name}\.sha1: publishes 0{{40}}, mvn got {jars[1].sha1}"
    ):
        write_lock(VERSION, output)
    assert not output.exists()
