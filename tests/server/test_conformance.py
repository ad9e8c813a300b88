"""Other people's clients against a real `reverie serve --transport http` with REVERIE_PUBLIC_URL:
the MCP conformance suite (the version the Makefile pins) with its authorization-server scenarios,
the consent given in headless Chromium, and its server scenarios that apply to Reverie in both
protocol eras; and the MCP Inspector's CLI signing in by OAuth. docs/connectors.md lists which
scenarios apply and why the others do not."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from bench.balancer import Balancer, BalancerMissingError, balancing, haproxy_path
from bench.processes import free_port
from tests.conftest import not_provisioned
from tests.server.browser import browser, click_through, open_consent, page
from tests.server.conftest import HttpServer, http_serving
from tests.server.connector_support import env, profile

__all__ = ["browser", "env", "page", "profile"]  # shared fixtures, imported so that pytest finds them

Check = dict[str, Any]

# Every spec version the pinned suite lists both authorization-server scenarios under.
AUTHORIZATION_SPEC_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
AUTHORIZATION_SCENARIOS = {"authorization-server-metadata-endpoint", "authorization-code-grant"}
# The server scenarios that test Reverie itself, per protocol era. The others call the suite's
# own fixture tools, prompts and resources (test_simple_text, test://static-text, ...), or a
# capability Reverie does not declare (logging, completions, subscriptions, tasks).
APPLICABLE = {
    "2025-11-25": (
        "server-initialize",
        "server-session-lifecycle",
        "ping",
        "tools-list",
        "tools-call-error",
        "resources-list",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
    ),
    "2026-07-28": (
        "server-stateless",
        "tools-list",
        "tools-call-error",
        "resources-list",
        "sep-2164-resource-not-found",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "caching",
        "http-header-validation",
        "input-required-result-unsupported-methods",
    ),
}
# Checks of an applicable scenario that need the suite's diagnostic tool test_missing_capability.
EXCUSED = {
    "server-stateless": {
        "sep-2575-server-rejects-undeclared-capability",
        "sep-2575-missing-capability-http-400",
    }
}
# The suite names each result folder "<prefix><scenario>-<ISO time with - for : and .>".
RESULT_FOLDER = re.compile(r"^(?:authorization-server-|server-)(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")
SUITE_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def conformance() -> list[str]:
    """The suite's command (Node and its script), as `make conformance` installed it."""
    configured = os.environ.get("REVERIE_CONFORMANCE")
    if not configured:
        not_provisioned(
            "REVERIE_CONFORMANCE is unset: `make test` installs the MCP conformance suite and sets it"
        )
    command = shlex.split(configured)
    if not all(Path(part).is_file() for part in command):
        pytest.fail(
            f"REVERIE_CONFORMANCE={configured} names files that are not there; run `make conformance`"
        )
    return command


