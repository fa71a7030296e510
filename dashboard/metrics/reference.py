"""Reference-based metrics of each response, computed once by `scoring` and stored.

The metrics are declared in `registry.py` (EM and token F1 against one or more references,
the MCQA choice's accuracy and IoU, the verdict of a hallucination detector). They are stored
in `auto_scores` so that metric tables aggregate them in SQL like any rating. A response's id
is a hash of its content, so a stored score stays valid until `VERSION` changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dashboard.metrics import reference_sql as sql
from dashboard.metrics import registry
from dashboard.metrics.registry import Case
from dashboard.store import Store, transaction

# The version of the rules the stored scores follow (see `registry.REFERENCE_VERSION`).
VERSION = registry.REFERENCE_VERSION
BATCH_SIZE = 20_000
NO_METRIC = "none"  # the marker row of a response no reference metric applies to

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
    )


def refresh_auto_scores(
    store: Store, *, dataset: str | None = None, on_progress: Progress | None = None
) -> int:
    """Score every response that has no scores of this version; return how many were scored.

    Works in batches, each in its own short transaction, so the database is never held for
    long and an interrupted refresh keeps what it finished.
    """
    with store.connection() as con:
        total = sql.count_unscored(con, version=VERSION, dataset=dataset, primary=primary_metrics())
    done = 0
    while done < total:
        # One batch at a time per process: two sessions opening the Overview at once must
        # not score (and store) the same batch twice.
        with store.write_lock, store.connection() as con:
            batch = sql.unscored_batch(con, version=VERSION, dataset=dataset, limit=BATCH_SIZE)
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
        if on_progress:
            on_progress(done, total)
    return done


def score_datasets(
    store: Store, datasets: Sequence[str], *, on_progress: Progress | None = None
) -> int:
    """Score what an import added (every response of these datasets without scores), as
    `judgeboard import`, the Data page and the sample do; return how many were scored."""
    return sum(
        refresh_auto_scores(store, dataset=name, on_progress=on_progress) for name in datasets
    )
