"""Fetching pinned artifacts from a Maven repository over HTTPS, for the Neo4j jars and the models.

Every artifact arrives with the SHA-1 and size it has on Maven Central, pinned in this repository
(a lock file per Neo4j version, the model catalog), so what runs is what was reviewed, whoever
serves the bytes. Maven Central is asked unless REVERIE_MAVEN_REPOSITORY names a mirror. A copy
already on this machine is used first: Reverie's download cache, then Maven's local repository
(~/.m2, which holds everything on a developer's machine). A download streams into a temporary
file in the cache that is renamed into place only once its digest matches, so nothing
half-written is ever taken.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import httpx2

log = logging.getLogger(__name__)

DEFAULT_REPOSITORY: Final = "https://repo.maven.apache.org/maven2/"
REPOSITORY_ENV: Final = "REVERIE_MAVEN_REPOSITORY"
# Eight downloads at once: the Neo4j server is over 200 mostly small files, so round trips, not
# bandwidth, bound a serial fetch.
_WORKERS: Final = 8
_ATTEMPTS: Final = 3
_BACKOFF_S: Final = 1.0
_CHUNK: Final = 1 << 16
# Per connect and per read, not per file: a slow but moving download is never cut off.
_TIMEOUT: Final = httpx2.Timeout(30.0)
_SHA1: Final = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True, kw_only=True)
class MavenArtifact:
    """One file of a Maven repository, pinned to the digest and size it has on Maven Central."""

    group: str
    artifact: str
    version: str
    classifier: str = ""
    extension: str = "jar"
    sha1: str
    size: int

    @property
    def coordinates(self) -> str:
        tail = f":{self.classifier}" if self.classifier else ""
        return f"{self.group}:{self.artifact}:{self.version}{tail}"

    @property
    def file_name(self) -> str:
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.{self.extension}"

    @property
    def path(self) -> str:
        """Where the repository layout keeps it, relative to the repository's root."""
        return "/".join([*self.group.split("."), self.artifact, self.version, self.file_name])


class FetchProgress(Protocol):
    """How a surface shows a fetch. Calls come one at a time, from any thread."""

    def begin(self, summary: str, total_bytes: int) -> None:
        """Before anything is fetched: what (e.g. "Neo4j 2026.08.1 server: 226 files, 152 MB")."""

    def advance(self, nbytes: int) -> None:
        """Bytes done since the last call; negative when a failed download starts over."""

    def finish(self, summary: str | None) -> None:
        """After the last file: what was done, or None when the fetch failed."""


class LoggedProgress:
    """A fetch as two log lines, for callers with no progress of their own to show (a server's
    first start, whose stderr is the host's log)."""

    def begin(self, summary: str, total_bytes: int) -> None:
        log.info("Fetching %s", summary)

    def advance(self, nbytes: int) -> None:
        pass  # a log line per chunk would bury the log

    def finish(self, summary: str | None) -> None:
        if summary is not None:
            log.info("%s", summary)


def repository_url() -> str:
    """The repository to download from, ending in a slash."""
    base = os.environ.get(REPOSITORY_ENV, "").strip() or DEFAULT_REPOSITORY
    return base if base.endswith("/") else base + "/"


def reverie_cache() -> Path:
    """The user's cache folder of Reverie's (XDG_CACHE_HOME, else ~/.cache), shared by every
    REVERIE_HOME and checkout: what can be fetched or measured again if it is lost."""
    root = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(root) / "reverie"


def cache_dir() -> Path:
    """Reverie's own download cache, in the repository layout, shared by every REVERIE_HOME.

    Not ~/.m2 itself: that is Maven's, which keeps bookkeeping beside each file
    (_remote.repositories) that Reverie would have to imitate; reading it is enough to reuse
    what Maven already fetched."""
    return reverie_cache() / "maven"


def parse_lock(text: str, source: str) -> list[MavenArtifact]:
    """The jars a lock file pins, one a line: `group:artifact:version[:classifier]  sha1  size`;
    blank lines and lines starting with `#` are skipped. ValueError names a malformed line."""
    artifacts = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        coordinates = fields[0].split(":") if len(fields) == 3 else []
        if len(coordinates) not in (3, 4) or not _SHA1.fullmatch(fields[1]) or not fields[2].isdigit():
            raise ValueError(f"{source}:{number} is not `group:artifact:version[:classifier]  sha1  size`")
        group, artifact, version, *classifier = coordinates
        artifacts.append(
            MavenArtifact(
                group=group,
                artifact=artifact,
                version=version,
                classifier=classifier[0] if classifier else "",
                sha1=fields[1],
                size=int(fields[2]),
            )
        )
    return artifacts


