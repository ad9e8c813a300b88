"""A stand-in for Maven Central: a local HTTP server over a folder in the repository layout,
answering scripted failures first and recording every path asked for. The tests point
REVERIE_MAVEN_REPOSITORY at it and HOME at an empty folder (no ~/.m2, no download cache)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from graph.maven import REPOSITORY_ENV, MavenArtifact


class FakeRepository:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        # Path below the repository -> HTTP statuses to answer, in turn, before serving the file.
        self.failures: dict[str, list[int]] = {}
        self.url = ""

    def publish(
        self, group: str, artifact: str, version: str, content: bytes, classifier: str = ""
    ) -> MavenArtifact:
        """Serve `content` as that artifact; the artifact comes pinned to its true digest."""
        pinned = pin(group, artifact, version, content, classifier)
        self.put(pinned.path, content)
        return pinned

    def put(self, path: str, content: bytes) -> None:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_bytes(content)


def pin(group: str, artifact: str, version: str, content: bytes, classifier: str = "") -> MavenArtifact:
    return MavenArtifact(
        group=group,
        artifact=artifact,
        version=version,
        classifier=classifier,
        sha1=hashlib.sha1(content).hexdigest(),
        size=len(content),
    )


class _Handler(SimpleHTTPRequestHandler):
    repository: FakeRepository
    prefix = "/maven2/"

    def do_GET(self) -> None:
        path = self.path.removeprefix(self.prefix)
        self.repository.requests.append(path)
        pending = self.repository.failures.get(path)
        if pending:
            self.send_error(pending.pop(0))
            return
        self.path = "/" + path
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test output stays readable


@contextlib.contextmanager
def serving(root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRepository]:
    """A repository served from `root` (at a /maven2 path without its trailing slash, as a
    person might write it), with HOME and the cache moved to empty folders."""
    root.mkdir(parents=True, exist_ok=True)
    repository = FakeRepository(root)
    handler = type("Handler", (_Handler,), {"repository": repository})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    # A short poll, so shutting the server down at the end of each test takes no half second.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    repository.url = f"http://127.0.0.1:{server.server_address[1]}/maven2"
    monkeypatch.setenv(REPOSITORY_ENV, repository.url)
    monkeypatch.setenv("HOME", str(root.parent / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    try:
        yield repository
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class RecordedProgress:
    """A FetchProgress that keeps what it was told."""

    def __init__(self) -> None:
        self.summary = ""
        self.total = -1
        self.done = 0
        self.outcome: str | None = "unfinished"

    def begin(self, summary: str, total_bytes: int) -> None:
        self.summary, self.total = summary, total_bytes

    def advance(self, nbytes: int) -> None:
        self.done += nbytes

    def finish(self, summary: str | None) -> None:
        self.outcome = summary


def files_under(folder: Path) -> list[str]:
    """Every file below `folder` (hidden ones too), relative, sorted."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())
