"""The SQL of the annotation queue: the responses a person has not labelled yet, in an order.

It ranks the same per-response scores as the Failures list (`failures_sql.SCORED`). The
random order needs no score to rank by: it takes the window from the responses the person
has no rating of (their rows alone, found by filtering), and the scores of the window's few
responses only, rather than scoring every response of the selection (4 s on 1,000,000
responses and 4,000,000 ratings, paid again after every save, as the data changed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.metrics import scores_sql as scores
from dashboard.review.failures_sql import SCORED
from dashboard.review.requests import QueueRequest
from dashboard.store import keys
from dashboard.store.connection import Connection
from dashboard.store.rows import Window, fetch_window, scalar, window_sql

# The orders of the annotation queue; each is a code constant, never user input.
QUEUE_ORDERS: dict[str, str] = {
    "worst": "effective ASC NULLS LAST, dataset, item_id, system, response_id",
    "disagreement": "spread DESC NULLS LAST, effective ASC NULLS LAST, response_id",
    "unlabelled": "dataset, item_id, system, response_id",
    "random": "md5(concat_ws(chr(31), $seed, response_id)), response_id",
}


@dataclass(frozen=True)
class QueueEntry:
    response_id: str
    system: str
    dataset: str
    effective: float | None
    spread: float | None
    n_judges: int
    n_humans: int


def _queue_params(request: QueueRequest) -> dict[str, Any]:
    return {
        "rubric": request.rubric,
        "dataset": request.dataset,
        "system": None,
        "judge": None,
        "task_types": list(request.task_types) or None,
        "pattern": None,
        "annotator": request.annotator,
        "unlabelled": request.order == "unlabelled",
        "exclude": list(request.exclude),
        "panel_judges": None,  # worst first by every judge's ratings
        "panel_versions": None,
    }


_QUEUE_WHERE = (
    "WHERE n_mine = 0 AND (NOT $unlabelled OR n_humans = 0) "
    "AND NOT list_contains($exclude::VARCHAR[], response_id)"
)


# Responses of the selection with no rating of the person on the rubric (any row of theirs:
# a current one exists whenever a row does, as a change stays in its response's stream).
# (The queue has no system or text filter: the Failures list's selection without them, as
# DuckDB would still read every answer's text for a NULL pattern.)
_UNRATED = """
    WITH selected AS (
        SELECT r.response_id, r.system, r.dataset
        FROM responses r JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE ($dataset IS NULL OR r.dataset = $dataset)
          AND ($task_types IS NULL OR list_contains($task_types, i.task_type)))
    SELECT response_id, system, dataset FROM selected
    WHERE response_id NOT IN (
            SELECT response_id FROM ratings
            WHERE rater_kind = 'human' AND rater = $annotator AND rubric = $rubric)
      AND NOT list_contains($exclude::VARCHAR[], response_id)"""

# The scores of a few responses (`{among}`: an id list, `keys.among`): their current ratings
# on the rubric (the rows no later row supersedes: the `superseded` flag), found from their
# rows, which a PostgreSQL store reads by its index.
_WINDOW_SCORES = f"""
    WITH current AS (
        SELECT rating_id, response_id, rater_kind, {scores.NORM} AS norm FROM ratings
        WHERE {{among}} AND rubric = $rubric AND NOT superseded)
    SELECT response_id, {scores.EFFECTIVE} AS effective,
           max(norm) FILTER (WHERE rater_kind = 'llm')
             - min(norm) FILTER (WHERE rater_kind = 'llm') AS spread,
           count(norm) FILTER (WHERE rater_kind = 'llm') AS n_judges,
           count(norm) FILTER (WHERE rater_kind = 'human') AS n_humans
    FROM current GROUP BY response_id"""


def _window_scores(con: Connection, ids: list[str], rubric: str) -> list[_Scores]:
    return keys.fetch_by_key(con, _WINDOW_SCORES, "response_id", ids, _Scores, {"rubric": rubric})


_UNRATED_PARAMS: tuple[str, ...] = ("rubric", "dataset", "task_types", "annotator", "exclude")


@dataclass(frozen=True)
class _Unrated:
    response_id: str
    system: str
    dataset: str


@dataclass(frozen=True)
class _Scores:
    response_id: str
    effective: float | None
    spread: float | None
    n_judges: int
    n_humans: int


def _random_rows(
    con: Connection, request: QueueRequest, *, limit: int, offset: int
) -> Window[QueueEntry]:
    params = {**_queue_params(request), "seed": str(request.seed)}
    window = fetch_window(
        con.execute(
            window_sql(_UNRATED, order=QUEUE_ORDERS["random"]),
            {k: params[k] for k in _UNRATED_PARAMS + ("seed",)}
            | {"limit": limit, "offset": offset},
        ),
        _Unrated,
    )
    ids = [row.response_id for row in window.rows]
    found = _window_scores(con, ids, request.rubric)
    by_id = {row.response_id: row for row in found}
    entries = []
    for row in window.rows:
        score = by_id.get(row.response_id, _Scores(row.response_id, None, None, 0, 0))
        entries.append(
            QueueEntry(
                row.response_id,
                row.system,
                row.dataset,
                score.effective,
                score.spread,
                score.n_judges,
                score.n_humans,
            )
        )
    return Window(tuple(entries), window.total)


def queue_rows(
    con: Connection, request: QueueRequest, *, limit: int, offset: int
) -> Window[QueueEntry]:
    """Responses `request.annotator` has not rated yet on the rubric, in the chosen order;
    and how many there are (None when the window is empty)."""
    if request.order == "random":
        return _random_rows(con, request, limit=limit, offset=offset)
    return scored_queue_rows(con, request, limit=limit, offset=offset)


def scored_queue_rows(
    con: Connection, request: QueueRequest, *, limit: int, offset: int
) -> Window[QueueEntry]:
    """`queue_rows` by scoring every response of the selection first (every order)."""
    params = _queue_params(request)
    if request.order == "random":
        params["seed"] = str(request.seed)
    return fetch_window(
        con.execute(
            window_sql(
                f"SELECT * FROM ({SCORED}) {_QUEUE_WHERE}",
                order=QUEUE_ORDERS[request.order],
                columns="response_id, system, dataset, effective, spread, n_judges, n_humans",
            ),
            {**params, "limit": limit, "offset": offset},
        ),
        QueueEntry,
    )


def count_queue(con: Connection, request: QueueRequest) -> int:
    if request.order == "random":
        params = _queue_params(request)
        query = f"SELECT count(*) FROM ({_UNRATED})"
        return int(scalar(con.execute(query, {k: params[k] for k in _UNRATED_PARAMS})))
    query = f"SELECT count(*) FROM ({SCORED}) {_QUEUE_WHERE}"
    return int(scalar(con.execute(query, _queue_params(request))))
