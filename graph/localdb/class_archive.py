"""A class data sharing archive for Neo4j's JVM, so that a start maps the classes a past run
loaded instead of reading, parsing and verifying them again.

Measured on these two cores (Java 25, 28 November 2026): a start took 7.5 to 10 s and 12 to 14 s of
CPU before Bolt answered; with the archive, 4.6 to 4.8 s and 8 s. The archive is about 120 MB,
one per Neo4j version (in its folder, removed with it) and Java runtime, since a JVM refuses an
archive another runtime or class path wrote (it then runs without one, as before).

A JVM started while no archive exists writes one when it exits (`-XX:ArchiveClassesAtExit`,
Java 13 and later) under a name of its own, recorded in its instance's `run` folder. Once that
instance's JVM has stopped, the file is renamed into place: a JVM of another instance that maps
the archive already never sees the file it maps rewritten. A JVM killed while writing leaves a
file the next one refuses: a JVM told to map an archive it cannot use runs without it and
writes a new one at its exit (`-XX:+AutoCreateSharedArchive`, Java 19 and later; Neo4j needs
21), which no other JVM maps meanwhile, since none can use it either.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Final

from graph.localdb.java import JavaRuntime

ARCHIVES_DIR: Final = "class-archives"
# In an instance's `run` folder: the archive its running JVM writes when it exits.
PENDING_FILE: Final = "class-archive-pending"


def archive_path(java: JavaRuntime, lib_dir: Path) -> Path:
    """Where the archive of this runtime and Neo4j version lives."""
    runtime = hashlib.sha256(f"{java.java.resolve()} {java.major}".encode()).hexdigest()[:16]
    return lib_dir.parent / ARCHIVES_DIR / f"java{java.major}-{runtime}.jsa"


def archive_flags(java: JavaRuntime, lib_dir: Path, run_dir: Path) -> list[str]:
    """The JVM flags that map the archive, or, while there is none, write one at exit."""
    archive = archive_path(java, lib_dir)
    if archive.is_file():
        return [f"-XX:SharedArchiveFile={archive}", "-XX:+AutoCreateSharedArchive"]
    archive.parent.mkdir(parents=True, exist_ok=True)
    pending = archive.with_name(f"{archive.stem}.{uuid.uuid4().hex[:8]}.part")
    (run_dir / PENDING_FILE).write_text(str(pending))
    return [f"-XX:ArchiveClassesAtExit={pending}"]


def settle(run_dir: Path) -> None:
    """Put in place the archive the instance's last JVM wrote; call only once it has exited."""
    record = run_dir / PENDING_FILE
    try:
        pending = Path(record.read_text().strip())
    except FileNotFoundError:
        return
    archive = pending.with_name(pending.name.split(".", 1)[0] + ".jsa")
    if pending.is_file() and pending.stat().st_size > 0 and not archive.exists():
        os.replace(pending, archive)
    pending.unlink(missing_ok=True)
    record.unlink(missing_ok=True)
