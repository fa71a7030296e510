"""The judge server's batch API (`/v1/files`, `/v1/batches`), in OpenAI's format.

A created batch runs in a thread: each line of its input file goes through `run_line` (the
server's own chat logic, so a line meets the same scripts, faults and counters as an online
request). Lines answered 200 go to the output file, others to the error file, both with
OpenAI's line shape `{"id", "custom_id", "response": {"status_code", "request_id", "body"},
"error"}`. The batch's `BatchScript` can hold it, expire it after some lines, or fail it, and
can hold the create response itself (`hold_create`: the batch exists, its creator has not
heard so yet). `GET /v1/batches` lists the batches newest first, with their metadata, in
pages (`limit`, `after`), as OpenAI's does.
"""

from __future__ import annotations

import email.message
import email.parser
import email.policy
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

FILES_PATH = re.compile(r"^/(?:v1/)?files(?:/([^/]+))?(/content)?$")
BATCHES_PATH = re.compile(r"^/(?:v1/)?batches(?:/([^/]+))?(/cancel)?$")
TERMINAL = frozenset({"completed", "expired", "cancelled", "failed"})

# (status code, response body) of one batch line
LineRunner = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
Reply = tuple[int, bytes]


def _json(status: int, body: Mapping[str, Any]) -> Reply:
    return status, json.dumps(body).encode()


def _error(status: int, message: str) -> Reply:
    return _json(status, {"error": {"message": message, "type": "invalid_request_error"}})


