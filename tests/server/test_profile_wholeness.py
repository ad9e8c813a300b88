"""An export file proves it is whole (its closing line counts and hashes what came before): a file
cut between lines, changed, or of the old format is refused and writes nothing, and an import
cut short is marked, refused to another file and finished by its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anyio
import pytest

from graph.access import ConnectionSettings, GraphStore, ProfileTx
from graph.transfer import queries as q
from graph.transfer.load import _write_batches, check_file
from tests.server.conftest import CallTool, reverie_in_process
from tests.server.support import ANY_NODE, claim_of, database

pytestmark = pytest.mark.anyio


async def exported(call: CallTool, env: dict[str, str], profile_id: str, path: Path) -> list[str]:
    """Three memories with a claim each, exported: a header, nodes, relationships, the closing line."""
    for place in ("Leeds", "Porto", "Lyon"):
        await call("remember", content=f"I love the old town of {place}.", claims=[claim_of("likes", place)])
    return await export_lines(env, profile_id, path)


async def export_lines(env: dict[str, str], profile_id: str, path: Path) -> list[str]:
    done = await reverie_in_process(env, "profile", "export", profile_id, "--output", str(path))
    assert done.returncode == 0, done.stderr
    return (await anyio.Path(path).read_text(encoding="utf-8")).splitlines(keepends=True)


def changed(lines: list[str]) -> list[str]:
    """The second line (a node) with other words, the closing line kept."""
    node = json.loads(lines[1])
    node["properties"]["content"] = "I never lived anywhere."
    return [lines[0], json.dumps(node, sort_keys=True) + "\n", *lines[2:]]


BROKEN = {
    "header only": lambda lines: lines[:1],
    "first 3 lines": lambda lines: lines[:3],
    "cut among the relationships": lambda lines: lines[:-2],
    "without its closing line": lambda lines: lines[:-1],
    "a line changed": changed,
    "a line after the closing line": lambda lines: [*lines, lines[1]],
}


@pytest.mark.parametrize("case", list(BROKEN), ids=list(BROKEN))
async def test_a_file_that_is_not_whole_is_refused_and_nothing_is_written(
    case: str, call: CallTool, server_env: dict[str, str], profile_id: str, tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:  # fmt: skip
    lines = await exported(call, server_env, profile_id, tmp_path / "whole.jsonl")
    assert len(lines) > 8 and json.loads(lines[-1])["end"] == "reverie_export"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(BROKEN[case](lines)), encoding="utf-8")
    target = profile_id + "-copy"

    refused = await reverie_in_process(server_env, "profile", "import", str(broken), "--profile", target)

    assert refused.returncode == 2, refused.stdout
    assert "Nothing was imported" in refused.stderr and "Imported" not in refused.stdout
    assert (await database(neo4j_settings, ANY_NODE, profile_id=target))[0]["nodes"] == 0


async def test_a_format_1_file_is_read_only_when_accepted_as_unproven(
    call: CallTool, server_env: dict[str, str], profile_id: str, tmp_path: Path,
    neo4j_settings: ConnectionSettings,
) -> None:  # fmt: skip
    lines = await exported(call, server_env, profile_id, tmp_path / "whole.jsonl")
    header = json.loads(lines[0]) | {"reverie_export": 1}
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps(header) + "\n" + "".join(lines[1:-1]), encoding="utf-8")
    assert (await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")).returncode == 0

    refused = await reverie_in_process(server_env, "profile", "import", str(old), "--profile", profile_id)
    assert refused.returncode == 2 and "reverie profile export" in refused.stderr
    assert "--accept-unproven" in refused.stderr
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id))[0]["nodes"] == 0

    accepted = await reverie_in_process(
        server_env, "profile", "import", str(old), "--profile", profile_id, "--accept-unproven"
    )
    assert accepted.returncode == 0, accepted.stderr
    assert (await export_lines(server_env, profile_id, tmp_path / "again.jsonl"))[1:-1] == lines[1:-1]


def resealed(lines: list[str]) -> str:
    """`lines` (header, nodes, relationships) with the closing line an export would write."""
    nodes = sum(1 for line in lines[1:] if '"node"' in line)
    closing = {
        "end": "reverie_export",
        "nodes": nodes,
        "relationships": len(lines) - 1 - nodes,
        "sha256": hashlib.sha256("".join(lines).encode("utf-8")).hexdigest(),
    }
    return "".join(lines) + json.dumps(closing, sort_keys=True) + "\n"


async def test_an_import_cut_short_is_refused_to_another_file_and_finished_by_its_own(
    call: CallTool, server_env: dict[str, str], profile_id: str, tmp_path: Path, store: GraphStore,
    neo4j_settings: ConnectionSettings,
) -> None:  # fmt: skip
    whole = tmp_path / "whole.jsonl"
    lines = await exported(call, server_env, profile_id, whole)
    other = tmp_path / "other.jsonl"
    other.write_text(resealed(changed(lines)[:-1]), encoding="utf-8")
    assert check_file(other).nodes == check_file(whole).nodes  # a whole file, only another one
    assert (await reverie_in_process(server_env, "profile", "delete", profile_id, "--yes")).returncode == 0
    # What an import killed after its nodes leaves: the mark, the nodes, no relationships.
    graph = store.profile(profile_id)
    await graph.write(ProfileTx.run, q.MARK_IMPORT, sha256=check_file(whole).sha256.hexdigest())
    await _write_batches(graph, whole, edges=False)
    half = (await database(neo4j_settings, ANY_NODE, profile_id=profile_id))[0]["nodes"]

    exporting = await reverie_in_process(
        server_env, "profile", "export", profile_id, "--output", str(tmp_path / "x.jsonl")
    )
    assert exporting.returncode == 2 and "did not finish" in exporting.stderr
    another = await reverie_in_process(server_env, "profile", "import", str(other), "--profile", profile_id)
    assert another.returncode == 2 and "did not finish" in another.stderr
    assert (await database(neo4j_settings, ANY_NODE, profile_id=profile_id))[0]["nodes"] == half

    finished = await reverie_in_process(server_env, "profile", "import", str(whole), "--profile", profile_id)
    assert finished.returncode == 0, finished.stderr
    assert (await export_lines(server_env, profile_id, tmp_path / "again.jsonl"))[1:-1] == lines[1:-1]
