"""The nightly scheduler as the person's own service, for nights while no host runs Reverie.

A desktop host starts Reverie only while its window is open, so its server keeps the nights only
then. `reverie service install` writes a service that runs `reverie scheduler` whenever the
person is logged in, restarted if it fails: a `systemd --user` unit on Linux, a launchd agent on
macOS. It carries the settings Reverie reads from the environment it was installed from (a Neo4j
password among them), in a file only the person can read.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

UNIT: Final = "reverie-scheduler.service"
LABEL: Final = "io.github.reverie-memory.scheduler"
# Besides Reverie's own settings: the zone the scheduler falls back to when none is set.
CARRIED_ALSO: Final = ("TZ",)
RESTART_AFTER_S: Final = 30
# Characters a value keeps only behind a backslash inside double quotes in a systemd
# environment file, and in a unit's command line ('%' and '$' are expanded there).
_ENV_FILE_ESCAPES: Final = '\\"`$'
_PRIVATE: Final = 0o600


class ServiceError(Exception):
    """A service that cannot be installed, removed or read here; the message says what to do."""


@dataclass(frozen=True)
class Query:
    """A question to the service manager: its answer is its output's first line, or, when
    `by_exit` (launchctl prints pages), yes or no by its exit status."""

    name: str
    command: tuple[str, ...]
    by_exit: bool = False


@dataclass(frozen=True)
class UserService:
    """One platform's service: the files it is made of and the manager that runs it."""

    manager: str  # as a person would name it in a message
    definition: Path  # the unit or the agent's plist
    environment: Path | None  # systemd's environment file; launchd keeps it in the plist
    probe: tuple[str, ...]  # a command that fails when the manager cannot be reached
    # Install: `start`, whose first step may undo an earlier install and fail when there was none.
    # Remove: `stop` (its first step may fail likewise), the files deleted, then `forget`.
    start: tuple[tuple[str, ...], ...]
    stop: tuple[tuple[str, ...], ...]
    forget: tuple[tuple[str, ...], ...]
    queries: tuple[Query, ...]
    start_undoes_first: bool = False

    @property
    def files(self) -> tuple[Path, ...]:
        return (self.definition,) if self.environment is None else (self.definition, self.environment)

    def render(self, command: Sequence[str], env: Mapping[str, str]) -> dict[Path, bytes]:
        """What install writes, file by file."""
        if self.environment is None:
            return {self.definition: launchd_agent(command, env, self.definition.parent)}
        return {
            self.definition: systemd_unit(command, self.environment).encode(),
            self.environment: environment_file(env).encode(),
        }


def service_for(platform: str = sys.platform, home: Path | None = None) -> UserService:
    """This machine's kind of user service; an error naming the way out elsewhere."""
    home = home or Path.home()
    if platform.startswith("linux"):
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        ctl = ("systemctl", "--user")
        return UserService(
            manager="systemctl --user",
            definition=config / "systemd" / "user" / UNIT,
            environment=config / "reverie" / "scheduler.env",
            probe=(*ctl, "show-environment"),
            start=((*ctl, "daemon-reload"), (*ctl, "enable", UNIT), (*ctl, "restart", UNIT)),
            stop=((*ctl, "disable", "--now", UNIT),),
            forget=((*ctl, "daemon-reload"),),
            queries=(
                Query("enabled", (*ctl, "is-enabled", UNIT)),
                Query("active", (*ctl, "is-active", UNIT)),
            ),
        )
    if platform == "darwin":
        domain = f"gui/{os.getuid()}"
        agent = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        bootout = ("launchctl", "bootout", f"{domain}/{LABEL}")
        return UserService(
            manager="launchctl",
            definition=agent,
            environment=None,
            probe=("launchctl", "print", domain),
            # Out first, so that installing again loads the new settings.
            start=(bootout, ("launchctl", "bootstrap", domain, str(agent))),
            stop=(bootout,),
            forget=(),
            queries=(Query("loaded", ("launchctl", "print", f"{domain}/{LABEL}"), by_exit=True),),
            start_undoes_first=True,
        )
    raise ServiceError(
        f"no user service for {platform}: run `reverie scheduler` from whatever starts programs at login"
    )


def scheduler_command() -> list[str]:
    """`reverie scheduler` by the absolute path of the `reverie` installed beside this Python
    (a service manager runs it without the person's PATH)."""
    beside = Path(sys.executable).parent / "reverie"
    found = str(beside) if beside.is_file() else shutil.which("reverie")
    if found is None:
        raise ServiceError(
            "cannot find the `reverie` command to run; install it first (uv tool install reverie)"
        )
    return [str(Path(found).absolute()), "scheduler"]


def carried_environment(environ: Mapping[str, str], setting_names: Sequence[str]) -> dict[str, str]:
    """The variables of `environ` Reverie reads (and TZ), and no other: a service should not
    hold whatever else the installing shell had."""
    wanted = {name.upper() for name in setting_names} | set(CARRIED_ALSO)
    carried = {name: value for name, value in sorted(environ.items()) if name.upper() in wanted}
    for name, value in carried.items():
        if "\n" in value or "\r" in value:
            raise ServiceError(f"{name} holds a line break, which a service's environment cannot carry")
    return carried