def _multipart(raw: bytes, content_type: str) -> dict[str, tuple[str | None, bytes]]:
    """The form's fields: name -> (filename, content)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
    )
    fields: dict[str, tuple[str | None, bytes]] = {}
    parts = message.iter_parts() if isinstance(message, email.message.EmailMessage) else ()
    for part in parts:
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = (part.get_filename(), payload)
    return fields


def batch_api(
    state: Any, method: str, path: str, raw: bytes, headers: Any, run: LineRunner
) -> Reply:
    """Answer one request to the files or batches API (`path` may carry a query)."""
    path, _, query = path.partition("?")
    files = FILES_PATH.match(path)
    if files is not None:
        return _files(state, method, files.group(1), bool(files.group(2)), raw, headers)
    batches = BATCHES_PATH.match(path)
    assert batches is not None
    batch_id, cancel = batches.group(1), bool(batches.group(2))
    if method == "POST" and batch_id is None:
        return _create(state, raw, run)
    if method == "GET" and batch_id is None:
        return _list(state, urllib.parse.parse_qs(query))
    with state.lock:
        batch = state.batches.get(batch_id or "")
        if batch is None:
            return _error(404, f"no batch {batch_id}")
        if method == "POST" and cancel:
            state.batch_stats.cancels += 1
            if batch["status"] not in TERMINAL:
                batch["status"] = "cancelling"
                batch["cancelling_at"] = int(time.time())
        else:
            state.batch_stats.retrieves += 1
        return _json(200, batch)


def _files(
    state: Any, method: str, file_id: str | None, content: bool, raw: bytes, headers: Any
) -> Reply:
    if method == "POST" and file_id is None:
        fields = _multipart(raw, headers.get("Content-Type", ""))
        if "file" not in fields:
            return _error(400, "no file in the upload")
        filename, data = fields["file"]
        purpose = fields.get("purpose", (None, b"batch"))[1].decode()
        with state.lock:
            state.batch_stats.uploads += 1
        return _json(200, state.add_file(data, filename=filename or "upload", purpose=purpose))
    with state.lock:
        found = state.files.get(file_id or "")
    if found is None:
        return _error(404, f"no file {file_id}")
    meta, data = found
    return (200, data) if content else _json(200, meta)


def _list(state: Any, query: Mapping[str, list[str]]) -> Reply:
    limit = int(query.get("limit", ["20"])[0])
    after = query.get("after", [None])[0]
    with state.lock:
        state.batch_stats.lists += 1
        if state.batch_script.fail_list:
            return _json(500, {"error": {"message": "listing failed", "type": "server_error"}})
        newest_first = list(reversed(state.batches.values()))
        if after is not None:
            ids = [b["id"] for b in newest_first]
            newest_first = newest_first[ids.index(after) + 1 :] if after in ids else []
        page = newest_first[:limit]
        return _json(
            200,
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": len(newest_first) > limit,
            },
        )


def _create(state: Any, raw: bytes, run: LineRunner) -> Reply:
    try:
        body = json.loads(raw)
    except ValueError:
        return _error(400, "request body is not JSON")
    with state.lock:
        found = state.files.get(str(body.get("input_file_id")))
        script = state.batch_script
        release = state.batch_release
        create_release = state.create_release
    if found is None:
        return _error(400, f"no input file {body.get('input_file_id')}")
    lines = [json.loads(line) for line in found[1].decode().splitlines() if line.strip()]
    now = int(time.time())
    batch_id = state.new_id("batch")
    batch: dict[str, Any] = {
        "id": batch_id,
        "object": "batch",
        "endpoint": body.get("endpoint", "/v1/chat/completions"),
        "errors": None,
        "input_file_id": body["input_file_id"],
        "completion_window": body.get("completion_window", "24h"),
        "status": "validating",
        "output_file_id": None,
        "error_file_id": None,
        "created_at": now,
        "in_progress_at": None,
        "expires_at": now + 24 * 3600,
        "finalizing_at": None,
        "completed_at": None,
        "failed_at": None,
        "expired_at": None,
        "cancelling_at": None,
        "cancelled_at": None,
        "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
        "metadata": body.get("metadata"),
    }
    with state.lock:
        state.batch_stats.creates += 1
        state.batches[batch_id] = batch
    if script.fail_validation is not None:
        with state.lock:
            batch["status"], batch["failed_at"] = "failed", now
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid_request", "message": script.fail_validation}],
            }
    else:
        threading.Thread(
            target=_run_batch,
            args=(state, batch, lines, run, script, release),
            name=f"batch-{batch_id}",
            daemon=True,
        ).start()
    if script.hold_create:  # the batch exists; its creator hears of it once released
        with state.lock:
            state.batch_stats.held_creates += 1
        while not create_release.wait(timeout=0.05):
            if state.stopping.is_set():
                break
    with state.lock:
        return _json(200, batch)


def _run_batch(
    state: Any,
    batch: dict[str, Any],
    lines: list[dict[str, Any]],
    run: LineRunner,
    script: Any,
    release: threading.Event,
) -> None:
    with state.lock:
        batch["status"], batch["in_progress_at"] = "in_progress", int(time.time())
    if script.hold:
        while not release.wait(timeout=0.05):
            if state.stopping.is_set():
                return
    output: list[str] = []
    errors: list[str] = []
    final = "completed"
    for number, line in enumerate(lines):
        with state.lock:
            cancelled = batch["status"] == "cancelling"
        if cancelled or state.stopping.is_set():
            final = "cancelled"
            break
        if script.expire_after is not None and number >= script.expire_after:
            final = "expired"
            break
        status, body = run(line.get("body") or {})
        record = {
            "id": f"batch_req_{number}",
            "custom_id": line.get("custom_id"),
            "response": {"status_code": status, "request_id": f"req_{number}", "body": body},
            "error": None,
        }
        (output if status == 200 else errors).append(json.dumps(record))
        with state.lock:
            state.batch_stats.lines_run += 1
            batch["request_counts"]["completed" if status == 200 else "failed"] += 1
    _finish(state, batch, final, output, errors)


def _finish(
    state: Any, batch: dict[str, Any], final: str, output: list[str], errors: list[str]
) -> None:
    out = (
        state.add_file(
            "\n".join(output).encode() + b"\n", filename="out.jsonl", purpose="batch_output"
        )
        if output
        else None
    )
    err = (
        state.add_file(
            "\n".join(errors).encode() + b"\n", filename="err.jsonl", purpose="batch_output"
        )
        if errors
        else None
    )
    with state.lock:
        now = int(time.time())
        batch["output_file_id"] = out["id"] if out else None
        batch["error_file_id"] = err["id"] if err else None
        batch["status"] = final
        batch[f"{final}_at"] = now
