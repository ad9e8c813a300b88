"""Neo4j credentials: never shown, and a refusal of them told as such, without a traceback.

The wrong-password server test runs on a Neo4j user of its own, made for it and dropped after
it: Neo4j locks a user out for five seconds after three wrong passwords in a row, and only a
user that exists (a made-up name is refused as a wrong password is, but never locked out), so the
shared instance's `neo4j` user is never the one locked out.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError
from pydantic import ValidationError

from graph.access import ConnectionSettings, GraphStore
from graph.errors import GraphCredentialsError, GraphTimeoutError, GraphUnavailableError, shown_uri
from server.settings import ReverieSettings
from tests.server.conftest import error_text, http_mcp, http_serving, run_reverie
from tests.server.support import start_failure

RATE_LIMITED = "Neo.ClientError.Security.AuthenticationRateLimit"
SECRET = "TopSecretPw2"


# --- URIs are shown without their user and password ----------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("bolt://127.0.0.1:7687", "bolt://127.0.0.1:7687"),
        ("neo4j+s://x.databases.neo4j.io?policy=eu", "neo4j+s://x.databases.neo4j.io?policy=eu"),
        (f"bolt://neo4j:{SECRET}@127.0.0.1:1", "bolt://***@127.0.0.1:1"),
        ("bolt://neo4j@127.0.0.1:1", "bolt://***@127.0.0.1:1"),
        # Unencoded, these end the user part for a URI parser, which would show the rest.
        ("neo4j+s://neo4j:a/b?c#d@host:7687", "neo4j+s://***@host:7687"),
        ("bolt://neo4j:p@ss@host", "bolt://***@host"),
        ("bolt://neo4j:a://b@host", "bolt://***@host"),
        ("neo4j:secret@host:7687", "***@host:7687"),
    ],
)
def test_a_uri_is_shown_without_its_user_and_password(uri: str, shown: str) -> None:
    assert shown_uri(uri) == shown


@pytest.mark.unit
def test_errors_and_settings_never_quote_a_password_given_in_a_uri() -> None:
    uri = f"bolt://neo4j:{SECRET}@127.0.0.1:1"
    errors = [
        GraphUnavailableError(uri, "no answer on Bolt"),
        GraphCredentialsError(uri, RATE_LIMITED),
        GraphTimeoutError(uri, 15),
    ]
    for error in errors:
        assert "bolt://***@127.0.0.1:1" in str(error) and SECRET not in str(error) + error.uri
    with pytest.raises(ValidationError) as refused:
        ReverieSettings(neo4j_uri=uri, neo4j_password=SECRET)
    assert SECRET not in str(refused.value) and "NEO4J_PASSWORD" in str(refused.value)
    settings = ReverieSettings(neo4j_uri="bolt://127.0.0.1:1", neo4j_password=SECRET)
    assert SECRET not in repr(settings)
    assert SECRET not in repr(ConnectionSettings("bolt://127.0.0.1:1", "neo4j", SECRET))


@pytest.mark.parametrize(
    "uri",
    [
        f"bolt://neo4j:{SECRET}@127.0.0.1:1",
        f"neo4j+s://neo4j:{SECRET}@x.databases.neo4j.io",
        f"http://user:{SECRET}@127.0.0.1:1",
        f"bolt://neo4j:{SECRET}/x@127.0.0.1:1",
    ],
)
def test_a_uri_with_a_password_stops_the_start_without_showing_it(
    server_env: dict[str, str], uri: str
) -> None:
    text = start_failure({**server_env, "NEO4J_URI": uri})
    assert SECRET not in text and "***@" in text, text
    assert "NEO4J_USERNAME" in text and "NEO4J_PASSWORD" in text, text


# --- a refusal of the credentials ----------------------------------------------------------


@pytest.fixture
def own_user(neo4j_settings: ConnectionSettings) -> Iterator[str]:
    """A Neo4j user of this test alone, dropped after it."""
    name = f"reverie-test-{uuid.uuid4().hex[:8]}"
    admin = (neo4j_settings.username, neo4j_settings.password)
    with GraphDatabase.driver(neo4j_settings.uri, auth=admin) as driver:
        driver.execute_query(
            f"CREATE USER `{name}` SET PASSWORD $password CHANGE NOT REQUIRED",
            password=uuid.uuid4().hex,
            database_="system",
        )
        try:
            yield name
        finally:
            driver.execute_query(f"DROP USER `{name}` IF EXISTS", database_="system")


def lock_out(uri: str, user: str) -> None:
    """Wrong passwords for `user` until Neo4j answers that it refuses the user for a while."""
    for _ in range(5):
        try:
            with GraphDatabase.driver(uri, auth=(user, "wrong")) as driver:
                driver.verify_connectivity()
        except ClientError as error:
            if error.code == RATE_LIMITED:
                return
            assert isinstance(error, AuthError), error
    pytest.fail(f"Neo4j did not lock {user} out after five wrong passwords")


@pytest.mark.anyio
async def test_a_user_neo4j_does_not_know_is_a_refusal_of_the_credentials(
    neo4j_settings: ConnectionSettings,
) -> None:
    store = GraphStore.connect(ConnectionSettings(neo4j_settings.uri, "reverie-wrong", SECRET))
    try:
        with pytest.raises(GraphCredentialsError) as refused:
            await store.verify()
    finally:
        await store.close()
    message = str(refused.value)
    assert f"Neo4j at {neo4j_settings.uri} refused the credentials: no such user" in message
    assert "Neo.ClientError.Security.Unauthorized" in message and "NEO4J_PASSWORD" in message


def test_a_command_with_a_wrong_password_ends_with_one_line(
    server_env: dict[str, str], neo4j_settings: ConnectionSettings
) -> None:
    env = {**server_env, "NEO4J_USERNAME": "reverie-wrong", "NEO4J_PASSWORD": SECRET}
    done = run_reverie(env, "profile", "list")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and SECRET not in done.stderr, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"reverie: Neo4j at {neo4j_settings.uri} refused the credentials"), last


@pytest.mark.anyio
async def test_a_server_with_a_wrong_password_answers_each_call_that_neo4j_refused_it(
    server_env: dict[str, str],
    profile_id: str,
    tmp_path: Path,
    own_user: str,
    neo4j_settings: ConnectionSettings,
) -> None:
    env = {**server_env, "NEO4J_USERNAME": own_user, "NEO4J_PASSWORD": SECRET}
    with http_serving(env, profile_id, tmp_path, REVERIE_EMBEDDING_MODEL="off") as server:
        async with http_mcp(server, server.write_token) as client:
            first = error_text(await client.call_tool("recall_memory", {"query": "anything"}))
            lock_out(neo4j_settings.uri, own_user)
            locked = error_text(await client.call_tool("remember", {"content": "Written while refused."}))
        log = server.log.read_text()
    for message in (first, locked):
        assert f"Neo4j at {neo4j_settings.uri} refused the credentials" in message, message
        assert "NEO4J_USERNAME / NEO4J_PASSWORD" in message and "internal error" not in message
    assert "too many wrong attempts in a row" in locked and f"right password ({RATE_LIMITED})" in locked
    # Each refusal is one line of the log (for a call, the SDK's line for a failed tool): no
    # traceback, no error, the password nowhere.
    assert "Traceback" not in log and " ERROR " not in log and SECRET not in log, log
    [refused] = [line for line in log.splitlines() if "Tool 'remember' failed" in line]
    assert "refused the credentials" in refused and RATE_LIMITED in refused, log
