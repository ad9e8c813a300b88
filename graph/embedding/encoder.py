"""Running one embedding model on the CPU: tokenise, run the ONNX graph, pool, normalise.

`OnnxEncoder` is synchronous and thread-safe. `Embedder` wraps it for async callers: texts are
encoded in a worker thread (the event loop keeps serving). Passages take turns, one model run at
a time. A query does not queue behind them: recall waits for its question's vector, so it is
encoded at once, beside a turn that may be running, and a question a profile asked a moment ago
is not encoded again (`QueryVectors`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Final

import anyio
import numpy as np
import onnxruntime as ort
from numpy.typing import NDArray
from tokenizers import Tokenizer

from graph.embedding.catalog import ModelSpec, Pooling
from graph.embedding.provision import ModelFiles, ModelUnavailableError

Vector = list[float]

# Questions kept per process, across profiles: 1,024 vectors of 384 float32 take 1.5 MiB.
QUERY_VECTORS_KEPT: Final = 1024
# Seconds a question's vector is kept after it was encoded, however often it is asked again. A
# forget or an erase drops the profile's vectors at once only in the process that ran it; in the
# other processes on the same Neo4j (which cannot be told) this bounds how long they serve them.
QUERY_VECTORS_LIFETIME: Final = 600.0


class OnnxEncoder:
    def __init__(self, files: ModelFiles) -> None:
        self.spec: ModelSpec = files.spec
        try:
            options = ort.SessionOptions()
            options.log_severity_level = 3  # the quantized graphs warn about unused initialisers
            # Idle worker threads would otherwise spin after each run, taking the CPU that Neo4j,
            # on the same few cores, needs to commit the write the vector was made for.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # One thread per run: the model shares the machine with Neo4j, which commits the
            # writes the vectors are for. Measured on two cores at 1,000 memories, one thread
            # against onnxruntime's default of one per core: remember one at a time 52 against
            # 42 per second, bulk 111 against 94, a query encoded in 5.8 against 6.7 ms.
            options.intra_op_num_threads = 1
            self._session = ort.InferenceSession(str(files.onnx), options, providers=["CPUExecutionProvider"])
            self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as error:
            raise ModelUnavailableError(
                f"cannot load the {self.spec.name} model from {files.onnx.parent} ({error}); remove "
                "that folder and run `reverie embeddings install` again"
            ) from error
        self._tokenizer.enable_truncation(self.spec.max_tokens)
        self._inputs = {node.name for node in self._session.get_inputs()}

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        """Unit-length vectors, in the order of `texts`, each text run on its own.

        The quantized models quantize their activations with one scale per run, taken over every
        text in it, so a text run beside others gets a slightly different vector (cosine 0.994 to
        0.999 on LoCoMo turns) depending on what it was run with. Run alone, a text always gets
        the same vector, whether it came through `remember`, a backfill or a busy moment. It costs
        little: on LoCoMo turns one at a time took 4.0 ms a text against 5.0 in a batch (no
        padding to the longest), on short uniform sentences 2.2 against 1.1."""
        return [self._run(text) for text in texts]

    def _run(self, text: str) -> Vector:
        ids = np.array([self._tokenizer.encode(text).ids], dtype=np.int64)
        # One text, so every token is real: the mask is all ones and pooling a plain mean.
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: NDArray[np.float32] = self._session.run(None, feeds)[0][0]
        pooled = hidden[0] if self.spec.pooling is Pooling.CLS else hidden.mean(axis=0)
        unit: Vector = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32).tolist()
        return unit


class Embedder:
    """The model as memory code uses it: passages and queries get the prefixes the model wants."""

    def __init__(self, encoder: OnnxEncoder) -> None:
        self.spec = encoder.spec
        self.model_id = encoder.spec.model_id
        self._encoder = encoder
        # Passages take turns: one model run at a time, beside Neo4j on the same cores.
        self._turn = threading.Lock()
        self._queries = QueryVectors(QUERY_VECTORS_KEPT)

    async def passages(self, texts: Sequence[str]) -> list[Vector]:
        prefix = self.spec.passage_prefix
        return await anyio.to_thread.run_sync(self._encode_in_turn, [prefix + text for text in texts])

    async def query(self, text: str, asker: str) -> Vector:
        """The question's vector; a question `asker` (a profile) asked a moment ago is taken
        from `QueryVectors` rather than encoded again."""
        kept = self._queries.get(asker, text)
        if kept is not None:
            return kept
        vectors = await anyio.to_thread.run_sync(self._encoder.encode, [self.spec.query_prefix + text])
        self._queries.keep(asker, text, vectors[0])
        return vectors[0]

    def drop_questions(self, asker: str) -> None:
        """Forget the vectors of every question `asker` asked (after a forget or an erase)."""
        self._queries.drop(asker)

    def questions_kept(self, asker: str) -> int:
        return self._queries.held(asker)

    def _encode_in_turn(self, texts: list[str]) -> list[Vector]:
        with self._turn:
            return self._encoder.encode(texts)


class QueryVectors:
    """The vectors of the latest questions, by who asked them and a digest of their words, each
    kept `lifetime` seconds after it was encoded and the oldest dropped first when `size` are
    kept. A host may ask the same question again (at the start of each conversation, on a retry),
    and its encoding is a third of a recall's CPU in the server. Kept per asker, so that how fast
    a recall answers never tells one profile what another asked, and by digest, so that no
    question's words stay in the process after its recall."""

    def __init__(
        self,
        size: int,
        lifetime: float = QUERY_VECTORS_LIFETIME,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._size = size
        self._lifetime = lifetime
        self._clock = clock
        # Oldest first, each with the time it expires. An answer does not move or renew a vector,
        # so this order is also the order they expire in, and shedding them costs only their count.
        self._vectors: OrderedDict[tuple[str, bytes], tuple[NDArray[np.float32], float]] = OrderedDict()

    def get(self, asker: str, text: str) -> Vector | None:
        self._shed_expired()
        kept = self._vectors.get(_key(asker, text))
        if kept is None:
            return None
        # A new list each time: the caller owns the list it is given. The model made float32s,
        # so the list holds the very numbers it gave.
        unit: Vector = kept[0].tolist()
        return unit

    def keep(self, asker: str, text: str, vector: Vector) -> None:
        self._shed_expired()
        key = _key(asker, text)
        self._vectors[key] = (np.array(vector, dtype=np.float32), self._clock() + self._lifetime)
        self._vectors.move_to_end(key)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)

    def drop(self, asker: str) -> None:
        for key in [key for key in self._vectors if key[0] == asker]:
            del self._vectors[key]

    def held(self, asker: str) -> int:
        """How many vectors of `asker`'s questions are kept."""
        self._shed_expired()
        return sum(1 for kept_asker, _ in self._vectors if kept_asker == asker)

    def _shed_expired(self) -> None:
        now = self._clock()
        while self._vectors and next(iter(self._vectors.values()))[1] <= now:
            self._vectors.popitem(last=False)


def _key(asker: str, text: str) -> tuple[str, bytes]:
    return asker, hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
