"""A scriptable OpenAI-compatible chat-completions server on 127.0.0.1, for judge tests.

Every judge test talks to it through real LiteLLM (`openai/<name>` with `api_base=server.url`).
Each model name has a script: latency, the reply (by default read from markers that the test
data carries, so a test knows the correct rating of every response), and faults: 429 with
Retry-After, 500, timeouts, dropped connections, garbage text, a malformed JSON body, and
"hang" (hold the request until `release_hangs()`; the SIGKILL test uses it). Thread-safe
counters say how many requests each model received and how many completions it delivered.

    with JudgeServer() as server:
        server.script("judge-a", ModelScript(latency_ms=5, fault_rate=0.2, seed=1))
        ...  # litellm.completion(model="openai/judge-a", api_base=server.url, ...)
        server.stats("judge-a").completed

Markers: an answer containing `<rate=4>` is rated 4. A prompt with two markers is pairwise:
the first marker belongs to the answer shown first, and the reply is [[A]], [[B]] or [[C]].

Batch API: `/v1/files` (upload, retrieve, content) and `/v1/batches` (create, retrieve,
cancel, list) in OpenAI's format. A batch's lines go through the same scripts as online
requests (a line's fault becomes an error line; garbage stays a 200 with garbage text), in a
thread, as the `BatchScript` says: held until `release_batches()`, or expiring after some
lines; a create response can be held too, until `release_creates()`. `batch_stats()` counts
uploads, creates, lists and the lines run.

Standalone, for the benchmark (its CPU then stays out of the runner's measurement):
    python -m tests.support.judge_server --port 8765 --latency-ms 50
prints `listening http://127.0.0.1:PORT/v1` and serves until SIGTERM; GET /stats returns the
counters as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import random
import re
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.batch_api import BATCHES_PATH, FILES_PATH, batch_api

FAULT_KINDS: tuple[str, ...] = (
    "429",
    "500",
    "timeout",
    "drop",
    "garbage",
    "malformed_json",
    "hang",
    "400",
    "401",
)
# The faults a call can recover from by retrying, plus garbage (an unparseable completion).
DEFAULT_FAULTS: tuple[str, ...] = ("429", "500", "timeout", "drop", "garbage", "malformed_json")
MARKER = re.compile(r"<rate=(\d+(?:\.\d+)?)>")
CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


def marker_reply(prompt: str) -> str:
    """The reply a careful judge would give: the rating or verdict the markers encode."""
    marks = [float(m) for m in MARKER.findall(prompt)]
    if len(marks) >= 2:
        first, second = marks[0], marks[1]
        verdict = "A" if first > second else "B" if second > first else "C"
        return f"Both answers were compared on the marked quality.\nVerdict: [[{verdict}]]"
    if len(marks) == 1:
        return f"Explanation: the answer carries its scripted rating.\nRating: [[{marks[0]:g}]]"
    return "I cannot find anything to rate here."


def always(text: str) -> Callable[[str], str]:
    """A reply function that ignores the prompt (e.g. a judge that always says [[A]])."""
    return lambda prompt: text


@dataclass
class ModelScript:
    """How one model name behaves. Faults are drawn per request: first from `sequence`
    (entry i applies to the model's request i+1; None = no fault), then with probability
    `fault_rate` from `fault_kinds` using a RNG seeded with `seed`. From request number
    `hang_from` on, every request hangs."""

    latency_ms: float = 0.0
    reply: Callable[[str], str] = marker_reply
    fault_rate: float = 0.0
    fault_kinds: Sequence[str] = DEFAULT_FAULTS
    seed: int = 0
    sequence: Sequence[str | None] = ()
    hang_from: int | None = None
    retry_after_s: float = 0.05
    timeout_sleep_s: float = 3.0
    garbage_text: str = "As an AI I find this question fascinating!!"
    # A provider's rate limit: requests above this many per second (a bucket of `burst`)
    # are answered 429 with Retry-After.
    rate_per_s: float | None = None
    burst: float = 2.0
    # The `model` of a completion, as a provider reports the dated snapshot that answered
    # (None: the model name asked for); a change behind the same name is a silent update.
    reported_model: str | None = None


@dataclass
class ModelStats:
    requests: int = 0
    completed: int = 0  # 200 responses with a well-formed completion (garbage text included)
    faults: Counter[str] = field(default_factory=Counter)
    hanging: int = 0
    completed_prompts: Counter[str] = field(default_factory=Counter)  # prompt hash -> count
    arrivals: list[float] = field(default_factory=list)  # time.monotonic() of each request
    # The Authorization header of each request ("" when none was sent): the key rule's tests
    # check that a self-hosted judge never receives a key it was not given.
    authorizations: list[str] = field(default_factory=list)
    seeds: Counter[int | None] = field(default_factory=Counter)  # the request's `seed` field

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "completed": self.completed,
            "faults": dict(self.faults),
            "hanging": self.hanging,
            "max_completions_per_prompt": max(self.completed_prompts.values(), default=0),
            # completions beyond a prompt's first: calls made again (a benchmark's check)
            "repeated_completions": sum(n - 1 for n in self.completed_prompts.values()),
        }


@dataclass
class BatchScript:
    """How batches run. `hold`: a created batch stays in progress until `release_batches()`;
    `expire_after`: a batch runs that many lines, then expires (the rest never run);
    `fail_validation`: a created batch fails at once with this message; `hold_create`: the
    create request makes the batch, then its response waits until `release_creates()`;
    `fail_list`: listing batches answers 500."""

    hold: bool = False
    hold_create: bool = False
    fail_list: bool = False
    expire_after: int | None = None
    fail_validation: str | None = None


@dataclass
class BatchStats:
    uploads: int = 0
    creates: int = 0
    held_creates: int = 0  # create requests whose response is held (`hold_create`)
    lists: int = 0
    retrieves: int = 0
    cancels: int = 0
    lines_run: int = 0


class _State:
    """Scripts and counters, shared by the handler threads under one lock."""

    def __init__(self, default: ModelScript) -> None:
        self.lock = threading.Lock()
        self.default = default
        self.scripts: dict[str, ModelScript] = {}
        self.rngs: dict[str, random.Random] = {}
        self.stats: dict[str, ModelStats] = {}
        self.buckets: dict[str, tuple[float, float]] = {}  # model -> (tokens, when)
        self.release = threading.Event()
        self.stopping = threading.Event()
        self.batch_script = BatchScript()
        self.batch_stats = BatchStats()
        self.batch_release = threading.Event()
        self.create_release = threading.Event()
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.ids = 0

    def new_id(self, prefix: str) -> str:
        with self.lock:
            self.ids += 1
            return f"{prefix}-{self.ids:06d}"

    def add_file(self, content: bytes, *, filename: str, purpose: str) -> dict[str, Any]:
        file_id = self.new_id("file")
        meta = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        with self.lock:
            self.files[file_id] = (meta, content)
        return meta

    def admit(
        self, model: str, authorization: str = "", seed: int | None = None
    ) -> tuple[ModelScript, str | None]:
        """Count a request (its Authorization header and the seed it asks for) and decide its
        fault."""
        with self.lock:
            script = self.scripts.get(model, self.default)
            stats = self.stats.setdefault(model, ModelStats())
            stats.requests += 1
            stats.seeds[seed] += 1
            stats.arrivals.append(time.monotonic())
            stats.authorizations.append(authorization)
            number = stats.requests
            rng = self.rngs.setdefault(model, random.Random(script.seed))
            fault: str | None = None
            if script.rate_per_s is not None and not self._take(model, script):
                fault = "429"
            elif script.hang_from is not None and number >= script.hang_from:
                fault = "hang"
            elif number <= len(script.sequence):
                fault = script.sequence[number - 1]
            elif script.fault_rate and rng.random() < script.fault_rate:
                fault = rng.choice(list(script.fault_kinds))
            if fault is not None:
                stats.faults[fault] += 1
            return script, fault

    def _take(self, model: str, script: ModelScript) -> bool:
        """A token of the model's rate bucket, if there is one (under the lock)."""
        now = time.monotonic()
        tokens, when = self.buckets.get(model, (script.burst, now))
        tokens = min(script.burst, tokens + (now - when) * (script.rate_per_s or 0.0))
        taken = tokens >= 1.0
        self.buckets[model] = (tokens - 1.0 if taken else tokens, now)
        return taken

    def count(self, model: str, attribute: str, delta: int = 1) -> None:
        with self.lock:
            stats = self.stats.setdefault(model, ModelStats())
            setattr(stats, attribute, getattr(stats, attribute) + delta)

    def completed(self, model: str, prompt: str) -> None:
        digest = hashlib.md5(prompt.encode()).hexdigest()
        with self.lock:
            stats = self.stats.setdefault(model, ModelStats())
            stats.completed += 1
            stats.completed_prompts[digest] += 1


def _prompt_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def _completion(model: str, text: str, prompt: str) -> bytes:
    prompt_tokens = max(1, len(prompt) // 4)
    completion_tokens = max(1, len(text) // 4)
    return json.dumps(
        {
            "id": f"chatcmpl-{hashlib.md5(prompt.encode()).hexdigest()[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


def _run_line(state: _State, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """One batch line through the model's script: a fault becomes an error status (a hang,
    a timeout, a dropped connection or a malformed body, a 500); garbage stays a 200."""
    model = str(body.get("model", ""))
    script, fault = state.admit(model, "", body.get("seed"))
    prompt = _prompt_text(body)
    if fault is None or fault == "garbage":
        text = script.garbage_text if fault == "garbage" else script.reply(prompt)
        state.completed(model, prompt)
        return 200, json.loads(_completion(script.reported_model or model, text, prompt))
    status = int(fault) if fault in ("400", "401", "429") else 500
    message = {"429": "rate limited", "400": "bad request", "401": "invalid key"}.get(
        fault, "internal error"
    )
    return status, {"error": {"message": message, "type": "server_error", "code": fault}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real endpoint
    # Headers and body go out in two writes; with Nagle's algorithm the second waits for the
    # client's delayed ACK (40 ms), which would add to every scripted latency.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path.rstrip("/") in ("/stats", "/v1/stats"):
            with self.server.state.lock:
                stats = {m: s.as_dict() for m, s in self.server.state.stats.items()}
                stats["_batches"] = dataclasses.asdict(self.server.state.batch_stats)
            self._send(200, json.dumps(stats).encode())
        elif FILES_PATH.match(path) or BATCHES_PATH.match(path):
            self._send(*self._batch(self.path, b""))
        else:
            self._send(404, b'{"error": "not found"}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        path = self.path.split("?")[0]
        if FILES_PATH.match(path) or BATCHES_PATH.match(path):
            self._send(*self._batch(path, raw))
            return
        if path not in CHAT_PATHS:
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        model = str(body.get("model", ""))
        state = self.server.state
        script, fault = state.admit(model, self.headers.get("Authorization", ""), body.get("seed"))
        if script.latency_ms:
            time.sleep(script.latency_ms / 1000)
        self._respond(state, script, fault, model, _prompt_text(body))

    def _batch(self, path: str, raw: bytes) -> tuple[int, bytes]:
        state = self.server.state
        return batch_api(
            state, self.command, path, raw, self.headers, lambda body: _run_line(state, body)
        )

    def _client_error(self, fault: str) -> None:
        if fault == "401":  # as OpenAI does, the message echoes the key: clients must scrub it
            key = self.headers.get("Authorization", "").removeprefix("Bearer ")
            body = {
                "error": {
                    "message": f"Incorrect API key provided: {key}.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            }
        else:
            body = {"error": {"message": "bad request", "type": "invalid_request_error"}}
        self._send(int(fault), json.dumps(body).encode())

    def _respond(
        self, state: _State, script: ModelScript, fault: str | None, model: str, prompt: str
    ) -> None:
        if fault in ("400", "401"):
            self._client_error(fault)
        elif fault == "hang":
            release = state.release  # the event of the next release_hangs()
            state.count(model, "hanging")
            release.wait(timeout=600)
            state.count(model, "hanging", -1)
            self._drop()  # a released request never completes
        elif fault == "429":
            self._send(
                429,
                b'{"error": {"message": "rate limited", "type": "rate_limit"}}',
                {"Retry-After": f"{script.retry_after_s:g}"},
            )
        elif fault == "500":
            self._send(500, b'{"error": {"message": "internal error", "type": "server_error"}}')
        elif fault == "timeout":
            state.stopping.wait(timeout=script.timeout_sleep_s)
            self._drop()
        elif fault == "drop":
            self._drop()
        elif fault == "malformed_json":
            self._send(200, b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "Rat')
        else:
            text = script.garbage_text if fault == "garbage" else script.reply(prompt)
            self._send(200, _completion(script.reported_model or model, text, prompt))
            if not self.close_connection:
                state.completed(model, prompt)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024  # the stdlib's 5 stalls bursts of concurrent clients

    def __init__(self, address: tuple[str, int], state: _State) -> None:
        self.state = state
        super().__init__(address, _Handler)


class JudgeServer:
    """The server on 127.0.0.1 (port 0 = any free port), run in a background thread."""

    def __init__(self, *, port: int = 0, default: ModelScript | None = None) -> None:
        self._state = _State(default or ModelScript())
        self._server = _Server(("127.0.0.1", port), self._state)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The api_base to give LiteLLM."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, model: str, script: ModelScript) -> None:
        """Set how `model` behaves from now on; its fault RNG restarts from the seed."""
        with self._state.lock:
            self._state.scripts[model] = script
            self._state.rngs.pop(model, None)

    def stats(self, model: str) -> ModelStats:
        """A snapshot of the counters of one model."""
        with self._state.lock:
            s = self._state.stats.get(model, ModelStats())
            return ModelStats(
                s.requests,
                s.completed,
                Counter(s.faults),
                s.hanging,
                Counter(s.completed_prompts),
                list(s.arrivals),
                list(s.authorizations),
                Counter(s.seeds),
            )

    def script_batches(self, script: BatchScript) -> None:
        """Set how batches created from now on run."""
        with self._state.lock:
            self._state.batch_script = script

    def batch_stats(self) -> BatchStats:
        with self._state.lock:
            return dataclasses.replace(self._state.batch_stats)

    def batch(self, batch_id: str) -> dict[str, Any]:
        """The batch object as the API returns it."""
        with self._state.lock:
            return json.loads(json.dumps(self._state.batches[batch_id]))

    def release_batches(self) -> None:
        """Let held batches run (batches created later are held again if the script says so)."""
        with self._state.lock:
            released, self._state.batch_release = self._state.batch_release, threading.Event()
        released.set()

    def release_creates(self) -> None:
        """Answer the held create requests (later ones are held again if the script says so)."""
        with self._state.lock:
            released, self._state.create_release = self._state.create_release, threading.Event()
        released.set()

    def reset_stats(self) -> None:
        with self._state.lock:
            self._state.stats.clear()

    def release_hangs(self) -> None:
        """Let every held request go (each is closed without a completion); requests that a
        script makes hang later wait for the next release."""
        with self._state.lock:
            released, self._state.release = self._state.release, threading.Event()
        released.set()

    def wait_for(self, predicate: Callable[[], bool], *, timeout_s: float = 60.0) -> bool:
        """Poll until `predicate()` holds; False when it did not within the timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.02)
        return predicate()

    def start(self) -> JudgeServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="judge-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stopping.set()
        self._state.release.set()
        self._state.batch_release.set()
        self._state.create_release.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    default = ModelScript(latency_ms=args.latency_ms, fault_rate=args.fault_rate, seed=args.seed)
    server = JudgeServer(port=args.port, default=default)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server.start()
    print(f"listening {server.url}", flush=True)
    stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
