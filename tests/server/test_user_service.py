"""`reverie service install | remove | status`, run as a person runs them, in a home of the test's
own. What this machine can check is checked for real: the files written (a unit that
`systemd-analyze verify` accepts, an environment file bash reads back to the same values, a
plist that plistlib reads back), that installing twice changes nothing, that removing leaves
nothing, and the error when `systemctl --user` cannot be reached. Starting the service under a
real user manager (systemd or launchd) is not tested here: this container has neither."""

from __future__ import annotations

import os
import plistlib
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from server.cli import reverie
from server.user_service import LABEL, UNIT, ServiceError, install, remove, service_for
from tests.server.conftest import REVERIE, run_reverie

pytestmark = pytest.mark.unit

# A password with every character a systemd environment file or a shell would read specially.
PASSWORD = 'p$a"s`s\\w%o rd'


def user_manager_reachable() -> bool:
    return shutil.which("systemctl") is not None and (
        subprocess.run(
            ("systemctl", "--user", "show-environment"), capture_output=True, check=False
        ).returncode
        == 0
    )


linux_without_user_manager = pytest.mark.skipif(
    os.uname().sysname != "Linux" or user_manager_reachable(),
    reason="on Linux without a user systemd only: elsewhere install would start a real service",
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A person's environment: a home of the test's own, Reverie's settings and something else."""
    home = tmp_path / "home"
    home.mkdir()
    kept = {name: value for name, value in os.environ.items() if name not in ("XDG_CONFIG_HOME",)}
    return {
        **kept,
        "HOME": str(home),
        "NEO4J_URI": "bolt://127.0.0.1:7687",
        "NEO4J_PASSWORD": PASSWORD,
        "DREAMING_ENABLED": "true",
        "UNRELATED_SECRET": "not for the service",
    }


def invoke(env: dict[str, str], *arguments: str) -> Result:
    """`reverie ARGUMENTS` in this process, with `env` as its environment (faster than a child)."""
    return CliRunner().invoke(reverie, list(arguments), env={"XDG_CONFIG_HOME": None, **env})


def files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file() and ".cache" not in path.parts)


def unit_of(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".config" / "systemd" / "user" / UNIT


def env_file_of(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".config" / "reverie" / "scheduler.env"


@linux_without_user_manager
def test_install_says_what_to_do_when_systemctl_user_is_unavailable_and_writes_nothing(
    env: dict[str, str],
) -> None:
    done = run_reverie(env, "service", "install")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("reverie: systemctl --user cannot be reached here ("), done.stderr
    assert "nothing was changed" in done.stderr and "--files-only" in done.stderr
    assert "systemctl --user enable reverie-scheduler.service" in done.stderr
    assert files_under(Path(env["HOME"])) == []


@linux_without_user_manager
def test_the_unit_runs_reverie_scheduler_with_only_reverie_s_settings(env: dict[str, str]) -> None:
    done = run_reverie(env, "service", "install", "--files-only")
    assert done.returncode == 0, done.stderr
    unit, env_file = unit_of(env), env_file_of(env)
    assert files_under(Path(env["HOME"])) == sorted([unit, env_file])
    for path in (unit, env_file):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = unit.read_text()
    assert f'ExecStart="{REVERIE.absolute()}" "scheduler"' in text
    assert "Restart=on-failure" in text and f"EnvironmentFile={env_file}\n" in text
    assert "UNRELATED_SECRET" not in env_file.read_text()
    # bash reads double-quoted values with the escapes systemd's environment files use.
    read_back = subprocess.run(
        ["bash", "-c", f'set -a; . "{env_file}"; printf %s "$NEO4J_PASSWORD"'],
        env={},
        capture_output=True,
        text=True,
        check=True,
    )
    assert read_back.stdout == PASSWORD
    assert "systemctl --user enable reverie-scheduler.service" in done.stdout


@linux_without_user_manager
def test_systemd_accepts_the_unit(env: dict[str, str], tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    assert invoke(env, "service", "install", "--files-only").exit_code == 0
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    verified = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(unit_of(env))],
        env={**env, "XDG_RUNTIME_DIR": str(runtime)},
        capture_output=True,
        text=True,
        check=False,
    )
    # verify warns (and still exits 0) about lines it ignores, so its output must be empty too.
    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")


@linux_without_user_manager
def test_installing_twice_changes_nothing_and_removing_leaves_nothing(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    assert invoke(env, "service", "install", "--files-only").exit_code == 0
    first = {path: path.read_bytes() for path in files_under(home)}
    assert invoke(env, "service", "install", "--files-only").exit_code == 0
    assert {path: path.read_bytes() for path in files_under(home)} == first

    status = invoke(env, "service", "status")
    assert status.exit_code == 0, status.output
    assert f"{unit_of(env)}: present" in status.output
    assert "systemctl --user: cannot be reached here" in status.output

    removed = invoke(env, "service", "remove", "--files-only")
    assert removed.exit_code == 0, removed.output
    assert removed.output.count("deleted ") == 2
    assert files_under(home) == [] and not env_file_of(env).parent.exists()
    assert invoke(env, "service", "remove", "--files-only").output.strip() == "no service files were there"


def test_the_launchd_agent_runs_reverie_scheduler_and_restarts_it_on_failure(tmp_path: Path) -> None:
    agent = service_for("darwin", home=tmp_path)
    command = ["/opt/reverie/bin/reverie", "scheduler"]
    files = agent.render(command, {"NEO4J_PASSWORD": PASSWORD, "DREAMING_ENABLED": "true"})
    install(agent, files, files_only=True)
    [path] = files_under(tmp_path)
    assert path == tmp_path / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    plist = plistlib.loads(path.read_bytes())
    assert (plist["Label"], plist["ProgramArguments"], plist["RunAtLoad"]) == (LABEL, command, True)
    assert plist["EnvironmentVariables"]["NEO4J_PASSWORD"] == PASSWORD
    assert plist["KeepAlive"] == {"SuccessfulExit": False}
    assert remove(agent, files_only=True) == [path]
    assert files_under(tmp_path) == []


def test_a_platform_without_a_user_service_is_told_what_to_do_instead() -> None:
    with pytest.raises(ServiceError, match="run `reverie scheduler` from whatever starts programs at login"):
        service_for("win32")
