"""The token file as an operator runs it: `reverie token create|list|revoke`, a running HTTP server
following the file without a restart (MCP and the review page), and the file's safety checks."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest

from bench.processes import serving
from graph.localdb import free_port
from server.auth import add_token, load_token_file
from server.token_registry import TokenRegistry
from tests.server.conftest import REVERIE, HttpServer, reverie_in_process, run_reverie_in_process
from tests.server.support import INITIALIZE, MCP_HEADERS, start_failure

pytestmark = pytest.mark.anyio


@pytest.fixture
def http_server(own_http_server: HttpServer) -> HttpServer:
    """These tests add, revoke and forge tokens by name in the server's file and read its log:
    each has a server of its own."""
    return own_http_server


def token_env(tokens: Path) -> dict[str, str]:
    """The environment of a `reverie token ...` run on this file (no Neo4j needed)."""
    return {**os.environ, "REVERIE_TOKENS_FILE": str(tokens), "REVERIE_HOME": str(tokens.parent / "home")}


def create(tokens: Path, profile: str, name: str, scopes: str = "read,write") -> str:
    """`reverie token create`; returns the token it printed."""
    created = run_reverie_in_process(
        token_env(tokens), "token", "create", "--profile", profile, "--name", name, "--scopes", scopes
    )
    assert created.returncode == 0, created.stderr
    return created.stdout.splitlines()[0]


async def initialize_status(server: HttpServer, token: str) -> int:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            server.url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"}
        )
    return response.status_code


# --- a running server follows the file ----------------------------------------------------


async def test_a_token_added_to_the_file_works_at_once_and_a_revoked_one_is_refused(
    http_server: HttpServer, profile_id: str
) -> None:
    late = await anyio.to_thread.run_sync(create, http_server.tokens_file, profile_id, "late")
    assert await initialize_status(http_server, late) == 200

    async with httpx2.AsyncClient(base_url=http_server.base, timeout=30) as page:
        signed = await page.post("/review/login", data={"token": http_server.write_token})
        assert signed.status_code == 303
        assert (await page.get("/review")).status_code == 200

        revoked = await reverie_in_process(token_env(http_server.tokens_file), "token", "revoke", "rw")
        assert revoked.returncode == 0, revoked.stderr

        assert await initialize_status(http_server, http_server.write_token) == 401
        # The page's session of the revoked token ends too: it is sent back to sign in.
        after = await page.get("/review")
        assert (after.status_code, after.headers.get("location")) == (303, "/review/login")
        again = await page.post("/review/login", data={"token": http_server.write_token})
        assert again.status_code == 401
    assert await initialize_status(http_server, late) == 200, "revoking one token dropped the others"
    logged = http_server.log.read_text()
    assert "added late (" in logged and "revoked rw (" in logged


@pytest.mark.unit
def test_a_broken_token_file_keeps_the_last_good_tokens_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens.json"
    grant = add_token(path, "alice", ["read"], name="a")
    tokens = TokenRegistry(path)
    caplog.set_level(logging.INFO, logger="server.token_registry")

    path.write_text('{"tokens": [', encoding="utf-8")  # an editor's half-written save
    assert tokens.grant_for(grant.token) == grant
    assert f"Token file {path} is malformed" in caplog.text
    assert "Still serving the 1 tokens" in caplog.text
    caplog.clear()
    assert tokens.grant_for(grant.token) == grant
    assert caplog.text == "", "an unchanged broken file is logged once, not on every request"

    path.unlink()
    assert tokens.grant_for(grant.token) == grant
    assert "does not exist" in caplog.text

    path.write_text('{"tokens": []}', encoding="utf-8")
    assert tokens.grant_for(grant.token) is None
    assert "holds no tokens: every request is refused" in caplog.text


# --- list and revoke ----------------------------------------------------------------------


def test_token_list_shows_names_profiles_scopes_and_fingerprints_never_a_token(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    secrets = [create(tokens, "alice", "laptop"), create(tokens, "bob", "phone", scopes="read")]
    listed = run_reverie_in_process(token_env(tokens), "token", "list")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    fingerprints = {grant.name: grant.fingerprint for grant in load_token_file(tokens).tokens}
    assert rows == [
        ["fingerprint", "name", "profile", "scopes"],
        [fingerprints["laptop"], "laptop", "alice", "read,write"],
        [fingerprints["phone"], "phone", "bob", "read"],
    ]
    for secret in secrets:
        # No run of 8 characters of a token appears: neither the token nor a prefix of it.
        assert not any(secret[start : start + 8] in listed.stdout for start in range(len(secret) - 7))


def test_revoke_removes_exactly_the_named_token_and_an_unclear_choice_changes_nothing(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    create(tokens, "alice", "laptop")
    create(tokens, "alice", "twin")
    twin = create(tokens, "bob", "twin")
    env = token_env(tokens)
    before = tokens.read_bytes()
    for choice, complaint in [("twin", "2 tokens"), ("desktop", "No token"), ("0123456789ab", "No token")]:
        refused = run_reverie_in_process(env, "token", "revoke", choice)
        assert refused.returncode == 2 and complaint in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr and twin not in refused.stderr
        assert tokens.read_bytes() == before

    assert run_reverie_in_process(env, "token", "revoke", "laptop").returncode == 0
    assert [grant.name for grant in load_token_file(tokens).tokens] == ["twin", "twin"]
    bobs = next(grant for grant in load_token_file(tokens).tokens if grant.token == twin)
    assert run_reverie_in_process(env, "token", "revoke", bobs.fingerprint).returncode == 0
    assert [grant.profile for grant in load_token_file(tokens).tokens] == ["alice"]
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_token_show_prints_the_named_token_again_and_an_unclear_choice_prints_none(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    laptop = create(tokens, "alice", "laptop")
    twin = create(tokens, "alice", "twin")
    create(tokens, "bob", "twin")
    env = token_env(tokens)
    fingerprint = next(grant.fingerprint for grant in load_token_file(tokens).tokens if grant.token == twin)
    for choice, token in [("laptop", laptop), (fingerprint, twin)]:
        shown = run_reverie_in_process(env, "token", "show", choice)
        assert (shown.returncode, shown.stdout) == (0, token + "\n"), shown.stderr
    refused = run_reverie_in_process(env, "token", "show", "twin")
    assert refused.returncode == 2 and "2 tokens" in refused.stderr and refused.stdout == ""
    assert twin not in refused.stderr


# --- the file's safety checks -------------------------------------------------------------


def test_token_commands_run_at_the_same_moment_lose_no_change(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    names = [f"device-{number}" for number in range(6)]
    commands = [
        subprocess.Popen(
            [str(REVERIE), "token", "create", "--profile", "alice", "--name", name],
            env=token_env(tokens),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    for command in commands:
        _, errors = command.communicate(timeout=120)
        assert command.returncode == 0, errors
    assert sorted(grant.name for grant in load_token_file(tokens).tokens) == names  # type: ignore[type-var]


def test_a_token_granted_twice_is_refused_naming_the_grants_not_the_token(
    tmp_path: Path, server_env: dict[str, str]
) -> None:
    tokens = tmp_path / "tokens.json"
    shared = create(tokens, "alice", "laptop")
    content = json.loads(tokens.read_text())
    content["tokens"].append({"token": shared, "profile": "bob", "name": "borrowed"})
    tokens.write_text(json.dumps(content))
    tokens.chmod(0o600)

    listed = run_reverie_in_process(token_env(tokens), "token", "list")
    started = start_failure(
        {**server_env, "REVERIE_TOKENS_FILE": str(tokens)}, "--transport", "http", "--port", str(free_port())
    )
    for refusal in (listed.stderr, started):
        assert str(tokens) in refusal and "the same token twice" in refusal, refusal
        assert "as laptop (" in refusal and "as borrowed (" in refusal and "profile bob" in refusal
        assert shared not in refusal
    assert listed.returncode == 2 and listed.stdout == ""


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604], ids=["0600", "0640", "0604"])
def test_a_token_file_others_can_read_is_named_at_start_with_the_fix(
    tmp_path: Path, server_env: dict[str, str], mode: int
) -> None:
    tokens = tmp_path / "tokens.json"
    add_token(tokens, server_env["REVERIE_PROFILE"], ["read", "write"], name="local")
    tokens.chmod(mode)
    port, log = free_port(), tmp_path / "server.log"
    env = {**server_env, "REVERIE_TOKENS_FILE": str(tokens), "REVERIE_HOME": str(tmp_path / "home")}
    command = [str(REVERIE), "serve", "--transport", "http", "--port", str(port), "--no-scheduler"]
    with serving(command, env, port, log):
        pass
    warned = f"can be read by other users (mode {mode:o})" in log.read_text()
    assert warned == bool(mode & 0o077), log.read_text()
    assert (f"chmod 600 {tokens}" in log.read_text()) == warned


def test_a_symlinked_token_file_is_written_through_and_a_dangling_one_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "managed" / "tokens.json"
    link = tmp_path / "tokens.json"
    link.symlink_to(target)
    env = token_env(link)

    refused = run_reverie_in_process(env, "token", "create", "--profile", "alice")
    assert refused.returncode == 2, refused.stderr
    assert f"{link} is a symlink to {target}, which does not exist" in refused.stderr
    assert link.is_symlink() and not target.exists()

    target.parent.mkdir()
    target.write_text('{"tokens": []}')
    token = create(link, "alice", "laptop")
    assert link.is_symlink() and [grant.token for grant in load_token_file(target).tokens] == [token]
    assert run_reverie_in_process(env, "token", "revoke", "laptop").returncode == 0
    assert link.is_symlink() and load_token_file(target).tokens == []


# --- scopes and names ---------------------------------------------------------------------


async def test_a_write_token_reads_too(http_server: HttpServer, profile_id: str) -> None:
    writer = await anyio.to_thread.run_sync(create, http_server.tokens_file, profile_id, "writer", "write")
    assert await initialize_status(http_server, writer) == 200
    async with httpx2.AsyncClient(base_url=http_server.base, timeout=30) as page:
        assert (await page.post("/review/login", data={"token": writer})).status_code == 303
    listed = await reverie_in_process(token_env(http_server.tokens_file), "token", "list")
    assert ["writer", profile_id, "read,write"] in [line.split()[1:] for line in listed.stdout.splitlines()]


async def test_a_token_name_is_one_printable_line_and_shown_escaped(
    http_server: HttpServer, profile_id: str
) -> None:
    env = token_env(http_server.tokens_file)
    before = http_server.tokens_file.read_bytes()
    for name in ("laptop\nINFO forged", "bell\x07", "tab\there"):
        refused = await reverie_in_process(env, "token", "create", "--profile", profile_id, "--name", name)
        assert refused.returncode == 2 and "control characters" in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr
    assert http_server.tokens_file.read_bytes() == before

    # A name written into the file by hand still cannot forge a log line or a listing row.
    content = json.loads(before)
    forged = {"token": "x" * 32, "profile": profile_id, "scopes": ["read"], "name": "laptop\nINFO forged"}
    http_server.tokens_file.write_text(json.dumps({"tokens": [*content["tokens"], forged]}))
    assert await initialize_status(http_server, "x" * 32) == 200
    logged = http_server.log.read_text()
    assert "added laptop\\nINFO forged (" in logged
    assert not any(line.startswith("INFO forged") for line in logged.splitlines())
    listed = (await reverie_in_process(env, "token", "list")).stdout.splitlines()
    assert len(listed) == 1 + len(content["tokens"]) + 1 and not listed[-1].startswith("INFO"), listed
