"""Reference-based metrics of each response, computed once by `scoring` and stored.

EM and token F1 against one or more references (`scoring.qa.multi_reference`), the MCQA
choice's accuracy and IoU (`scoring.mcqa`), and the verdict of a hallucination detector
(`scoring.classification.parse_binary_verdict`). They are stored in `auto_scores` so that
metric tables aggregate them in SQL like any rating. A response's id is a hash of its content,
so a stored score stays valid until `VERSION` changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dashboard.metrics import reference_sql as sql
from dashboard.store import Store, transaction
from scoring import classification, mcqa, qa

VERSION = "1"
BATCH_SIZE = 20_000
REFERENCE_TASKS = frozenset({"open_qa", "open_qa_context", "conversational_qa"})
MCQA_TASKS = frozenset({"mcqa_single", "mcqa_multi"})

Progress = Callable[[int, int], None]


def score_response(
    task_type: str,
    answer: str,
    references: Sequence[str] | None,
    options: Sequence[str] | None,
    gold_letters: Sequence[str] | None,
) -> list[tuple[str, float | None]]:
    """(metric, value) pairs for one response; ("none", None) when no metric applies."""
    if task_type in REFERENCE_TASKS and references:
        return [
            ("em", qa.multi_reference(answer, list(references), qa.exact_match)),
            ("f1", qa.multi_reference(answer, list(references), qa.token_f1)),
        ]
    if task_type in MCQA_TASKS and options:
        chosen = mcqa.extract_choices(answer, list(options))
        gold = tuple(gold_letters or ())
        return [
            ("mcqa_accuracy", mcqa.accuracy([chosen], [gold])),
            ("mcqa_iou", mcqa.iou(chosen, gold)),
        ]
    if task_type == "hallucination":
        verdict = classification.parse_binary_verdict(answer)
        return [("halluc_pred", None if verdict is None else float(verdict))]
    # A marker row, so that this response is not picked up again.
    return [("none", None)]


def refresh_auto_scores(
    store: Store, *, dataset: str | None = None, on_progress: Progress | None = None
) -> int:
    """Score every response that has no scores of this version; return how many were scored.

    Works in batches, each in its own short transaction, so the database is never held for
    long and an interrupted refresh keeps what it finished.
    """
    with store.connection() as con:
        total = sql.count_unscored(con, version=VERSION, dataset=dataset)
    done = 0
    while done < total:
        # One batch at a time per process: two sessions opening the Overview at once must
        # not score (and store) the same batch twice.
        with store.write_lock, store.connection() as con:
            batch = sql.unscored_batch(con, version=VERSION, dataset=dataset, limit=BATCH_SIZE)
            if not batch:
                break
            rows = [
                (response_id, metric, value, VERSION)
                for response_id, task, answer, refs, options, gold in batch
                for metric, value in score_response(task, answer, refs, options, gold)
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