def render_lock(artifacts: Sequence[MavenArtifact], header: str) -> str:
    """A lock file `parse_lock` reads back: `header` as comments, then the jars sorted."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    ordered = sorted(artifacts, key=lambda artifact: artifact.coordinates)
    lines += [f"{artifact.coordinates}  {artifact.sha1}  {artifact.size}" for artifact in ordered]
    return "\n".join(lines) + "\n"


def file_sha1(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha1").hexdigest()


def fetch_artifacts(
    artifacts: Sequence[MavenArtifact],
    dest: Path,
    *,
    what: str,
    error: type[Exception],
    progress: FetchProgress | None = None,
    prepend_group: bool = False,
    otherwise: str = "",
) -> list[Path]:
    """Each artifact as a verified file in `dest`, named as in the repository or, with
    `prepend_group`, as `<group>.<file name>` (Maven's copy-dependencies with prependGroupId).

    `what` names the whole in the progress; `error` is raised, saying what to do, with `otherwise`
    ending the advice (another way out). A failed fetch can leave some complete files in `dest`,
    never a partial one."""
    shown = progress or LoggedProgress()
    total = sum(artifact.size for artifact in artifacts)
    shown.begin(f"{what}: {_files(len(artifacts))}, {_megabytes(total)}", total)
    started = time.monotonic()
    try:
        repository = repository_url()
        if not repository.startswith(("https://", "http://")):
            raise error(f"{REPOSITORY_ENV}={repository} is not an https:// address{otherwise}")
        dest.mkdir(parents=True, exist_ok=True)
        with httpx2.Client(timeout=_TIMEOUT, follow_redirects=True) as client:
            run = _Fetch(client, repository, error, otherwise, shown)
            paths = run.fetch_all(artifacts, dest, prepend_group)
    except BaseException:
        shown.finish(None)
        raise
    source = f"{run.downloaded} downloaded from {run.repository}" if run.downloaded else "all on this machine"
    shown.finish(f"{what}: {_files(len(artifacts))} ready in {time.monotonic() - started:.1f} s ({source})")
    return paths


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.0f} MB" if size >= 10_000_000 else f"{size / 1_000_000:.1f} MB"


class _Transient(Exception):
    """A download failure worth another attempt: the network, or the server's own trouble."""


class _Stopped(Exception):
    """Another download of the same fetch failed (or was interrupted): give up this one."""


class _Fetch:
    """One fetch's shared state across its download threads."""

    def __init__(
        self,
        client: httpx2.Client,
        repository: str,
        error: type[Exception],
        otherwise: str,
        progress: FetchProgress,
    ) -> None:
        self.client = client
        self.repository = repository
        self.error = error
        self.otherwise = otherwise
        self.progress = progress
        self.cache = cache_dir()
        self.downloaded = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def fetch_all(self, artifacts: Sequence[MavenArtifact], dest: Path, prepend_group: bool) -> list[Path]:
        targets = [dest / (f"{a.group}.{a.file_name}" if prepend_group else a.file_name) for a in artifacts]
        with ThreadPoolExecutor(_WORKERS, thread_name_prefix="maven-fetch") as pool:
            futures = [pool.submit(self.fetch_one, a, t) for a, t in zip(artifacts, targets, strict=True)]
            try:
                wait(futures, return_when=FIRST_EXCEPTION)
                _raise_first_failure(futures)
                return [future.result() for future in futures]
            finally:
                # On a failure (or Ctrl-C) the downloads under way stop at their next chunk.
                self._stop.set()
                for future in futures:
                    future.cancel()

    def fetch_one(self, artifact: MavenArtifact, target: Path) -> Path:
        try:
            local = self._on_this_machine(artifact)
            if local is not None:
                _place(local, target, link=local.is_relative_to(self.cache))
                return target
            _place(self._download(artifact), target, link=True)
        except OSError as problem:
            raise self.error(
                f"could not store {artifact.coordinates} ({problem}); free some disk space or fix "
                f"the permissions of {self.cache} and {target.parent}, and retry{self.otherwise}"
            ) from problem
        except httpx2.HTTPError as problem:  # what is not worth a retry, such as a redirect loop
            raise self.error(
                f"could not download {artifact.coordinates} from {self.repository} ({problem}); "
                f"check {REPOSITORY_ENV} and retry{self.otherwise}"
            ) from problem
        with self._lock:
            self.downloaded += 1
        return target

    def _advance(self, nbytes: int) -> None:
        with self._lock:
            self.progress.advance(nbytes)

    def _on_this_machine(self, artifact: MavenArtifact) -> Path | None:
        for root in (self.cache, Path.home() / ".m2" / "repository"):
            candidate = root / artifact.path
            if _matches(candidate, artifact):
                self._advance(artifact.size)
                return candidate
        return None

    def _download(self, artifact: MavenArtifact) -> Path:
        url = self.repository + artifact.path
        target = self.cache / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, _ATTEMPTS):
            try:
                return self._download_once(url, artifact, target)
            except _Transient as problem:
                log.info("Retrying %s after %s", url, problem)
                if self._stop.wait(_BACKOFF_S * attempt):
                    raise _Stopped from None
        try:
            return self._download_once(url, artifact, target)
        except _Transient as problem:
            raise self.error(
                f"could not download {url} ({problem}, {_ATTEMPTS} attempts); check the network, "
                f"or set {REPOSITORY_ENV} to a reachable mirror, and retry{self.otherwise}"
            ) from None

    def _download_once(self, url: str, artifact: MavenArtifact, target: Path) -> Path:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would follow the jar into every lib dir it is linked to
        part, written, digest = Path(name), 0, hashlib.sha1(usedforsecurity=False)
        kept = False
        try:
            with os.fdopen(fd, "wb") as out, self.client.stream("GET", url) as response:
                self._check_status(response, url, artifact)
                for chunk in response.iter_bytes(_CHUNK):
                    if self._stop.is_set():
                        raise _Stopped
                    out.write(chunk)
                    digest.update(chunk)
                    written += len(chunk)
                    self._advance(len(chunk))
                    if written > artifact.size:
                        break  # a wrong file could be any size; the check below names it
            self._check_digest(url, artifact, digest.hexdigest(), written)
            os.replace(part, target)
            kept = True
            return target
        except httpx2.TransportError as problem:
            raise _Transient(str(problem) or type(problem).__name__) from problem
        finally:
            part.unlink(missing_ok=True)
            if not kept:
                self._advance(-written)

    def _check_status(self, response: httpx2.Response, url: str, artifact: MavenArtifact) -> None:
        status = response.status_code
        if status == 200:
            return
        if status == 429 or status >= 500:
            raise _Transient(f"HTTP {status}")
        mirror = self.repository != DEFAULT_REPOSITORY
        advice = (
            f"check that {REPOSITORY_ENV}={self.repository} mirrors Maven Central"
            if mirror
            else "Maven Central keeps every release, so a proxy between may have answered; retry later"
        )
        raise self.error(
            f"{artifact.coordinates} could not be downloaded: {url} answered HTTP {status} "
            f"{response.reason_phrase}; {advice}{self.otherwise}"
        )

    def _check_digest(self, url: str, artifact: MavenArtifact, sha1: str, size: int) -> None:
        if sha1 == artifact.sha1 and size == artifact.size:
            return
        got = f"sha1 {sha1} ({size} bytes)" if size <= artifact.size else f"over {artifact.size} bytes"
        raise self.error(
            f"{url} is not the file Reverie pins for {artifact.coordinates}: expected sha1 "
            f"{artifact.sha1} ({artifact.size} bytes), got {got}. Nothing of it was kept. Retry; if "
            f"it happens again, the repository ({self.repository}) serves other bytes than Maven "
            f"Central published: point {REPOSITORY_ENV} at a faithful mirror, or report it{self.otherwise}"
        )


def _raise_first_failure(futures: Sequence[Future[Path]]) -> None:
    failures = [
        problem
        for future in futures
        if future.done() and not future.cancelled() and (problem := future.exception()) is not None
    ]
    if failures:
        # A download that only stopped because another failed is not the cause worth showing.
        raise next((p for p in failures if not isinstance(p, _Stopped)), failures[0])


def _matches(path: Path, artifact: MavenArtifact) -> bool:
    try:
        return path.stat().st_size == artifact.size and file_sha1(path) == artifact.sha1
    except OSError:
        return False


def _place(source: Path, target: Path, *, link: bool) -> None:
    """`source` at `target`: a hard link from Reverie's own cache (no second copy on disk, and a
    cleared cache leaves it intact), a copy of anything else (~/.m2 is Maven's to change)."""
    target.unlink(missing_ok=True)
    if link:
        try:
            os.link(source, target)
            return
        except OSError:
            pass  # another file system, or one without hard links: copy instead
    shutil.copyfile(source, target)
