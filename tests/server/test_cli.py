"""The `reverie` command's shape: each group lists its commands, click refuses wrong option
combinations before anything runs, failures an operator can fix are one line and exit 2, and
--json prints JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from server.cli import reverie
from tests.server.conftest import run_reverie

# A line of the command's log (server/cli.py's format), as opposed to what it says to the person.
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [A-Z]+ \S+: ")

# The commands users type, as the README names them.
GROUPS = {
    (): ["serve", "setup", "scheduler", "neo4j", "token", "dream", "embeddings", "profile", "service"],
    ("neo4j",): ["install", "start", "stop", "status"],
    ("token",): ["create", "show", "list", "revoke"],
    ("dream",): ["run", "status", "list", "show", "runs", "resolve", "configure", "unlock"],
    ("embeddings",): ["install", "status", "backfill"],
    ("profile",): ["list", "delete", "export", "import"],
    ("service",): ["install", "remove", "status"],
}


@pytest.mark.unit
@pytest.mark.parametrize("group", list(GROUPS), ids=lambda group: " ".join(("reverie", *group)))
def test_each_group_s_help_lists_its_commands(group: tuple[str, ...]) -> None:
    done = CliRunner().invoke(reverie, [*group, "--help"])
    assert done.exit_code == 0, done.output
    listed = done.output.split("Commands:", 1)[1].split()
    assert all(name in listed for name in GROUPS[group]), done.output


# Each refused before its command runs: no database or model is reached (none is configured).
REFUSED = [
    (["dream", "list", "--profile", "alice", "--dry-run"], "No such option '--dry-run'"),
    (["dream", "run", "--profile", "alice", "--status", "proposed"], "No such option '--status'"),
    (["dream", "resolve", "d1", "--profile", "alice"], "Missing option '--decision'"),
    (["dream", "resolve", "d1", "--profile", "alice", "--decision", "maybe"], "'maybe' is not one of"),
    (["dream", "show", "--profile", "alice"], "Missing argument 'ID'"),
    (["dream", "status"], "Missing option '--profile'"),
    (["dream", "run", "--profile", "alice", "--max-outputs", "99"], "99 is not in the range 1<=x<=50"),
    (["dream", "list", "--profile", "no spaces"], "Invalid profile id 'no spaces'"),
    (["embeddings", "install", "--all", "--model", "e5-small-v2"], "'--model': cannot be used with '--all'"),
    (["embeddings", "install", "--model", "e5-small-v2", "--all"], "'--all': cannot be used with '--model'"),
    (["embeddings", "backfill", "--batch", "0"], "0 is not in the range x>=1"),
    (["token", "create"], "Missing option '--profile'"),
    (["token", "create", "--profile", "alice", "--scopes", "read,admin"], "takes read and/or write"),
    (["profile", "import", "alice.jsonl"], "Missing option '--profile'"),
    (["serve", "--transport", "tcp"], "'tcp' is not one of 'stdio', 'http'"),
    (["neo4j", "stop", "--port", "7687"], "No such option '--port'"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("arguments", "message"), REFUSED, ids=lambda value: " ".join(value)[:60])
def test_a_wrong_option_combination_is_refused_with_a_message(arguments: list[str], message: str) -> None:
    done = CliRunner().invoke(reverie, arguments, env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert done.exit_code == 2, done.output
    assert message in done.stderr and "Usage: reverie" in done.stderr, done.stderr
    assert done.stdout == ""


@pytest.mark.unit
def test_a_failure_the_operator_can_fix_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "tokens.json"
    done = CliRunner().invoke(
        reverie, ["token", "revoke", "laptop"], env={"REVERIE_TOKENS_FILE": str(missing)}
    )
    assert done.exit_code == 2
    assert done.stderr.startswith("reverie: ") and str(missing) in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1 and not missing.exists()


def test_dream_json_output_parses_and_follows_the_profile(
    server_env: dict[str, str], profile_id: str
) -> None:
    def dream(*arguments: str) -> Any:
        done = run_reverie(server_env, "dream", *arguments, "--profile", profile_id, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    configured = dream("configure", "--enabled", "--timezone", "Europe/Lisbon", "--start-time-local", "04:00")
    status = dream("status")
    assert configured == status["config"]
    assert (configured["enabled"], configured["timezone"], configured["start_time_local"]) == (
        True,
        "Europe/Lisbon",
        "04:00",
    )
    assert dream("list", "--status", "proposed") == {"dreams": [], "next_cursor": None}
    assert dream("runs") == {"runs": [], "next_cursor": None}
    assert dream("unlock")["released_run_ids"] == []


def test_a_dream_that_is_not_there_is_one_line_and_exit_2(
    server_env: dict[str, str], profile_id: str
) -> None:
    done = run_reverie(server_env, "dream", "show", "no-such-dream", "--profile", profile_id)
    assert done.returncode == 2 and done.stdout == ""
    # Opening the store may log an upgrade of another profile (another test's, made in an old
    # format at the same moment): log lines are not what the command says.
    said = [line for line in done.stderr.splitlines() if not LOG_LINE.match(line)]
    assert len(said) == 1 and said[0].startswith("reverie: ") and "no-such-dream" in said[0], done.stderr
    assert "Traceback" not in done.stderr
