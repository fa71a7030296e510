"""What `bench.bench_protocol` checks in the store after a run, each a function of the store's
address (a DuckDB file or a PostgreSQL URL), so that a test can run it on a real store:

- `saves_check`: every confirmed save is one row of that person on that answer, nothing else;
- `campaign_check`: no answer of the campaign has more than its k labels (and how many
  reached k, so that a pass is not a check of nothing);
- `judge_check`: no judge call was made twice: the loopback judge server's requests (and its
  completions per prompt) against the distinct calls the store's `judge_calls` records.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from bench.streamlit_client import Save


def _rows(address: str, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    from dashboard.store import Store

    made = Store(address, wait_s=60)
    try:
        with made.connection() as con:
            return list(con.execute(query, list(params)).fetchall())
    finally:
        made.close()


def saves_check(
    address: str, saves: Mapping[str, Sequence[Save]], *, like: str, leave_out: str
) -> dict[str, int]:
    """Every confirmed save (a refused one is not) is one row of that person on that answer;
    no other rows of the people whose name is `like` (a LIKE pattern), but `leave_out`."""
    rows = _rows(
        address,
        "SELECT rater, response_id, count(*) FROM ratings WHERE rater LIKE ? AND rater <> ?"
        " GROUP BY ALL",
        [like, leave_out],
    )
    found = {(rater, response): count for rater, response, count in rows}
    kept = {person: [s for s in done if not s.refused] for person, done in saves.items()}
    confirmed = {(p, s.response_id) for p, done in kept.items() for s in done}
    n_saves = sum(len(done) for done in kept.values())
    return {
        "saves": n_saves,
        "refused": sum(len(done) for done in saves.values()) - n_saves,
        "rows": sum(found.values()),
        "lost": len(confirmed - set(found)),
        "duplicated": sum(1 for c in found.values() if c > 1) + n_saves - len(confirmed),
        "unexpected": len(set(found) - confirmed),
    }


def campaign_check(address: str, campaign: str, k: int) -> dict[str, int]:
    """The campaign's people's labels per answer, every row counted (an edit too, so that
    nothing slips past): `over_k` answers have more than `k`, `answers_at_k` exactly `k`."""
    rows = _rows(
        address,
        "SELECT response_id, count(*), count(DISTINCT rater) FROM ratings"
        " WHERE campaign = ? AND rater_kind = 'human' GROUP BY response_id",
        [campaign],
    )
    (answers,) = _rows(
        address, "SELECT count(*) FROM campaign_items WHERE campaign = ?", [campaign]
    )[0]
    return {
        "k": k,
        "answers": int(answers),
        "labels": sum(int(n) for _, n, _ in rows),
        "answers_labelled": len(rows),
        "answers_at_k": sum(1 for _, n, _ in rows if n == k),
        "over_k": sum(1 for _, n, people in rows if max(n, people) > k),
    }


def server_stats(api_base: str, model: str) -> dict[str, Any]:
    """The loopback judge server's counters of one model (`tests/support/judge_server.py`)."""
    with urllib.request.urlopen(api_base.removesuffix("/v1") + "/stats", timeout=10) as reply:
        found: dict[str, Any] = json.load(reply).get(model, {})
    return found


def judge_check(address: str, judge: str, api_base: str, model: str) -> dict[str, int]:
    """The judge `judge`'s calls in the store against what the server `model` received:
    `calls` distinct calls recorded (`rows` rows), `requests` the server received, and
    `made_twice`: the completions of a prompt beyond its first, or the requests beyond every
    recorded call's attempts, whichever is more (0 when each call was made once)."""
    (calls, rows, attempts, ok) = _rows(
        address,
        "SELECT count(DISTINCT cache_key), count(*), coalesce(sum(attempts), 0),"
        " count(DISTINCT cache_key) FILTER (WHERE status = 'ok')"
        " FROM judge_calls WHERE judge = ?",
        [judge],
    )[0]
    stats = server_stats(api_base, model)
    requests = int(stats.get("requests", 0))
    repeated = int(stats.get("repeated_completions", 0))
    return {
        "calls": int(calls),
        "ok": int(ok),
        "rows": int(rows),
        "requests": requests,
        "made_twice": max(repeated, requests - int(attempts)) + int(rows) - int(calls),
    }
