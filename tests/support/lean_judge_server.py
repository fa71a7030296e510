"""A lean loopback chat-completions server for the judge benchmark: one asyncio event loop,
HTTP/1.1 keep-alive, the simulated latency a timer (`loop.call_later`), not a thread.

`tests.support.judge_server` runs a thread per connection (`ThreadingHTTPServer`) and parses
every request with the stdlib's `BaseHTTPRequestHandler`. On a 2-core machine the benchmark's
server shares the cores with the judge processes it measures, so the server's CPU a call is
taken from them; a real provider is remote. This one answers the same requests with the same
bodies (`judge_server._completion` of `marker_reply`, no faults, no batch API) for less of it.

    python -m tests.support.lean_judge_server --port 0 --latency-ms 50

prints `listening http://127.0.0.1:PORT/v1` and serves until SIGTERM; GET /stats returns the
counters in `judge_server`'s shape (`ModelStats.as_dict` by model).

What it parses: a request line, headers, a body of `Content-Length` bytes (a chunked body is
refused with 501), `Connection: close`, `Expect: 100-continue`; requests pipelined on one
connection are answered one after another, in order.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import signal
from collections.abc import Sequence

from tests.support.judge_server import (
    CHAT_PATHS,
    ModelStats,
    _completion,
    _prompt_text,
    marker_reply,
)

MAX_HEAD = 64 * 1024  # bytes of request line and headers at most
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 501: "Not Implemented"}


class _State:
    """The latency and the counters, shared by every connection (one thread: no lock)."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.stats: dict[str, ModelStats] = {}

    def model(self, name: str) -> ModelStats:
        stats = self.stats.get(name)
        if stats is None:
            stats = self.stats[name] = ModelStats()
        return stats


def _response(status: int, body: bytes, *, close: bool = False) -> bytes:
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
    )
    if close:
        head += "Connection: close\r\n"
    return (head + "\r\n").encode("latin-1") + body


class _Connection(asyncio.Protocol):
    """One client connection: at most one request in progress, later ones wait in the
    buffer (HTTP/1.1 answers pipelined requests in order)."""

    def __init__(self, state: _State) -> None:
        self.state = state
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.busy = False  # a request waits for its latency
        self.timer: asyncio.TimerHandle | None = None
        self.continued = False  # 100 Continue sent for the request in the buffer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.timer is not None:
            self.timer.cancel()  # the client gave up: no completion is delivered
            self.timer = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.busy:
            self._next()

    def _fail(self, status: int, message: str) -> None:
        if self.transport is not None:
            body = json.dumps({"error": {"message": message}}).encode()
            self.transport.write(_response(status, body, close=True))
            self.transport.close()
        self.buffer.clear()

    def _next(self) -> None:
        """Parse and answer the requests in the buffer while none is in progress."""
        while not self.busy and self.transport is not None and self.buffer:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    self._fail(400, "request head too long")
                return
            lines = self.buffer[:end].decode("latin-1").split("\r\n")
            try:
                method, target, version = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length") or 0)
            except ValueError:
                self._fail(400, "malformed request")
                return
            if "chunked" in headers.get("transfer-encoding", "").lower():
                self._fail(501, "chunked request bodies are not supported")
                return
            if len(self.buffer) < end + 4 + length:  # the body is still arriving
                if headers.get("expect", "").lower() == "100-continue" and not self.continued:
                    self.continued = True
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                return
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            self.continued = False
            keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
            self._handle(method, target.split("?", 1)[0], body, keep)

    def _handle(self, method: str, path: str, raw: bytes, keep: bool) -> None:
        if method == "GET" and path.rstrip("/") in ("/stats", "/v1/stats"):
            stats = {m: s.as_dict() for m, s in self.state.stats.items()}
            self._send(200, json.dumps(stats).encode(), keep)
            return
        if method != "POST" or path not in CHAT_PATHS:
            self._send(404, b'{"error": {"message": "not found"}}', keep)
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, b'{"error": {"message": "request body is not JSON"}}', keep)
            return
        model = str(body.get("model", ""))
        prompt = _prompt_text(body)
        self.state.model(model).requests += 1
        if self.state.latency_s > 0:
            self.busy = True
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(self.state.latency_s, self._later, model, prompt, keep)
        else:
            self._complete(model, prompt, keep)

    def _later(self, model: str, prompt: str, keep: bool) -> None:
        """The latency is over: answer, then go on with what was pipelined meanwhile."""
        self.timer = None
        self.busy = False
        self._complete(model, prompt, keep)
        self._next()

    def _complete(self, model: str, prompt: str, keep: bool) -> None:
        if self.transport is None:  # closed while it waited
            return
        self._send(200, _completion(model, marker_reply(prompt), prompt), keep)
        stats = self.state.model(model)
        stats.completed += 1
        stats.completed_prompts[hashlib.md5(prompt.encode()).hexdigest()] += 1

    def _send(self, status: int, body: bytes, keep: bool) -> None:
        if self.transport is None:
            return
        self.transport.write(_response(status, body, close=not keep))
        if not keep:
            self.transport.close()
            self.transport = None


async def serve(port: int, latency_ms: float) -> None:
    """Serve on 127.0.0.1:`port` (0: any free port), print the api_base, stop on SIGTERM."""
    loop = asyncio.get_running_loop()
    state = _State(latency_ms / 1000)
    server = await loop.create_server(
        lambda: _Connection(state), "127.0.0.1", port, backlog=1024, reuse_address=True
    )
    bound = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    print(f"listening http://127.0.0.1:{bound}/v1", flush=True)
    await stop.wait()
    server.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.port, args.latency_ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
