"""What the benchmark ran on, and how much memory processes used (Linux /proc)."""

from __future__ import annotations

import os
import platform
import resource
import subprocess
from pathlib import Path
from typing import Any


def _proc_status(pid: int | str) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def _kib(value: str | None) -> int | None:
    if not value:
        return None
    number, _, _unit = value.partition(" ")
    return int(number) if number.isdigit() else None


def peak_rss_mib(pid: int | str = "self") -> float | None:
    """VmHWM (peak resident set) of a process in MiB, or None if it cannot be read."""
    kib = _kib(_proc_status(pid).get("VmHWM"))
    return None if kib is None else kib / 1024


def cpu_seconds(pid: int | str = "self") -> float | None:
    """User plus system CPU time a process has used so far, or None if it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command name: utime and stime are the 12th and 13th fields, in clock ticks.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def current_rss_mib(pid: int | str = "self") -> float | None:
    kib = _kib(_proc_status(pid).get("VmRSS"))
    return None if kib is None else kib / 1024


def reset_peak_rss(pid: int | str = "self") -> bool:
    """Reset a process's VmHWM to its current RSS (writing 5 to clear_refs); False if refused."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def self_maxrss_mib() -> float:
    """ru_maxrss of this process (KiB on Linux): the peak since start, never reset."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _total_ram_gib() -> float | None:
    kib = _kib(_meminfo().get("MemTotal"))
    return None if kib is None else round(kib / 1024 / 1024, 1)


def _meminfo() -> dict[str, str]:
    try:
        lines = Path("/proc/meminfo").read_text().splitlines()
    except OSError:
        return {}
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def describe_machine() -> dict[str, Any]:
    return {
        "nproc": os.cpu_count(),
        "ram_gib": _total_ram_gib(),
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def _git(*args: str) -> str:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=False)
    return done.stdout.strip()


def source_revision() -> str:
    """The checkout's commit, with "+dirty" when the work tree differs from it."""
    try:
        commit = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit}+dirty" if commit and dirty else commit or "unknown"
