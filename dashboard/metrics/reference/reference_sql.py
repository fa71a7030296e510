"""Reads and writes for `auto_scores` (the reference-based metrics computed by `scoring`) and
for `reference_rules` (the rule each dataset's EM and F1 follow over several references)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pyarrow as pa

from dashboard.review.gold_sql import CURRENT_ITEMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar

SCORE_COLUMNS = ("response_id", "metric", "value", "version")

# Each dataset's chosen rule (NULL: back to the default), the latest row of its history.
CHOSEN_RULES = """
    SELECT dataset, rule FROM reference_rules
    QUALIFY row_number() OVER (PARTITION BY dataset ORDER BY seq DESC) = 1"""
# The rule an item's EM and F1 follow: its dataset's chosen rule, else its task's default
# ($default_rules[k] for the task $default_tasks[k]; `default_params`), else 'max'. Needs
# the items as `i` and CHOSEN_RULES as `c`.
ITEM_RULE = "coalesce(c.rule, $default_rules[list_position($default_tasks, i.task_type)], 'max')"


def default_params(defaults: Mapping[str, str]) -> dict[str, list[str]]:
    """The parameters of ITEM_RULE for a mapping from task type to its default rule."""
    return {"default_tasks": list(defaults), "default_rules": list(defaults.values())}


@dataclass(frozen=True)
class UnscoredResponse:
    """A response without reference scores of the current version, with what they need."""

    response_id: str
    task_type: str
    answer: str
    reference_answers: list[str] | None
    options: list[str] | None
    gold_letters: list[str] | None
    rule: str


def count_unscored(
    con: Connection, *, version: str, dataset: str | None, primary: Sequence[str]
) -> int:
    """How many responses have no automatic scores of this version yet.

    The usual answer, none, comes from two counts (milliseconds on a million responses);
    only when they differ does the anti-join find which dataset is behind.
    `primary` are the metrics of which every scored response has exactly one row.
    """
    unscored = scalar(
        con.execute(
            """
        SELECT (SELECT count(*) FROM responses) - (SELECT count(*) FROM auto_scores
                WHERE version = $version AND list_contains($primary, metric))""",
            {"version": version, "primary": list(primary)},
        )
    )
    if unscored == 0:
        return 0
    return scalar(
        con.execute(
            """
        SELECT count(*) FROM responses r
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset""",
            {"version": version, "dataset": dataset},
        )
    )


def unscored_batch(
    con: Connection,
    *,
    version: str,
    dataset: str | None,
    limit: int,
    defaults: Mapping[str, str],
) -> list[UnscoredResponse]:
    """Up to `limit` responses without scores of this version, with what scoring needs (the
    reference rule by `ITEM_RULE`, `defaults` mapping a task to its default rule)."""
    cursor = con.execute(
        f"""
        SELECT r.response_id, i.task_type, r.answer,
               list_filter(i.reference_answers, lambda t: t IS NOT NULL) AS reference_answers,
               i.options, i.gold_letters, {ITEM_RULE} AS rule
        FROM responses r JOIN ({CURRENT_ITEMS}) i USING (item_id, dataset)
        LEFT JOIN ({CHOSEN_RULES}) c ON c.dataset = i.dataset
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset
        ORDER BY r.response_id LIMIT $limit""",
        {"version": version, "dataset": dataset, "limit": limit, **default_params(defaults)},
    )
    return fetch(cursor, UnscoredResponse)


def unscored_qa(
    cursor: Connection,
    *,
    version: str,
    dataset: str | None,
    tasks: Sequence[str],
    defaults: Mapping[str, str],
    max_rule: str,
    batch_rows: int,
) -> pa.RecordBatchReader:
    """The responses of `tasks` with at least one reference and no scores of this version, as
    a stream of Arrow batches (`response_id`, `answer`, `references`, `use_max`: whether
    their rule is `max_rule`) for `reference_qa.score_batches`: a million rows never sit in
    memory at once. `cursor` must be a connection of its own: the stream holds it."""
    return cursor.sql(
        f"""
        SELECT r.response_id, r.answer, i.refs AS references, {ITEM_RULE} = $max AS use_max
        FROM responses r
        JOIN (SELECT item_id, dataset, task_type,
                     list_filter(reference_answers, lambda t: t IS NOT NULL) AS refs
              FROM ({CURRENT_ITEMS})
              WHERE list_contains($tasks, task_type)
                AND ($dataset IS NULL OR dataset = $dataset)) i USING (item_id, dataset)
        LEFT JOIN ({CHOSEN_RULES}) c ON c.dataset = i.dataset
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE len(i.refs) > 0""",
        params={
            "version": version,
            "dataset": dataset,
            "tasks": list(tasks),
            **default_params(defaults),
            "max": max_rule,
        },
    ).to_arrow_reader(batch_rows)


def add_auto_scores(con: Connection, rows: Sequence[tuple[str, str, float | None, str]]) -> None:
    """Append scores; the caller holds the transaction."""
    if not rows:
        return
    columns = list(zip(*rows))
    con.register("_scores", pa.table(dict(zip(SCORE_COLUMNS, map(list, columns)))))
    try:
        # Two sessions may score the same batch; a score already stored is not added again.
        con.execute(f"""
            INSERT INTO auto_scores SELECT {", ".join(f"s.{c}" for c in SCORE_COLUMNS)}
            FROM _scores s ANTI JOIN auto_scores a USING (response_id, metric, version)""")
    finally:
        con.unregister("_scores")


@contextmanager
def bulk_scores(con: Connection) -> Iterator[None]:
    """Around the transaction of a big batch of scores: no FSST string compression, as the
    import's own bulk writes (`ingest.read_sql.bulk_write_settings`); it was most of the time
    of writing a million responses' scores. Set and reset outside the transaction, so that a
    failed write keeps its own error."""
    con.execute("SET disabled_compression_methods = 'fsst,dict_fsst'")
    try:
        yield
    finally:
        con.execute("RESET disabled_compression_methods")


def add_score_table(con: Connection, table: pa.Table) -> None:
    """Append a table of `SCORE_COLUMNS` (a batch `reference_qa` scored); the caller holds the
    transaction. A score another session stored meanwhile is not added again."""
    con.register("_scores", table)
    try:
        con.execute(f"""
            INSERT INTO auto_scores SELECT {", ".join(f"s.{c}" for c in SCORE_COLUMNS)}
            FROM _scores s ANTI JOIN (
                SELECT response_id, metric, version FROM auto_scores
                WHERE response_id IN (SELECT response_id FROM _scores)) a
            USING (response_id, metric, version)""")
    finally:
        con.unregister("_scores")


@dataclass(frozen=True)
class RuleUse:
    """A dataset with QA items that have references: its chosen rule (None: the default),
    and how many such items each task type holds."""

    dataset: str
    chosen: str | None
    tasks: list[str]
    n_items: list[int]


def rule_uses(con: Connection, *, dataset: str | None, tasks: Sequence[str]) -> list[RuleUse]:
    """Every dataset (or the one) whose items of `tasks` have references."""
    cursor = con.execute(
        f"""
        WITH used AS (
            SELECT dataset, task_type, count(*) AS n FROM items
            WHERE list_contains($tasks, task_type) AND len(reference_answers) > 0
              AND ($dataset IS NULL OR dataset = $dataset)
            GROUP BY ALL)
        SELECT u.dataset, any_value(c.rule) AS chosen,
               list(u.task_type ORDER BY u.task_type) AS tasks,
               list(u.n ORDER BY u.task_type) AS n_items
        FROM used u LEFT JOIN ({CHOSEN_RULES}) c USING (dataset)
        GROUP BY u.dataset ORDER BY u.dataset""",
        {"dataset": dataset, "tasks": list(tasks)},
    )
    return fetch(cursor, RuleUse)


def add_rule(con: Connection, dataset: str, rule: str | None) -> None:
    """A dataset's new rule (None: back to the default), after its history; the caller holds
    the transaction."""
    con.execute(
        """
        INSERT INTO reference_rules
        SELECT coalesce(max(seq), 0) + 1, $dataset, $rule, now() AT TIME ZONE 'UTC'
        FROM reference_rules""",
        {"dataset": dataset, "rule": rule},
    )


def delete_rescored(
    con: Connection,
    dataset: str,
    *,
    rule: str | None,
    metrics: Sequence[str],
    tasks: Sequence[str],
    defaults: Mapping[str, str],
) -> int:
    """Before the dataset's rule becomes `rule` (None: the default), drop the stored `metrics`
    of its responses whose item follows another rule now than it will then, so that scoring
    computes them again; return how many responses lost them. The caller holds the
    transaction."""
    params = {"dataset": dataset, "tasks": list(tasks), "rule": rule, **default_params(defaults)}
    then = "coalesce($rule, $default_rules[list_position($default_tasks, i.task_type)], 'max')"
    stale = f"""
        SELECT r.response_id FROM responses r JOIN items i USING (item_id)
        LEFT JOIN ({CHOSEN_RULES}) c ON c.dataset = i.dataset
        WHERE r.dataset = $dataset AND list_contains($tasks, i.task_type)
          AND {ITEM_RULE} <> {then}"""
    n = scalar(con.execute(f"SELECT count(*) FROM ({stale})", params))
    con.execute(
        f"""DELETE FROM auto_scores WHERE list_contains($metrics, metric)
            AND response_id IN ({stale})""",
        {**params, "metrics": list(metrics)},
    )
    return n
