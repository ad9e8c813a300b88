"""Provision and run a local Neo4j Community server from Maven Central jars, without Docker.

The official tarball is out of reach here, but every jar of the server is on Maven Central, so
`mvn` fills a shared lib dir per version and each named instance gets its own conf, data and
logs. The JVM is started directly (not through Neo4j's launcher), so every flag the launcher
would add is spelled out below.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError


class LocalNeo4jError(Exception):
    """A local Neo4j step failed; the message says what failed and what to do about it."""


_POM = Path(__file__).with_name("pom.xml")


def _pom_version(pom: Path) -> str:
    # The pom is the single source of truth so the jars mvn fetches and the version we
    # report can never disagree.
    try:
        root = ET.parse(pom).getroot()
    except (OSError, ET.ParseError) as exc:
        raise LocalNeo4jError(f"cannot read {pom}: {exc}; reinstall Reverie") from exc
    node = root.find("m:properties/m:neo4j.version", {"m": "http://maven.apache.org/POM/4.0.0"})
    if node is None or not (node.text or "").strip():
        raise LocalNeo4jError(f"{pom} has no <neo4j.version> property; reinstall Reverie")
    return (node.text or "").strip()


NEO4J_VERSION: str = _pom_version(_POM)

MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
ADMIN_CLASS = "org.neo4j.server.startup.Neo4jAdminCommand"
USERNAME = "neo4j"
HEAP_SIZE = "1g"
PAGECACHE_SIZE = "512m"
TRANSACTION_MEMORY_MAX = "512m"

# The flags upstream's default neo4j.conf passes via server.jvm.additional. Without the
# add-opens, the page cache and transaction logs silently fall back to slower paths (a WARN in
# debug.log, not a failure). --enable-native-access is accepted by Java 17. AlwaysPreTouch is
# left out on purpose: it would commit the whole heap at start on a developer machine.
JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
    "-Dfile.encoding=UTF-8",
)

# The JVM reads these itself even on a direct call: _JAVA_OPTIONS overrides our -Xmx, the
# others can add agents or flags. JAVA_OPTS only matters to Neo4j's launcher (used by the
# admin command), where it replaces the launcher's own flags.
_JAVA_ENV_NOISE = ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "CLASSPATH")

# Neo4j's own codes. On a direct call nearly every failure comes out as 1 (a store locked by
# another process and an unknown setting both did here), so the log tail is what explains it.
_EXIT_MEANINGS = {
    1: "startup failed (store locked by another process, unknown setting, port taken, ...)",
    2: "the database failed to start",
    3: "the configuration is invalid",
}
_INSTANCE_SUBDIRS = ("conf", "data", "logs", "run", "plugins", "import")
_DEP_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_LOCK_TIMEOUT = 600.0
_LOG_TAIL_LINES = 40
_INSTANCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_BOLT_PORT_LINE = re.compile(r"^server\.bolt\.listen_address=.*:(\d+)\s*$", re.MULTILINE)

# Popen objects of servers this process launched: keeps them from being collected (which warns
# "still running") and lets us read the exit code and reap zombies.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class LocalNeo4jStatus:
    installed: bool
    running: bool
    pid: int | None
    bolt_uri: str | None
    version: str
    instance_dir: Path

    def describe(self) -> str:
        head = f"Neo4j {self.version} (instance '{self.instance_dir.name}')"
        if self.running:
            where = self.bolt_uri or "an unknown port"
            return f"{head}: running, pid {self.pid}, at {where}\n  files: {self.instance_dir}"
        jars = "jars installed" if self.installed else "jars not installed yet"
        return f"{head}: not running ({jars})\n  files: {self.instance_dir}"


@dataclass(frozen=True)
class LocalCredentials:
    uri: str
    username: str
    password: str


@dataclass(frozen=True)
class _RunState:
    pid: int
    port: int | None
    version: str
    started_at: str


def bolt_uri(port: int) -> str:
    return f"bolt://127.0.0.1:{port}"


def render_config(*, instance_dir: Path, lib_dir: Path, bolt_port: int) -> str:
    """Return neo4j.conf for one instance; strict validation rejects unknown names (exit 3)."""
    address = f"127.0.0.1:{bolt_port}"
    settings = [
        *(f"server.directories.{sub}={instance_dir / sub}" for sub in _INSTANCE_SUBDIRS[1:]),
        # The admin command's launcher builds its classpath from here.
        f"server.directories.lib={lib_dir}",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={address}",
        f"server.bolt.advertised_address={address}",
        "server.http.enabled=false",
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        "dbms.usage_report.enabled=false",
        "client.allow_telemetry=false",
        # The JVM gets -Xms/-Xmx directly; these keep Neo4j's memory checks and diagnostics true.
        f"server.memory.heap.initial_size={HEAP_SIZE}",
        f"server.memory.heap.max_size={HEAP_SIZE}",
        f"server.memory.pagecache.size={PAGECACHE_SIZE}",
        f"dbms.memory.transaction.total.max={TRANSACTION_MEMORY_MAX}",
        # Preallocation fills 256 MiB per database up front (515 MB for an empty instance);
        # three instances per developer make that a real cost for no gain at this scale.
        "db.tx_log.preallocate=false",
        # Netty otherwise idles 5 s twice after the databases are already closed: stop took 10 s.
        "internal.dbms.bolt.netty_server_shutdown_quiet_period=0",
    ]
    header = "# Written by Reverie before every start; edits here are overwritten.\n"
    return header + "\n".join(settings) + "\n"


def jvm_command(java: str, lib_dir: Path, instance_dir: Path) -> list[str]:
    """Return the argv that runs the server in the foreground (console mode)."""
    return [
        java,
        f"-Xms{HEAP_SIZE}",
        f"-Xmx{HEAP_SIZE}",
        *JVM_FLAGS,
        "-cp",
        f"{lib_dir}/*",
        MAIN_CLASS,
        f"--home-dir={instance_dir}",
        f"--config-dir={instance_dir / 'conf'}",
        "--console-mode",
    ]


def _java_env(**extra: str) -> dict[str, str]:
    noise = {*_JAVA_ENV_NOISE, "NEO4J_HOME", "NEO4J_CONF"}
    return {**{k: v for k, v in os.environ.items() if k not in noise}, **extra}


def _find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise LocalNeo4jError(
            "Java not found (no JAVA_HOME, no `java` on PATH). Neo4j 5.26 needs Java 17 or 21: "
            "install a JDK (e.g. `apt-get install openjdk-17-jre-headless`) and retry."
        )
    return java


def _atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    # A reader must never see half a file, so write aside and rename over.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_state(path: Path, state: _RunState) -> None:
    _atomic_write(path, json.dumps(asdict(state), indent=2) + "\n")


def _read_state(path: Path) -> _RunState | None:
    # A missing, corrupt or hand-edited file just means "nothing known to run".
    try:
        data = json.loads(path.read_text())
        pid, port = data["pid"], data.get("port")
        version, started_at = data["version"], data["started_at"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(pid, int) and pid > 0 and isinstance(version, str)):
        return None
    if not (port is None or isinstance(port, int)):
        return None
    return _RunState(pid=pid, port=port, version=version, started_at=str(started_at))


def _process_info(pid: int) -> tuple[str, list[str]] | None:
    """Return (state letter, argv) of a process, or None when it does not exist."""
    proc = Path("/proc") / str(pid)
    if Path("/proc/self").is_dir():
        try:
            stat = (proc / "stat").read_text()
            raw = (proc / "cmdline").read_bytes()
        except OSError:
            return None
        fields = stat.rpartition(")")[2].split()  # comm may hold spaces and parentheses
        return (fields[0] if fields else "?"), [a.decode(errors="replace") for a in raw.split(b"\0") if a]
    # No /proc (macOS): ps splits argv on spaces, good enough for our own paths.
    out = subprocess.run(
        ["ps", "-o", "stat=,command=", "-p", str(pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    return (out[0][:1], out[1:]) if out else None


def is_neo4j_process(pid: int, instance_dir: Path) -> bool:
    """True if pid is a live server of this instance; false for dead, zombie or reused pids."""
    home_arg = f"--home-dir={instance_dir}"
    child = _CHILDREN.get(pid)
    if child is not None:
        # Our own child: its exit status and launch arguments are the truth. Its /proc command
        # line is the parent's until it has exec'd java, which would make it look foreign.
        launched = [str(arg) for arg in child.args] if isinstance(child.args, list) else []
        return child.poll() is None and home_arg in launched
    info = _process_info(pid)
    if info is None:
        return False
    state, argv = info
    return state != "Z" and MAIN_CLASS in argv and home_arg in argv


def _scan_for_server(instance_dir: Path) -> int | None:
    # Finds a server whose state file was lost, so we never launch a second one on its store.
    if not Path("/proc/self").is_dir():
        return None
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and is_neo4j_process(int(entry.name), instance_dir):
            return int(entry.name)
    return None


def free_port() -> int:
    """A loopback port the OS reports free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Same option Netty binds with, so lingering TIME_WAIT sockets don't count as busy.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _conf_port(conf_file: Path) -> int | None:
    try:
        match = _BOLT_PORT_LINE.search(conf_file.read_text())
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _tail(path: Path, offset: int = 0, lines: int = _LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


@contextlib.contextmanager
def _flock(path: Path, timeout: float = _LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive lock across processes; the JVM never inherits it (close_fds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LocalNeo4jError(
                        f"gave up after {timeout:.0f}s waiting for {path}, held by another "
                        "Reverie process starting or stopping Neo4j; retry when it is done"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


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


class LocalNeo4j:
    """One named Neo4j instance under REVERIE_HOME; jars are shared between instances."""

    def __init__(self, home: Path, instance: str = "default") -> None:
        if not _INSTANCE_NAME.fullmatch(instance):
            raise ValueError(f"instance name {instance!r} must be letters, digits, '.', '_', '-'")
        self.home = home.expanduser().resolve()
        self.instance = instance
        self.version_dir = self.home / "neo4j" / NEO4J_VERSION
        self.lib_dir = self.version_dir / "lib"
        self.install_marker = self.version_dir / "install-complete.json"
        self.instance_dir = self.home / "neo4j" / "instances" / instance
        self.conf_file = self.instance_dir / "conf" / "neo4j.conf"
        self.state_file = self.instance_dir / "run" / "reverie-neo4j.json"
        self.password_file = self.instance_dir / "password"
        self.console_log = self.instance_dir / "logs" / "console.log"
        self.lock_file = self.instance_dir / ".lock"

    @classmethod
    def default_home(cls) -> Path:
        env = os.environ.get("REVERIE_HOME")
        return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "reverie"

    def is_installed(self) -> bool:
        return self.install_marker.is_file() and self.lib_dir.is_dir()

    def install(self) -> Path:
        """Fetch the server jars into the shared lib dir; instant once complete."""
        if self.is_installed():
            return self.lib_dir
        self.version_dir.mkdir(parents=True, exist_ok=True)
        with _flock(self.version_dir / ".install.lock"):
            if self.is_installed():  # another process finished it while we waited
                return self.lib_dir
            for leftover in self.version_dir.glob("lib.partial-*"):
                shutil.rmtree(leftover, ignore_errors=True)
            staging = Path(tempfile.mkdtemp(prefix="lib.partial-", dir=self.version_dir))
            try:
                self._run_mvn(staging)
                shutil.rmtree(self.lib_dir, ignore_errors=True)  # unmarked, so incomplete
                staging.rename(self.lib_dir)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            jars = sum(1 for _ in self.lib_dir.glob("*.jar"))
            _atomic_write(self.install_marker, json.dumps({"version": NEO4J_VERSION, "jars": jars}))
        return self.lib_dir

    def _run_mvn(self, dest: Path) -> None:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalNeo4jError(
                f"Maven (`mvn`) is not on PATH; Reverie uses it to fetch the Neo4j {NEO4J_VERSION} "
                "jars from Maven Central. Install Maven 3.6+ (e.g. `apt-get install maven`) and retry."
            )
        cmd = [
            mvn,
            "-B",
            "--no-transfer-progress",
            "-f",
            str(_POM),
            f"{_DEP_PLUGIN}:copy-dependencies",
            f"-DoutputDirectory={dest}",
            "-DincludeScope=runtime",
            "-Dmdep.prependGroupId=true",
        ]
        try:
            done = subprocess.run(
                cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise LocalNeo4jError(
                "mvn took over 30 min fetching the Neo4j jars; check the network and retry"
            ) from exc
        output = "\n".join((done.stdout + done.stderr).splitlines()[-_LOG_TAIL_LINES:])
        if done.returncode != 0 or not (dest / f"org.neo4j.neo4j-{NEO4J_VERSION}.jar").is_file():
            raise LocalNeo4jError(
                f"mvn failed (exit {done.returncode}) fetching Neo4j {NEO4J_VERSION} jars. Check "
                "access to Maven Central (or the mirror in ~/.m2/settings.xml) and retry. "
                f"Last lines of its output:\n{output}"
            )

    def start(self, bolt_port: int | None = None, wait_seconds: float = 180.0) -> LocalNeo4jStatus:
        """Start this instance, or return the one already running; wait until Bolt answers."""
        self.install()
        for sub in _INSTANCE_SUBDIRS:
            (self.instance_dir / sub).mkdir(parents=True, exist_ok=True)
        with _flock(self.lock_file):
            running = self._running_state()
            if running is not None:
                if bolt_port is not None and running.port != bolt_port:
                    raise LocalNeo4jError(
                        f"instance '{self.instance}' already runs on port {running.port}, not "
                        f"{bolt_port}; stop it first to change the port"
                    )
                self._wait_for_bolt(running, wait_seconds, log_offset=None)
                if _read_state(self.state_file) != running:  # found by scan: record it again
                    _write_state(self.state_file, running)
                return self.status()
            return self._start_locked(bolt_port, wait_seconds)

    def _start_locked(self, bolt_port: int | None, wait_seconds: float) -> LocalNeo4jStatus:
        self.state_file.unlink(missing_ok=True)
        port = self._choose_port(bolt_port)
        _atomic_write(
            self.conf_file,
            render_config(instance_dir=self.instance_dir, lib_dir=self.lib_dir, bolt_port=port),
        )
        self._ensure_password()
        pid, log_offset = self._launch()
        state = _RunState(
            pid=pid,
            port=port,
            version=NEO4J_VERSION,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        _write_state(self.state_file, state)
        try:
            self._wait_for_bolt(state, wait_seconds, log_offset)
        except BaseException:
            # Never leave a server this call launched holding the store lock behind an error.
            self._terminate(pid, timeout=30.0)
            self.state_file.unlink(missing_ok=True)
            raise
        return self.status()

    def _choose_port(self, requested: int | None) -> int:
        if requested is not None:
            if not _port_free(requested):
                raise LocalNeo4jError(
                    f"port {requested} on 127.0.0.1 is in use; pick another "
                    "port, or pass none to get a free one"
                )
            return requested
        last = _conf_port(self.conf_file)
        if last is not None and _port_free(last):
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
            _atomic_write(self.password_file, secrets.token_hex(24) + "\n", mode=0o600)
        env = _java_env(NEO4J_HOME=str(self.instance_dir), NEO4J_CONF=str(self.conf_file.parent))
        # "@file" is expanded by picocli, which keeps the password out of `ps` listings.
        cmd = [_find_java(), "-cp", f"{self.lib_dir}/*", ADMIN_CLASS, "dbms", "set-initial-password"]
        cmd.append(f"@{self.password_file}")
        done = subprocess.run(
            cmd,
            env=env,
            cwd=self.instance_dir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            output = "\n".join((done.stdout + done.stderr).splitlines()[-_LOG_TAIL_LINES:])
            raise LocalNeo4jError(
                f"setting the initial Neo4j password failed (exit {done.returncode}); "
                f"check Java 17+ and {self.lib_dir}. Output:\n{output}"
            )

    def _password(self) -> str:
        try:
            return self.password_file.read_text().strip()
        except OSError as exc:
            raise LocalNeo4jError(f"cannot read {self.password_file}: {exc}") from exc

    def _launch(self) -> tuple[int, int]:
        """Start the JVM detached; return its pid and where this run's console output begins."""
        cmd = jvm_command(_find_java(), self.lib_dir, self.instance_dir)
        offset = self.console_log.stat().st_size if self.console_log.exists() else 0
        with self.console_log.open("ab") as log:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            log.write(f"--- reverie: starting Neo4j {NEO4J_VERSION} at {stamp} ---\n".encode())
            log.flush()
            # Own session: a Ctrl-C or hang-up aimed at the caller must not reach the server.
            proc = subprocess.Popen(
                cmd,
                cwd=self.instance_dir,
                env=_java_env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _CHILDREN[proc.pid] = proc
        return proc.pid, offset

    def _wait_for_bolt(self, state: _RunState, wait_seconds: float, log_offset: int | None) -> None:
        if state.port is None:
            raise LocalNeo4jError(
                f"instance '{self.instance}' runs (pid {state.pid}) but its "
                "port is unknown; stop it and start again"
            )
        uri, password = bolt_uri(state.port), self._password()
        deadline = time.monotonic() + wait_seconds
        while True:
            if not is_neo4j_process(state.pid, self.instance_dir):
                raise LocalNeo4jError(self._exit_message(state.pid, log_offset))
            if _bolt_answers(uri, password):
                return
            if time.monotonic() > deadline:
                raise LocalNeo4jError(
                    f"Neo4j (pid {state.pid}) did not answer on {uri} within {wait_seconds:.0f}s; "
                    "on a slow machine retry with a longer wait, else see the log. Last "
                    f"lines of {self.console_log}:\n{_tail(self.console_log, log_offset or 0)}"
                )
            time.sleep(0.25)

    def _exit_message(self, pid: int, log_offset: int | None) -> str:
        child = _CHILDREN.get(pid)
        code = None
        if child is not None:
            try:
                code = child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        meaning = _EXIT_MEANINGS.get(code, "see the log below") if code is not None else "unknown"
        return (
            f"Neo4j {NEO4J_VERSION} (instance '{self.instance}', pid {pid}) exited during "
            f"startup with code {code}: {meaning}. Fix the cause and start again. Last lines of "
            f"{self.console_log}:\n{_tail(self.console_log, log_offset or 0)}"
        )

    def _running_state(self) -> _RunState | None:
        state = _read_state(self.state_file)
        if state is not None and is_neo4j_process(state.pid, self.instance_dir):
            return state
        pid = _scan_for_server(self.instance_dir)
        if pid is None:
            return None
        return _RunState(
            pid=pid, port=_conf_port(self.conf_file), version=NEO4J_VERSION, started_at="unknown"
        )

    def _terminate(self, pid: int, timeout: float) -> None:
        # SIGTERM runs Neo4j's shutdown hook (checkpoint, clean store); SIGKILL is the fallback.
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not is_neo4j_process(pid, self.instance_dir):
                    _CHILDREN.pop(pid, None)
                    return
                time.sleep(0.1)
        raise LocalNeo4jError(f"Neo4j pid {pid} survived SIGKILL; check it with `ps -p {pid}`")

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop this instance cleanly; return whether it was running."""
        if not self.instance_dir.is_dir():
            return False
        with _flock(self.lock_file):
            state = self._running_state()
            if state is not None:
                self._terminate(state.pid, timeout)
            self.state_file.unlink(missing_ok=True)
            return state is not None

    def status(self) -> LocalNeo4jStatus:
        state = self._running_state()
        return LocalNeo4jStatus(
            installed=self.is_installed(),
            running=state is not None,
            pid=state.pid if state else None,
            bolt_uri=bolt_uri(state.port) if state and state.port is not None else None,
            version=state.version if state else NEO4J_VERSION,
            instance_dir=self.instance_dir,
        )

    def credentials(self) -> LocalCredentials:
        state = self._running_state()
        if state is None or state.port is None:
            raise LocalNeo4jError(
                f"Neo4j instance '{self.instance}' is not running; start it "
                "first (`reverie neo4j start` or LocalNeo4j.start())"
            )
        return LocalCredentials(uri=bolt_uri(state.port), username=USERNAME, password=self._password())
