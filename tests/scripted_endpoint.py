"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, standing in for Ollama,
llama.cpp, vLLM or a hosted API: it answers each POST /v1/chat/completions from a script (JSON,
an HTTP error, garbage, an answer slower than the client waits, a dropped connection, or a body
sent in pieces, with a Content-Length or chunked) and records what it was sent and how much of each
answer the client took."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWERING_MODEL = "scripted-endpoint-7b"
KEY = "sk-test-7d1f0c9a2b-never-shown"
# An answer's body is written in pieces of this size, so a client that stops reading shows.
PIECE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    drop: bool = False  # close the connection without answering
    chunked: bool = False  # Transfer-Encoding: chunked instead of a Content-Length


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        return str(self.body["messages"][-1]["content"])


Script = Callable[[Received], Reply]


def completion(text: str, model: str | None = ANSWERING_MODEL) -> Reply:
    """A chat completion as OpenAI-compatible servers send it; `model` None leaves it out."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if model is not None:
        body["model"] = model
    return Reply(body=json.dumps(body).encode())


def padded(text: str, size: int, *, chunked: bool = False) -> Reply:
    """A completion of `text` that a field clients ignore fills to at least `size` bytes."""
    body = json.loads(completion(text).body) | {"padding": "x" * size}
    return Reply(body=json.dumps(body).encode(), chunked=chunked)


def error(status: int) -> Reply:
    return Reply(status=status, body=json.dumps({"error": {"message": f"scripted {status}"}}).encode())


@dataclass
class ScriptedEndpoint:
    port: int
    received: list[Received] = field(default_factory=list)
    # Per answer, the body bytes written before the client hung up (all of them if it did not).
    written: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The base URL, as REVERIE_MODEL_URL takes it."""
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(endpoint: ScriptedEndpoint, script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            received = Received(self.path, dict(self.headers.items()), json.loads(self.rfile.read(length)))
            endpoint.received.append(received)
            reply = script(received) if self.path == "/v1/chat/completions" else error(404)
            time.sleep(reply.delay)
            if reply.drop:
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            endpoint.written.append(0)
            # The client may have given up on a slow or long answer: writing to it then fails.
            with suppress(OSError):
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                if reply.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self._write_body(reply)

        def _write_body(self, reply: Reply) -> None:
            for start in range(0, len(reply.body), PIECE_BYTES):
                piece = reply.body[start : start + PIECE_BYTES]
                framed = b"%x\r\n%s\r\n" % (len(piece), piece) if reply.chunked else piece
                self.wfile.write(framed)
                endpoint.written[-1] += len(piece)
            if reply.chunked:
                self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up on a slow answer is part of the script


@contextmanager
def scripted_endpoint(script: Script) -> Iterator[ScriptedEndpoint]:
    server = _Server(("127.0.0.1", 0), BaseHTTPRequestHandler)
    endpoint = ScriptedEndpoint(port=server.server_address[1])
    server.RequestHandlerClass = _handler(endpoint, script)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
