"""What hosts and registries read about Reverie without running it says what the server does: the
Claude Desktop bundle's manifest (packaging/mcpb/manifest.json) and the MCP Registry's entry
(server.json) name the tools and prompts the server lists, carry the package's version, map
their settings onto variables the server reads, and mark the password secret. The MCPB CLI
validates the manifest (`make test` installs it and says where, in REVERIE_MCPB)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import TextContent

from graph.clock import machine_timezone
from server.app import build_server
from server.serve_cli import INSPECTOR
from server.settings import ReverieSettings, load_settings
from tests.conftest import not_provisioned

REPOSITORY = Path(__file__).resolve().parent.parent
MANIFEST = REPOSITORY / "packaging" / "mcpb" / "manifest.json"
SERVER_JSON = REPOSITORY / "server.json"
CHANGELOG = REPOSITORY / "CHANGELOG.md"
PROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
SECRETS = {"NEO4J_PASSWORD"}
# The official registry's rules for these fields (its server.json schema, 2025-12-11).
REGISTRY_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
REGISTRY_DESCRIPTION_MAX = 100


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def listed_by_the_server(tmp_path: Path) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The tools (name, first paragraph) and prompts (with their text for default arguments) the
    server lists; built without a model or a database, neither of which listing needs."""
    server = build_server(ReverieSettings(reverie_home=tmp_path, reverie_embedding_model="off"))

    async def listing() -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        tools = [
            {"name": tool.name, "description": " ".join((tool.description or "").split("\n\n")[0].split())}
            for tool in await server.list_tools()
        ]
        prompts = []
        for prompt in await server.list_prompts():
            [message] = (await server.get_prompt(prompt.name)).messages  # type: ignore[union-attr]
            assert isinstance(message.content, TextContent)
            arguments = [argument.name for argument in prompt.arguments or []]
            prompts.append(
                {"name": prompt.name, "description": prompt.description, "arguments": arguments}
                | {"text": message.content.text}
            )
        return tools, prompts

    return anyio.run(listing)


@pytest.mark.unit
def test_the_bundle_lists_the_tools_and_prompts_the_server_lists(tmp_path: Path) -> None:
    tools, prompts = listed_by_the_server(tmp_path)
    manifest = load(MANIFEST)
    # On a mismatch, paste the server's side into packaging/mcpb/manifest.json.
    assert manifest["tools"] == tools, json.dumps(tools, indent=2)
    assert manifest["prompts"] == prompts, json.dumps(prompts, indent=2)


@pytest.mark.unit
def test_the_bundle_and_the_registry_entry_carry_the_package_s_name_and_version() -> None:
    manifest, entry = load(MANIFEST), load(SERVER_JSON)
    [package] = entry["packages"]
    assert manifest["name"] == package["identifier"] == PROJECT["name"]
    assert manifest["version"] == entry["version"] == package["version"] == PROJECT["version"]
    assert manifest["compatibility"]["runtimes"]["python"] == PROJECT["requires-python"]


@pytest.mark.unit
def test_the_server_reports_the_version_in_pyproject_toml_and_the_changelog(tmp_path: Path) -> None:
    server = build_server(ReverieSettings(reverie_home=tmp_path, reverie_embedding_model="off"))
    # serverInfo.version is the installed package's: an older one means this checkout is not installed.
    assert server.version == PROJECT["version"], "the installed package is stale: run make setup"
    assert f"## [{PROJECT['version']}] - " in CHANGELOG.read_text(), "CHANGELOG.md has no entry for it"


@pytest.mark.unit
def test_the_bundle_s_settings_reach_the_server_as_the_variables_it_reads() -> None:
    manifest = load(MANIFEST)
    options, env = manifest["user_config"], manifest["server"]["mcp_config"]["env"]
    references = {name: re.fullmatch(r"\$\{user_config\.(\w+)\}", value) for name, value in env.items()}
    mapped = {found.group(1): name for name, found in references.items() if found}
    assert len(mapped) == len(env), env
    assert set(mapped) == set(options)
    assert {name.lower() for name in env} <= set(ReverieSettings.model_fields)
    assert {mapped[key] for key, option in options.items() if option.get("sensitive")} == SECRETS
    # Claude Desktop leaves `${user_config.x}` as it is when x has no value and no default.
    assert all("default" in option for option in options.values())
    assert options["neo4j_uri"]["default"] == ""  # empty: the managed local Neo4j


