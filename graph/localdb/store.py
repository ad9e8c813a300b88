"""Which Neo4j last opened an instance's store, and the backup taken before a newer one does.

A newer Neo4j upgrades an older store in place the first time it opens it, and the old server
can then no longer read it. So before a store is opened by a version other than the one that
last ran it, every database is dumped with `neo4j-admin database dump` (the format any later
Neo4j loads) into the instance's `backups/` folder.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from graph.localdb.files import atomic_write

# Every Reverie before the Neo4j 2026 server ran this version and wrote no marker.
LEGACY_VERSION: Final = "5.26.30"
_MARKER: Final = "reverie-store.json"


def _marker(instance_dir: Path) -> Path:
    return instance_dir / "data" / _MARKER


def stored_version(instance_dir: Path) -> str | None:
    """The Neo4j version that last ran this store; None for a store never started."""
    try:
        version = json.loads(_marker(instance_dir).read_text())["neo4j"]
    except (OSError, ValueError, KeyError, TypeError):
        version = None
    if isinstance(version, str) and version:
        return version
    return LEGACY_VERSION if (instance_dir / "data" / "databases" / "neo4j").is_dir() else None


def record_version(instance_dir: Path, version: str) -> None:
    atomic_write(_marker(instance_dir), json.dumps({"neo4j": version}) + "\n")


def backup_folder(instance_dir: Path, version: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return instance_dir / "backups" / f"neo4j-{version}-{stamp}"
