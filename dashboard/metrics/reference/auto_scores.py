"""Reference-based metrics of each response, computed once by `scoring` and stored.

The metrics are declared in `registry.py` (EM and token F1 against one or more references,
the MCQA choice's accuracy and IoU, the verdict of a hallucination detector). They are stored
in `auto_scores` so that metric tables aggregate them in SQL like any rating. A response's id
is a hash of its content, so a stored score stays valid until `VERSION` changes, or its
dataset's reference rule does (`dataset_rules.set_reference_rule` drops what changes).

EM and F1 of QA responses with references, the bulk of a RAG evaluation, are computed many
at a time (`reference_qa`, the same numbers as `scoring.qa`); every other response goes
through its metrics' `score` one at a time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from dashboard.metrics import qa_rules, registry
from dashboard.metrics.reference import reference_qa, reference_sql as sql
from dashboard.metrics.registry import Case
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection, cursor_of

# The version of the rules the stored scores follow (see `registry.REFERENCE_VERSION`).
VERSION = registry.REFERENCE_VERSION
BATCH_SIZE = 20_000
NO_METRIC = "none"  # the marker row of a response no reference metric applies to
# The metrics `reference_qa` computes for a QA response with references (its fields).
QA_METRICS = ("em", "f1")
QA_BATCH_ROWS = 50_000  # responses per batch scored at once
# Responses whose scores are written in one transaction: fewer, bigger transactions write
# faster (a million at once: 0.9 s against 2.0 s in four, docs/benchmarks.md).
QA_WRITE_ROWS = 1_000_000

Progress = Callable[[int, int], None]


def primary_metrics() -> tuple[str, ...]:
    """Every scored response has exactly one row of one of these: the first metric declared
    for its task (the metrics of a task apply to the same responses), or the marker."""
    first = {m.tasks: m.stored for m in reversed(registry.REFERENCE_METRICS)}
    return (*first.values(), NO_METRIC)


def score_response(case: Case) -> list[tuple[str, float | None]]:
    """(stored metric name, value) of every reference metric that applies to the response;
    the marker (NO_METRIC, None) when none does, so that it is not picked up again."""
    found = [
        (m.stored, m.score(case))
        for m in registry.REFERENCE_METRICS
        if case.task_type in m.tasks and m.applies(case)
    ]
    return found or [(NO_METRIC, None)]


def _case(row: sql.UnscoredResponse) -> Case:
    return Case(
        row.task_type,
        row.answer,
        tuple(row.reference_answers or ()),
        tuple(row.options or ()),
        tuple(row.gold_letters or ()),
        row.rule,
    )


def _batch_covers_qa() -> bool:
    """Whether `reference_qa` computes every metric declared for the QA tasks (a metric added
    without a batch twin is computed one response at a time, like the others)."""
    on_qa = {m.stored for m in registry.REFERENCE_METRICS if m.tasks & registry.QA_TASKS}
    return on_qa == set(QA_METRICS)


def _workers() -> int:
    return max(1, min(os.cpu_count() or 1, reference_qa.MAX_WORKERS))


def _score_table(scored: Sequence[reference_qa.BatchScores]) -> pa.Table:
    ids = pa.concat_arrays([s.response_id for s in scored]).cast(pa.string())
    n = len(ids)
    return pa.table(
        {
            "response_id": pa.concat_arrays([ids] * len(QA_METRICS)),
            # Built in Arrow: from numpy's strings or a list of Python strings, two million
            # names took 0.45 s.
            "metric": pa.array(QA_METRICS).take(np.repeat(np.arange(len(QA_METRICS)), n)),
            "value": np.concatenate(
                [np.concatenate([getattr(s, m) for s in scored]) for m in QA_METRICS]
            ),
            "version": pa.repeat(VERSION, n * len(QA_METRICS)),
        }
    )


def _write(con: Connection, scored: list[reference_qa.BatchScores]) -> int:
    if not scored:
        return 0
    with sql.bulk_scores(con), transaction(con):
        sql.add_score_table(con, _score_table(scored))
    return sum(len(s.em) for s in scored)


def _refresh_qa(
    con: Connection, *, dataset: str | None, total: int, on_progress: Progress | None
) -> int:
    """Score the QA responses with references that have no scores of this version, many at a
    time, writing every QA_WRITE_ROWS of them in a transaction of their own; return how many
    were scored."""
    reader = cursor_of(con)  # the stream holds its connection; writes go through `con`
    try:
        batches = sql.unscored_qa(
            reader,
            version=VERSION,
            dataset=dataset,
            tasks=sorted(registry.QA_TASKS),
            defaults=qa_rules.DEFAULT_RULES,
            max_rule=qa_rules.MAX_RULE.name,
            batch_rows=QA_BATCH_ROWS,
        )
        done, waiting, seen = 0, [], 0
        for scored in reference_qa.score_batches(batches, workers=_workers()):
            waiting.append(scored)
            seen += len(scored.em)
            if seen - done >= QA_WRITE_ROWS:
                done += _write(con, waiting)
                waiting = []
            if on_progress:
                on_progress(seen, total)
        done += _write(con, waiting)
    finally:
        reader.close()
    if on_progress and done:
        on_progress(done, total)
    return done


def unscored_count(con: Connection, *, dataset: str | None) -> int:
    """How many responses (of the dataset, or all) have no reference scores of the current
    rules yet: what the Overview warns of (a read)."""
    return sql.count_unscored(con, version=VERSION, dataset=dataset, primary=primary_metrics())


def refresh_auto_scores(
    store: Store, *, dataset: str | None = None, on_progress: Progress | None = None
) -> int:
    """Score every response that has no scores of this version; return how many were scored.

    Works in batches, each written in a transaction of its own (of up to QA_WRITE_ROWS
    responses), so that an interrupted refresh keeps what it finished.
    """
    return _refresh(store, dataset=dataset, on_progress=on_progress)[0]


def _refresh(store: Store, *, dataset: str | None, on_progress: Progress | None) -> tuple[int, int]:
    """`refresh_auto_scores`: (responses scored, those of them given a reference-based score,
    not only the marker of a response no reference metric applies to)."""
    with store.connection() as con:
        total = unscored_count(con, dataset=dataset)
    if total == 0:
        return 0, 0
    if on_progress:
        on_progress(0, total)
    # One scorer at a time per process: two sessions opening the Overview at once must not
    # score (and store) the same responses twice.
    done = with_metric = 0
    if _batch_covers_qa():  # every response scored there gets EM and F1
        with store.write_lock, store.connection() as con:
            done = with_metric = _refresh_qa(
                con, dataset=dataset, total=total, on_progress=on_progress
            )
    while done < total:
        with store.write_lock, store.connection() as con:
            batch = sql.unscored_batch(
                con,
                version=VERSION,
                dataset=dataset,
                limit=BATCH_SIZE,
                defaults=qa_rules.DEFAULT_RULES,
            )
            if not batch:
                break
            rows = [
                (row.response_id, metric, value, VERSION)
                for row in batch
                for metric, value in score_response(_case(row))
            ]
            with transaction(con):
                sql.add_auto_scores(con, rows)
        done += len(batch)
        with_metric += len({r[0] for r in rows if r[1] != NO_METRIC})
        if on_progress:
            on_progress(done, total)
    return done, with_metric


def score_datasets(
    store: Store, datasets: Sequence[str], *, on_progress: Progress | None = None
) -> int:
    """Score what an import added (every response of these datasets without scores), as
    `judgeboard import`, the Data page and the sample do; return how many of them got a
    reference-based score (not only the marker of a response no metric applies to)."""
    return sum(_refresh(store, dataset=name, on_progress=on_progress)[1] for name in datasets)