def host_value(value: object) -> str:
    """A setting's value as a host puts it in the environment (a boolean as true or false)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.unit
def test_the_bundle_s_dreaming_settings_as_left_keep_nights_off_in_the_machine_s_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manifest = load(MANIFEST)
    options, env = manifest["user_config"], manifest["server"]["mcp_config"]["env"]
    for name, reference in env.items():
        monkeypatch.setenv(name, host_value(options[reference[len("${user_config.") : -1]]["default"]))
    defaults = load_settings().dreaming_defaults()
    assert (defaults.enabled, defaults.start_time_local) == (False, "03:00")
    assert (defaults.timezone, defaults.sources["timezone"]) == (machine_timezone(), "default")
    monkeypatch.setenv("DREAMING_ENABLED", host_value(True))
    monkeypatch.setenv("DREAMING_TIMEZONE", "Europe/Lisbon")
    chosen = load_settings().dreaming_defaults()
    assert (chosen.enabled, chosen.timezone) == (True, "Europe/Lisbon")


@pytest.mark.unit
def test_the_registry_entry_runs_the_pypi_package_with_uvx_over_stdio_and_marks_secrets() -> None:
    entry = load(SERVER_JSON)
    assert REGISTRY_NAME.fullmatch(entry["name"])
    assert 0 < len(entry["description"]) <= REGISTRY_DESCRIPTION_MAX
    assert entry["$schema"].endswith("/2025-12-11/server.schema.json")
    [package] = entry["packages"]
    assert (package["registryType"], package["runtimeHint"]) == ("pypi", "uvx")
    assert package["transport"] == {"type": "stdio"}
    assert [argument["value"] for argument in package["packageArguments"]] == ["serve"]
    variables = {variable["name"]: variable for variable in package["environmentVariables"]}
    assert {name.lower() for name in variables} <= set(ReverieSettings.model_fields)
    assert all(variable["description"] for variable in variables.values())
    assert {name for name, variable in variables.items() if variable.get("isSecret")} == SECRETS
    # The registry checks that the PyPI package's description (the README) names the entry.
    assert f"mcp-name: {entry['name']}" in (REPOSITORY / "README.md").read_text()


@pytest.mark.unit
def test_the_host_configuration_runs_the_published_package_with_the_server_s_variables() -> None:
    [entry] = load(REPOSITORY / "mcp.json")["mcpServers"].values()
    assert entry["command"] == "uvx"
    assert entry["args"] == ["--from", f"git+{load(SERVER_JSON)['repository']['url']}", "reverie", "serve"]
    assert {name.lower() for name in entry["env"]} <= set(ReverieSettings.model_fields)


@pytest.mark.unit
def test_the_inspector_is_pinned_to_one_version_in_the_banner_the_makefile_and_the_readme() -> None:
    makefile = (REPOSITORY / "Makefile").read_text()
    version = re.search(r"^INSPECTOR_VERSION := (\S+)$", makefile, re.MULTILINE)
    assert version is not None
    pinned = f"npx -y @modelcontextprotocol/inspector@{version.group(1)}"
    assert pinned == INSPECTOR
    readme = " ".join((REPOSITORY / "README.md").read_text().split())
    commands = re.findall(r"npx[^`]*?@modelcontextprotocol/inspector\S*", readme)
    assert commands and set(commands) == {pinned}


def mcpb_command() -> list[str]:
    configured = os.environ.get("REVERIE_MCPB")
    if not configured:
        not_provisioned("REVERIE_MCPB is unset: run through `make test`, which installs the MCPB CLI")
    command = shlex.split(configured)
    if not all(Path(part).is_file() for part in command):
        if shutil.which("npm") is None:
            not_provisioned("npm is missing, so `make mcpb` could not install the MCPB CLI")
        pytest.fail(f"REVERIE_MCPB={configured} names files that are not there; run `make mcpb`")
    return command


def test_the_mcpb_cli_validates_the_manifest() -> None:
    validated = subprocess.run(
        [*mcpb_command(), "validate", str(MANIFEST)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "Manifest schema validation passes" in validated.stdout
