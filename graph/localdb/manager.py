"""One named local Neo4j Community instance under REVERIE_HOME: start, stop, status, credentials.

Jars are shared between instances (`install.py`); each instance has its own conf, data and logs.
What it runs with is in `config.py`, how its process is told apart in `processes.py`, its state
and lock files in `files.py`.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError

from graph.localdb import class_archive
from graph.localdb.config import (
    ADMIN_CLASS,
    INSTANCE_SUBDIRS,
    NEO4J_VERSION,
    USERNAME,
    bolt_uri,
    configured_port,
    default_home,
    java_env,
    jvm_command,
    render_config,
)
from graph.localdb.errors import LocalNeo4jError
from graph.localdb.files import (
    LOG_TAIL_LINES,
    RunState,
    atomic_write,
    exclusive,
    read_state,
    tail,
    write_state,
)
from graph.localdb.idle import launch_watcher, register_user, users
from graph.localdb.install import install_jars, jars_installed
from graph.localdb.java import find_java
from graph.localdb.memory import DEFAULT_MEMORY, Neo4jMemory
from graph.localdb.processes import (
    await_start,
    exit_meaning,
    find_server,
    is_neo4j_process,
    launch,
    terminate,
)
from graph.localdb.store import backup_folder, record_version, stored_version
from graph.localdb.tuning import Neo4jTuning
from graph.maven import FetchProgress
from graph.ports import LOOPBACK, bind_problem, free_port

log = logging.getLogger(__name__)

_INSTANCE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# A dump of a large store before an upgrade can take a while.
ADMIN_TIMEOUT_S: Final = 1800


@dataclass(frozen=True)
class LocalNeo4jStatus:
    installed: bool
    running: bool
    pid: int | None
    bolt_uri: str | None
    version: str
    instance_dir: Path
    java: str
    stop_when_idle_s: float | None = None

    def describe(self) -> str:
        head = f"Neo4j {self.version} (instance '{self.instance_dir.name}')"
        where = f"\n  files: {self.instance_dir}\n  java: {self.java}"
        if self.running:
            until = (
                f"stops after {self.stop_when_idle_s:.0f} s unused by Reverie"
                if self.stop_when_idle_s
                else "runs until `reverie neo4j stop`"
            )
            return f"{head}: running, pid {self.pid}, at {self.bolt_uri or 'an unknown port'}, {until}{where}"
        jars = "jars installed" if self.installed else "jars not installed yet"
        return f"{head}: not running ({jars}){where}"


@dataclass(frozen=True)
class LocalCredentials:
    uri: str
    username: str
    password: str


def _bolt_answers(uri: str, password: str) -> bool:
    try:
        with GraphDatabase.driver(uri, auth=(USERNAME, password), connection_timeout=2.0) as driver:
            driver.verify_connectivity()
            # A plain session, not execute_query: that one retries for 30 s while starting.
            with driver.session() as session:
                session.run("RETURN 1").consume()
        return True
    except AuthError as exc:
        raise LocalNeo4jError(
            f"Neo4j at {uri} rejected the stored password ({exc.message}). The password file no "
            "longer matches the database: restore it, or stop Neo4j and delete the instance's "
            "data dir to start afresh."
        ) from exc
    except (DriverError, Neo4jError, OSError):
        return False


def _java_in_use() -> str:
    try:
        return find_java().describe()
    except LocalNeo4jError as exc:  # status must still answer on a machine with no usable Java
        return str(exc)


class LocalNeo4j:
    """One named Neo4j instance under REVERIE_HOME; jars are shared between instances."""

    def __init__(
        self,
        home: Path,
        instance: str = "default",
        memory: Neo4jMemory = DEFAULT_MEMORY,
        tuning: Neo4jTuning | None = None,
    ) -> None:
        """`memory` and `tuning` (REVERIE_NEO4J_TUNING when not given) are what a start launches
        the server with; one already running keeps its own."""
        if not _INSTANCE_NAME.fullmatch(instance):
            raise ValueError(f"instance name {instance!r} must be letters, digits, '.', '_', '-'")
        self.home = home.expanduser().resolve()
        self.instance = instance
        self.memory = memory
        self.tuning = tuning or Neo4jTuning.from_environment()
        self.version_dir = self.home / "neo4j" / NEO4J_VERSION
        self.lib_dir = self.version_dir / "lib"
        self.install_marker = self.version_dir / "install-complete.json"
        self.instance_dir = self.home / "neo4j" / "instances" / instance
        self.conf_file = self.instance_dir / "conf" / "neo4j.conf"
        self.run_dir = self.instance_dir / "run"
        self.state_file = self.run_dir / "reverie-neo4j.json"
        self.password_file = self.instance_dir / "password"
        self.console_log = self.instance_dir / "logs" / "console.log"
        self.lock_file = self.instance_dir / ".lock"
        self.watcher_log = self.instance_dir / "logs" / "idle-watcher.log"

    @classmethod
    def default_home(cls) -> Path:
        env = os.environ.get("REVERIE_HOME")
        return Path(env).expanduser() if env else default_home()

    def is_installed(self) -> bool:
        return jars_installed(self.lib_dir, self.install_marker)

    def install(self, progress: FetchProgress | None = None) -> Path:
        """Fetch the server jars into the shared lib dir; instant once complete."""
        return install_jars(self.lib_dir, self.install_marker, progress=progress)

    def start(
        self, bolt_port: int | None = None, wait_seconds: float = 180.0, stop_when_idle: float | None = None
    ) -> LocalNeo4jStatus:
        """Start this instance, or return the one already running; wait until Bolt answers.

        With `stop_when_idle` (seconds), a server this call launches is stopped once no process
        that `use`d it has lived for that long (`graph.localdb.idle`). Without it, the server is
        kept running until `stop`, even one an earlier call started with an idle time."""
        self.install()
        for sub in INSTANCE_SUBDIRS:
            (self.instance_dir / sub).mkdir(parents=True, exist_ok=True)
        with exclusive(self.lock_file):
            running = self._running_state()
            if running is not None and running.version != NEO4J_VERSION:
                # Started by an earlier Reverie: it holds the store this version must back up
                # and upgrade, so it is stopped cleanly first.
                log.warning(
                    "stopping Neo4j %s (pid %d) to start %s", running.version, running.pid, NEO4J_VERSION
                )
                terminate(running.pid, self.instance_dir, timeout=60.0)
                running = None
            if running is not None:
                if bolt_port is not None and running.port != bolt_port:
                    raise LocalNeo4jError(
                        f"instance '{self.instance}' already runs on port {running.port}, not "
                        f"{bolt_port}; stop it first to change the port"
                    )
                self._wait_for_bolt(running, wait_seconds, log_offset=None)
                if stop_when_idle is None:
                    running = replace(running, stop_when_idle_s=None)
                if read_state(self.state_file) != running:  # found by scan, or now kept: record it
                    write_state(self.state_file, running)
                return self.status()
            return self._start_locked(bolt_port, wait_seconds, stop_when_idle)

    def use(self, stop_when_idle: float | None) -> LocalCredentials:
        """For a Reverie process that works on this instance until it exits: count it as a user,
        start the server if it is not running (to be stopped after `stop_when_idle` seconds
        unused, if given) and return where to reach it."""
        # Counted before the start, so a watcher about to stop the server sees this process.
        register_user(self.instance_dir)
        self.start(stop_when_idle=stop_when_idle)
        return self.credentials()

    def watch_idle(self, pid: int, idle_seconds: float, interval: float) -> str:
        """Stop the server `pid` once no user has held it for `idle_seconds`; say why it ended."""
        idle_since: float | None = None
        while True:
            state = read_state(self.state_file)
            if state is None or state.pid != pid or not is_neo4j_process(pid, self.instance_dir):
                return f"Neo4j pid {pid} was stopped or replaced by another process"
            if state.stop_when_idle_s is None:
                return f"Neo4j pid {pid} is kept running (`reverie neo4j start`)"
            if users(self.instance_dir):
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since >= idle_seconds and self._stop_unused(pid):
                return f"stopped Neo4j pid {pid}: no Reverie process used it for {idle_seconds:.0f} s"
            time.sleep(interval)

    def _stop_unused(self, pid: int) -> bool:
        with exclusive(self.lock_file):
            # Under the lock a process starting the server waits for, so none slips in between.
            state = read_state(self.state_file)
            if (
                state is None
                or state.pid != pid
                or state.stop_when_idle_s is None
                or users(self.instance_dir)
            ):
                return False
            terminate(pid, self.instance_dir, timeout=60.0)
            self._stopped()
            return True

    def _start_locked(
        self, bolt_port: int | None, wait_seconds: float, stop_when_idle: float | None
    ) -> LocalNeo4jStatus:
        self.state_file.unlink(missing_ok=True)
        port = self._choose_port(bolt_port)
        atomic_write(
            self.conf_file,
            render_config(
                instance_dir=self.instance_dir,
                lib_dir=self.lib_dir,
                bolt_port=port,
                memory=self.memory,
                tuning=self.tuning,
            ),
        )
        self._ensure_password()
        stored = stored_version(self.instance_dir)
        if stored is not None and stored != NEO4J_VERSION:
            self._back_up(stored)
        pid, log_offset = self._launch()
        state = RunState(
            pid=pid,
            port=port,
            version=NEO4J_VERSION,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            stop_when_idle_s=stop_when_idle,
        )
        write_state(self.state_file, state)
        try:
            self._wait_for_bolt(state, wait_seconds, log_offset)
        except BaseException:
            # Never leave a server this call launched holding the store lock behind an error.
            terminate(pid, self.instance_dir, timeout=30.0)
            self.state_file.unlink(missing_ok=True)
            raise
        record_version(self.instance_dir, NEO4J_VERSION)
        if stop_when_idle is not None:
            launch_watcher(self.home, self.instance, pid, stop_when_idle, self.watcher_log)
        return self.status()

    def _back_up(self, stored: str) -> None:
        """Dump every database before this version upgrades a store `stored` wrote; a failed
        dump stops the start with the store untouched."""
        target = backup_folder(self.instance_dir, stored)
        staging = target.with_name(target.name + ".partial")
        staging.mkdir(parents=True)
        log.warning("Neo4j %s opens a store of %s: backing it up to %s first", NEO4J_VERSION, stored, target)
        try:
            dump = ("database", "dump", "*", f"--to-path={staging}")
            self._admin(f"backing up the Neo4j {stored} store", *dump)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        staging.rename(target)

    def _choose_port(self, requested: int | None) -> int:
        if requested is not None:
            if bind_problem(LOOPBACK, requested) is not None:
                raise LocalNeo4jError(
                    f"port {requested} on 127.0.0.1 is in use; pick another "
                    "port, or pass none to get a free one"
                )
            return requested
        last = configured_port(self.conf_file)
        if last is not None and bind_problem(LOOPBACK, last) is None:
            return last  # stable across restarts, so clients configured once keep working
        return free_port()

    def _ensure_password(self) -> None:
        # Neo4j reads data/dbms/auth.ini only when it creates the system database, so the
        # password can be set only before the very first start.
        if (self.instance_dir / "data" / "databases" / "system").exists():
            if not self.password_file.is_file():
                raise LocalNeo4jError(
                    f"{self.password_file} is missing but the instance already has data, so its "
                    f"password is unknown. Restore the file, or delete {self.instance_dir / 'data'} "
                    "to start with an empty database."
                )
            return
        if not self.password_file.is_file():
            # Hex, not token_urlsafe: picocli would read a leading "-" as an option.
            atomic_write(self.password_file, secrets.token_hex(24) + "\n", mode=0o600)
        # "@file" is expanded by picocli, which keeps the password out of `ps` listings.
        password = ("dbms", "set-initial-password", f"@{self.password_file}")
        self._admin("setting the initial Neo4j password", *password)

    def _admin(self, doing: str, *arguments: str) -> None:
        """Run neo4j-admin on this (stopped) instance; `doing` names the task in its error."""
        env = java_env(NEO4J_HOME=str(self.instance_dir), NEO4J_CONF=str(self.conf_file.parent))
        java = find_java()
        cmd = [str(java.java), "--enable-native-access=ALL-UNNAMED", "-cp", f"{self.lib_dir}/*", ADMIN_CLASS]
        done = subprocess.run(
            [*cmd, *arguments],
            env=env,
            cwd=self.instance_dir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=ADMIN_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            output = "\n".join((done.stdout + done.stderr).splitlines()[-LOG_TAIL_LINES:])
            raise LocalNeo4jError(
                f"{doing} failed (exit {done.returncode}) with {java.describe()} and "
                f"{self.lib_dir}. Output:\n{output}"
            )

    def _password(self) -> str:
        try:
            return self.password_file.read_text().strip()
        except OSError as exc:
            raise LocalNeo4jError(f"cannot read {self.password_file}: {exc}") from exc

    def _launch(self) -> tuple[int, int]:
        """Start the JVM detached; return its pid and where this run's console output begins."""
        java = find_java()
        # The JVM this instance ran last has exited (this runs under the instance's lock), even
        # one that died on its own or that an older Reverie stopped.
        class_archive.settle(self.run_dir)
        archive = class_archive.archive_flags(java, self.lib_dir, self.run_dir)
        cmd = jvm_command(java, self.lib_dir, self.instance_dir, self.memory, archive, self.tuning)
        offset = self.console_log.stat().st_size if self.console_log.exists() else 0
        with self.console_log.open("ab") as log:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            log.write(f"--- reverie: starting Neo4j {NEO4J_VERSION} at {stamp} ---\n".encode())
            log.flush()
            pid = launch(cmd, self.instance_dir, java_env(), log)
        return pid, offset

    def _wait_for_bolt(self, state: RunState, wait_seconds: float, log_offset: int | None) -> None:
        if state.port is None:
            raise LocalNeo4jError(
                f"instance '{self.instance}' runs (pid {state.pid}) but its "
                "port is unknown; stop it and start again"
            )
        uri, password = bolt_uri(state.port), self._password()
        outcome = await_start(
            lambda: _bolt_answers(uri, password),
            lambda: is_neo4j_process(state.pid, self.instance_dir),
            wait_seconds,
            interval=0.25,
        )
        if outcome == "exited":
            raise LocalNeo4jError(self._exit_message(state.pid, log_offset))
        if outcome == "late":
            raise LocalNeo4jError(
                f"Neo4j (pid {state.pid}) did not answer on {uri} within {wait_seconds:.0f}s; "
                "on a slow machine retry with a longer wait, else see the log. Last "
                f"lines of {self.console_log}:\n{tail(self.console_log, log_offset or 0)}"
            )

    def _exit_message(self, pid: int, log_offset: int | None) -> str:
        return (
            f"Neo4j {NEO4J_VERSION} (instance '{self.instance}', pid {pid}) {exit_meaning(pid)} "
            f"during startup. Fix the cause and start again. Last lines of "
            f"{self.console_log}:\n{tail(self.console_log, log_offset or 0)}"
        )

    def _running_state(self) -> RunState | None:
        state = read_state(self.state_file)
        if state is not None and is_neo4j_process(state.pid, self.instance_dir):
            return state
        pid = find_server(self.instance_dir)
        if pid is None:
            return None
        # Found by its command line alone: it serves the version that last opened the store.
        version = stored_version(self.instance_dir) or NEO4J_VERSION
        return RunState(pid=pid, port=configured_port(self.conf_file), version=version, started_at="unknown")

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop this instance cleanly; return whether it was running."""
        if not self.instance_dir.is_dir():
            return False
        with exclusive(self.lock_file):
            state = self._running_state()
            if state is not None:
                terminate(state.pid, self.instance_dir, timeout)
            self._stopped()
            return state is not None

    def _stopped(self) -> None:
        """After this instance's JVM has exited (under the lock): it no longer runs, and the class
        archive it wrote at its exit, if any, takes its place for the next start of any instance."""
        self.state_file.unlink(missing_ok=True)
        class_archive.settle(self.run_dir)

    def status(self) -> LocalNeo4jStatus:
        state = self._running_state()
        return LocalNeo4jStatus(
            installed=self.is_installed(),
            running=state is not None,
            pid=state.pid if state else None,
            bolt_uri=bolt_uri(state.port) if state and state.port is not None else None,
            version=state.version if state else NEO4J_VERSION,
            instance_dir=self.instance_dir,
            java=_java_in_use(),
            stop_when_idle_s=state.stop_when_idle_s if state else None,
        )

    def credentials(self) -> LocalCredentials:
        state = self._running_state()
        if state is None or state.port is None:
            raise LocalNeo4jError(
                f"Neo4j instance '{self.instance}' is not running; start it "
                "first (`reverie neo4j start` or LocalNeo4j.start())"
            )
        return LocalCredentials(uri=bolt_uri(state.port), username=USERNAME, password=self._password())
