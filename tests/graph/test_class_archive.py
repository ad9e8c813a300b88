"""Neo4j's JVM maps a class archive a past run wrote, and an archive is only ever put in place
whole, by a rename once the JVM that wrote it has exited."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from graph.localdb import LocalNeo4j, class_archive
from graph.localdb.java import JavaRuntime, find_java
from graph.localdb.memory import NAMED_SIZES


def test_a_second_start_maps_the_archive_a_stopped_jvm_wrote() -> None:
    local = LocalNeo4j(LocalNeo4j.default_home(), f"archive-{uuid.uuid4().hex[:8]}", NAMED_SIZES["small"])
    archive = class_archive.archive_path(find_java(), local.lib_dir)
    try:
        if not archive.is_file():  # no JVM of this version and runtime has stopped here yet
            local.start()
            local.stop()
        # Written by this instance's first JVM, or by any other before it: in place either way.
        assert archive.is_file()
        pid = local.start().pid
        assert pid is not None
        assert str(archive) in Path(f"/proc/{pid}/maps").read_text(), "the JVM did not map the archive"
    finally:
        local.stop()
        shutil.rmtree(local.instance_dir, ignore_errors=True)


@pytest.mark.unit
def test_an_archive_goes_in_place_only_whole_and_never_over_another(tmp_path: Path) -> None:
    lib_dir, run_dir = tmp_path / "lib", tmp_path / "run"
    lib_dir.mkdir()
    run_dir.mkdir()
    java = JavaRuntime(tmp_path / "java", 21, "test")
    # No archive yet: the JVM is told to write one under a name of its own.
    [flag] = class_archive.archive_flags(java, lib_dir, run_dir)
    pending = Path(flag.removeprefix("-XX:ArchiveClassesAtExit="))
    archive = class_archive.archive_path(java, lib_dir)
    assert pending.parent == archive.parent and pending != archive
    # A JVM that wrote nothing (killed before its exit) leaves nothing in place.
    class_archive.settle(run_dir)
    assert not archive.exists()
    # One that wrote it: renamed into place, and the next JVM maps it.
    [flag] = class_archive.archive_flags(java, lib_dir, run_dir)
    Path(flag.removeprefix("-XX:ArchiveClassesAtExit=")).write_bytes(b"classes")
    class_archive.settle(run_dir)
    assert archive.read_bytes() == b"classes"
    assert class_archive.archive_flags(java, lib_dir, run_dir)[0] == f"-XX:SharedArchiveFile={archive}"
    # Another instance's JVM, started before there was one, wrote its own: the first stays.
    other_run = tmp_path / "other-run"
    other_run.mkdir()
    late = archive.with_name(f"{archive.stem}.late.part")
    late.write_bytes(b"other classes")
    (other_run / class_archive.PENDING_FILE).write_text(str(late))
    class_archive.settle(other_run)
    class_archive.settle(run_dir)  # twice, or with no JVM recorded: nothing
    assert archive.read_bytes() == b"classes" and list(archive.parent.iterdir()) == [archive]