def systemd_unit(command: Sequence[str], environment: Path) -> str:
    return f"""\
[Unit]
Description=Reverie nightly dreaming scheduler
Documentation=https://github.com/reverie-memory/reverie/blob/main/docs/operations.md

[Service]
Type=simple
ExecStart={" ".join(map(_unit_word, command))}
EnvironmentFile={str(environment).replace("%", "%%")}
Restart=on-failure
RestartSec={RESTART_AFTER_S}

[Install]
WantedBy=default.target
"""


def _unit_word(word: str) -> str:
    """One word of a unit's command line, quoted, with systemd's specifiers and variables kept literal."""
    quoted = "".join("\\" + char if char in '\\"' else char for char in word)
    return '"' + quoted.replace("%", "%%").replace("$", "$$") + '"'


def environment_file(env: Mapping[str, str]) -> str:
    def quoted(value: str) -> str:
        return '"' + "".join("\\" + char if char in _ENV_FILE_ESCAPES else char for char in value) + '"'

    return "".join(f"{name}={quoted(value)}\n" for name, value in env.items())


def launchd_agent(command: Sequence[str], env: Mapping[str, str], agents: Path) -> bytes:
    logs = agents.parent / "Logs" / "reverie-scheduler.log"
    return plistlib.dumps(
        {
            "Label": LABEL,
            "ProgramArguments": list(command),
            "EnvironmentVariables": dict(env),
            "RunAtLoad": True,
            # Started again when it exits with an error, as systemd's Restart=on-failure.
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": RESTART_AFTER_S,
            "ProcessType": "Background",
            "StandardErrorPath": str(logs),
            "StandardOutPath": str(logs),
        }
    )


def manager_problem(service: UserService) -> str | None:
    """Why the service manager cannot be reached here; None when it can."""
    if shutil.which(service.probe[0]) is None:
        return f"{service.probe[0]} is not installed"
    probed = subprocess.run(service.probe, capture_output=True, text=True, check=False)
    if probed.returncode == 0:
        return None
    said = (probed.stderr or probed.stdout).strip()
    return said.splitlines()[-1] if said else f"{' '.join(service.probe)} exited with {probed.returncode}"


def _unreachable(service: UserService, problem: str, steps: Sequence[Sequence[str]]) -> ServiceError:
    commands = " && ".join(" ".join(step) for step in steps)
    return ServiceError(
        f"{service.manager} cannot be reached here ({problem}); nothing was changed. Run this in "
        f"your desktop session, or add --files-only and then run there: {commands}"
    )


def install(service: UserService, files: Mapping[Path, bytes], files_only: bool) -> None:
    """Write the service's files (only the person may read them), then, unless `files_only`,
    enable and (re)start it. Installing again rewrites them and restarts the service."""
    if not files_only and (problem := manager_problem(service)) is not None:
        raise _unreachable(service, problem, service.start)
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=_PRIVATE)
        path.chmod(_PRIVATE)
        path.write_bytes(content)
    if not files_only:
        _run_all(service.start, tolerate_first=service.start_undoes_first)


def remove(service: UserService, files_only: bool) -> list[Path]:
    """Stop and disable the service (unless `files_only`), then delete its files; the ones deleted."""
    if not files_only and (problem := manager_problem(service)) is not None:
        raise _unreachable(service, problem, [*service.stop, *service.forget])
    if not files_only:
        _run_all(service.stop, tolerate_first=True)
    removed = [path for path in service.files if path.exists()]
    for path in removed:
        path.unlink()
    folder = service.environment.parent if service.environment is not None else None
    # Reverie's own folder goes once empty; the manager's folder is not Reverie's to delete.
    if folder is not None and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    if not files_only:
        _run_all(service.forget, tolerate_first=False)
    return removed


def _run_all(steps: Sequence[Sequence[str]], tolerate_first: bool) -> None:
    """Each step in turn; a failure stops with its output. The first may be tolerated when it
    only undoes what may not be there (stopping a service that is not loaded)."""
    for index, step in enumerate(steps):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0 and not (tolerate_first and index == 0):
            said = (done.stderr or done.stdout).strip()
            raise ServiceError(f"`{' '.join(step)}` failed ({done.returncode}): {said}")


def state(service: UserService) -> list[str]:
    """What is installed, and what the manager says of it, line by line."""
    lines = [f"{path}: {'present' if path.exists() else 'absent'}" for path in service.files]
    problem = manager_problem(service)
    if problem is not None:
        return [*lines, f"{service.manager}: cannot be reached here ({problem})"]
    for query in service.queries:
        answer = subprocess.run(query.command, capture_output=True, text=True, check=False)
        said = (answer.stdout or answer.stderr).strip().splitlines()
        shown = ("yes" if answer.returncode == 0 else "no") if query.by_exit or not said else said[0]
        lines.append(f"{query.name}: {shown}")
    return lines