@pytest.fixture(scope="module")
def front_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def server(
    env: dict[str, str], profile: str, front_port: int, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """One public server for the module, which also answers under the signing front's address."""
    folder = tmp_path_factory.mktemp("conformance")
    allowed = f"127.0.0.1:{front_port}"
    with http_serving(env, profile, folder, public=True, REVERIE_ALLOWED_HOSTS=allowed) as running:
        yield running


@pytest.fixture(scope="module")
def front(
    server: HttpServer, front_port: int, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Balancer]:
    """HAProxy before the server, signing every request with its read-write token: the suite's
    server scenarios send no Authorization header."""
    try:
        haproxy_path()
    except BalancerMissingError as missing:
        pytest.fail(str(missing))
    folder = tmp_path_factory.mktemp("front")
    with balancing([server.port], folder, front_port, bearer=server.write_token) as balancer:
        yield balancer


def results_in(folder: Path) -> dict[str, list[Check]]:
    """Each scenario's checks, as the suite saved them with `-o folder`."""
    results = {}
    for path in folder.glob("*/checks.json"):
        named = RESULT_FOLDER.match(path.parent.name)
        assert named is not None, path
        results[named["scenario"]] = json.loads(path.read_text())
    return results


def tally(results: dict[str, list[Check]]) -> str:
    """One line a scenario: its checks passed and failed, and those with another status."""
    lines = []
    for scenario, checks in sorted(results.items()):
        statuses = [check["status"] for check in checks]
        others = sorted({status for status in statuses if status not in ("SUCCESS", "FAILURE")})
        counts = ", ".join(f"{statuses.count(status)} {status.lower()}" for status in others)
        line = f"{scenario}: {statuses.count('SUCCESS')} passed, {statuses.count('FAILURE')} failed"
        lines.append(f"{line}{', ' + counts if counts else ''}")
    return "\n".join(lines)


@contextmanager
def suite_running(command: list[str]) -> Iterator[subprocess.Popen[str]]:
    """The suite as a child whose output the test reads line by line; ended if the test fails."""
    suite = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        yield suite
    finally:
        if suite.poll() is None:
            suite.kill()
        suite.communicate()


def authorization_url(suite: subprocess.Popen[str], issuer: str) -> tuple[str, list[str]]:
    """The URL the suite asks a person to open, and what it printed up to there."""
    assert suite.stdout is not None
    printed: list[str] = []
    for line in suite.stdout:
        printed.append(line)
        if line.startswith(f"{issuer}/authorize?"):
            return line.strip(), printed
    raise AssertionError("the suite printed no authorization URL:\n" + "".join(printed))


def register_native_client(server: HttpServer, redirect_uri: str, name: str) -> str:
    """Dynamic Client Registration, as a public client with a loopback callback."""
    metadata = {
        "client_name": name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    }
    answer = httpx2.post(f"{server.base}/register", json=metadata, timeout=30)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


# --- the authorization server ---------------------------------------------------------------


@pytest.mark.parametrize("spec_version", AUTHORIZATION_SPEC_VERSIONS)
def test_the_authorization_server_passes_the_suite_s_scenarios(
    conformance: list[str], server: HttpServer, page: WebDriver, spec_version: str, tmp_path: Path
) -> None:
    """The suite reads the metadata, then sends a person to the authorization URL (the browser
    signs in and allows) and exchanges the code its callback receives."""
    port = free_port()
    client_id = register_native_client(server, f"http://127.0.0.1:{port}/callback", "MCP conformance suite")
    command = [
        *conformance, "authorization", "--url", server.base, "--spec-version", spec_version,
        "--client-id", client_id, "--resource", server.url, "--port", str(port), "-o", str(tmp_path),
    ]  # fmt: skip
    with suite_running(command) as suite:
        url, printed = authorization_url(suite, server.base)
        open_consent(page, url, server.write_token)
        click_through(page, "button[value=allow]")
        rest, _ = suite.communicate(timeout=SUITE_TIMEOUT_S)
    output = "".join(printed) + rest
    results = results_in(tmp_path)
    print(f"\nauthorization, spec {spec_version}:\n{tally(results)}")
    assert set(results) == AUTHORIZATION_SCENARIOS, output
    for scenario, checks in results.items():
        unmet = [f"{check['id']}: {check['status']} {check.get('errorMessage', '')}" for check in checks]
        assert checks and {check["status"] for check in checks} == {"SUCCESS"}, (scenario, unmet)
    assert suite.returncode == 0, output


def test_the_suite_lists_its_authorization_scenarios_under_the_versions_run_here(
    conformance: list[str],
) -> None:
    listed = subprocess.run(
        [*conformance, "list", "--authorization"], capture_output=True, text=True, timeout=60, check=True
    )
    tagged = dict(re.findall(r"^\s+- (\S+) \[([^\]]+)\]$", listed.stdout, re.MULTILINE))
    assert set(tagged) == AUTHORIZATION_SCENARIOS, listed.stdout
    assert {tuple(versions.split(",")) for versions in tagged.values()} == {AUTHORIZATION_SPEC_VERSIONS}


# --- the MCP server, in both protocol eras ----------------------------------------------------


def failed_checks(results: dict[str, list[Check]]) -> dict[str, list[str]]:
    failed = {}
    for scenario, checks in results.items():
        excused = EXCUSED.get(scenario, set())
        failing = [check for check in checks if check["status"] == "FAILURE" and check["id"] not in excused]
        if failing:
            failed[scenario] = [f"{check['id']}: {check.get('errorMessage', '')}" for check in failing]
    return failed


@pytest.mark.parametrize("era", sorted(APPLICABLE))
def test_the_suite_s_server_scenarios_that_apply_pass(
    conformance: list[str], front: Balancer, era: str, tmp_path: Path
) -> None:
    """The era's whole requirement set runs (one start of Node costs more than most scenarios);
    the scenarios that apply are judged."""
    subprocess.run(
        [*conformance, "server", "--url", f"{front.base}/mcp", "--requirements", era, "-o", str(tmp_path)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, check=False,
    )  # fmt: skip
    everything = results_in(tmp_path)
    results = {scenario: checks for scenario, checks in everything.items() if scenario in APPLICABLE[era]}
    statuses = [check["status"] for checks in everything.values() for check in checks]
    whole = (
        f"{len(everything)} scenarios, {statuses.count('SUCCESS')} passed, {statuses.count('FAILURE')} failed"
    )
    print(f"\nserver scenarios, era {era}:\n{tally(results)}\nthe whole requirement set: {whole}")
    assert set(results) == set(APPLICABLE[era])
    assert failed_checks(results) == {}


# --- the MCP Inspector's CLI ------------------------------------------------------------------


def inspector_command(inspector: Path, server: HttpServer, *method: str) -> list[str]:
    return [str(inspector), "--cli", "--transport", "http", "--server-url", server.url, *method]


def inspector_env(home: Path) -> dict[str, str]:
    """The Inspector in a home of its own, keeping its OAuth state in a file there; it opens the
    authorization URL with BROWSER (a no-op: the test's browser follows it) and prints it."""
    return {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "MCP_INSPECTOR_SECRET_STORE": "file",
        "MCP_AUTO_OPEN_ENABLED": "true",
        "BROWSER": "true",
    }


def test_the_inspector_cli_signs_in_by_oauth_calls_tools_with_its_stored_token_until_revoked(
    inspector: Path, server: HttpServer, page: WebDriver, tmp_path: Path
) -> None:
    inspector_home = inspector_env(tmp_path / "inspector")
    callback = f"http://127.0.0.1:{free_port()}/oauth/callback"
    command = inspector_command(inspector, server, "--callback-url", callback, "--method", "tools/list")
    with subprocess.Popen(
        command, env=inspector_home, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    ) as signing_in:  # fmt: skip
        assert signing_in.stderr is not None
        url = next(
            line.split("Please navigate to: ", 1)[1].strip()
            for line in signing_in.stderr
            if "Please navigate to: " in line
        )
        open_consent(page, url, server.write_token)
        click_through(page, "button[value=allow]")
        listed, errors = signing_in.communicate(timeout=SUITE_TIMEOUT_S)
    assert signing_in.returncode == 0, errors
    assert {tool["name"] for tool in json.loads(listed)["tools"]} >= {"remember", "recall_memory"}

    def stored(*method: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            inspector_command(inspector, server, "--stored-auth-only", "--method", "tools/call", *method),
            env=inspector_home, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=SUITE_TIMEOUT_S, check=False,
        )  # fmt: skip

    remembered = stored("--tool-name", "remember", "--tool-arg", "content=The Inspector signed in by OAuth.")
    assert remembered.returncode == 0, remembered.stderr
    assert json.loads(remembered.stdout)["structuredContent"]["fragment"]["id"]

    # The person disconnects it on the review page, where the consent left them signed in.
    page.get(f"{server.base}/review/connectors")
    click_through(page, "//section[h2='MCP Inspector']//button", by=By.XPATH)
    refused = stored("--tool-name", "recall_memory", "--tool-arg", "query=Inspector")
    assert refused.returncode != 0 and '"structuredContent"' not in refused.stdout
