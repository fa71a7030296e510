"""Adapters for the real public sets in ../shared/data (see its README for their formats).

- PandaLM: each pair an item with two responses; the 3 annotators become human preferences.
  The judge files (GPT-3.5, PandaLM-7B) carry only `idx` and join to the stored pairs.
- AlpacaEval annotations: pairs with one judge preference each.
- LLMBar: pairs, the gold label as a human preference, a result file's verdicts in both orders.
- NQ-open EfficientQA test: each rated prediction a response with a 3-level human rating.
- FastChat MT-Bench single judgments: the judge's raw text, rated by our own parser.
The SQL lives in store/importing_adapters.py and store/importing_rated.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dashboard.ids import utc_now
from dashboard.ingest.errors import IngestError
from dashboard.ingest.generic import Counts, FilePlan, check_stage, read_error
from dashboard.store import importing, importing_adapters, importing_rated
from dashboard.store.connection import Connection, DatabaseError
from dashboard.store.writes import ensure_dataset
from dashboard.types import Dataset
from scoring.judge import parse_rating_result

DEFAULT_DATASETS = {"pandalm": "pandalm", "alpaca_eval": "alpaca-eval", "llmbar": "llmbar",
                    "nq_open": "nq-open", "mt_bench": "mt-bench"}
NQ_SYSTEM = "efficientqa-predictions"
NQ_RATER = "efficientqa-raters"
MT_BENCH_RUBRIC = "mt-bench-single"
MT_BENCH_SCALE = (1.0, 10.0)
_PANDALM_JUDGES = {"gpt_result": "gpt_reason", "pandalm_result": "pandalm_reason"}
_LLMBAR_RESULT = re.compile(r"^[^_]+_(?P<judge>.+)_(?P<method>[^_]+)_result$")


def phase(fmt: str, columns: frozenset[str]) -> int:
    """When a file imports within a folder: judge files that join to stored pairs go last."""
    return 1 if fmt == "pandalm" and "annotator1" not in columns else 0


def dataset_for(plan: FilePlan) -> str:
    return plan.dataset or DEFAULT_DATASETS[plan.fmt]


def _stage(con: Connection, plan: FilePlan, build: Callable[..., None], *args: object,
           **kw: object) -> None:
    try:
        build(con, *args, **kw)
    except DatabaseError as error:
        raise read_error(plan, None, error) from None


def _write(con: Connection, plan: FilePlan, dataset: str, *, items: str | None = None,
           responses: str | None = None, ratings: str | None = None,
           preferences: str | None = None) -> Counts:
    ensure_dataset(con, Dataset(dataset, source=str(plan.path)))
    now = utc_now()
    counts = Counts()
    for table, relation, insert in (
            ("items", items, importing.insert_items),
            ("responses", responses, importing.insert_responses),
            ("ratings", ratings, importing.insert_ratings),
            ("preferences", preferences, importing.insert_preferences)):
        if relation is not None:
            counts.add(table, insert(con, relation, now=now))
    return counts


def import_pandalm(con: Connection, plan: FilePlan) -> tuple[Counts, int]:
    dataset = dataset_for(plan)
    names = plan.columns.names
    if "annotator1" in names:
        _stage(con, plan, importing_adapters.stage_pandalm_pairs, str(plan.path),
               dataset=dataset)
        check_stage(con, plan, None)
        counts = _write(con, plan, dataset, items="_stage", responses="_stage",
                        preferences="_prefs")
        return counts, importing.record_count(con, "_stage")
    result = next(r for r in _PANDALM_JUDGES if r in names)
    rater = plan.path.stem.split("-testset")[0]
    _stage(con, plan, importing_adapters.stage_pandalm_judge, str(plan.path), dataset=dataset,
           rater=rater, result=result, reason=_PANDALM_JUDGES[result])
    missing = importing_adapters.unmatched_idx(con, dataset=dataset)
    if missing is not None:
        raise IngestError(f"idx {missing[1]} has no pair in dataset {dataset!r}; import "
                          "PandaLM's testset-v1.json into it first", file=plan.path,
                          record=missing[0] + 1, field="idx", file_kind=plan.kind)
    return _write(con, plan, dataset, preferences="_prefs"), importing.record_count(con, "_raw")


def import_alpaca_eval(con: Connection, plan: FilePlan) -> tuple[Counts, int]:
    dataset = dataset_for(plan)
    _stage(con, plan, importing_adapters.stage_alpaca_eval, str(plan.path), dataset=dataset)
    check_stage(con, plan, None)
    counts = _write(con, plan, dataset, items="_stage", responses="_stage",
                    preferences="_prefs")
    return counts, importing.record_count(con, "_stage")


def llmbar_judge(plan: FilePlan) -> str | None:
    """"gpt-4/vanilla" for natural_gpt-4_vanilla_result.json (LLMBar names evaluators so)."""
    if "results" not in plan.columns.names:
        return None
    match = _LLMBAR_RESULT.match(plan.path.stem)
    return f"{match['judge']}/{match['method']}" if match else plan.path.stem


def import_llmbar(con: Connection, plan: FilePlan) -> tuple[Counts, int]:
    dataset = dataset_for(plan)
    _stage(con, plan, importing_adapters.stage_llmbar, str(plan.path), dataset=dataset,
           judge=llmbar_judge(plan))
    check_stage(con, plan, None)
    counts = _write(con, plan, dataset, items="_stage", responses="_stage",
                    preferences="_prefs")
    return counts, importing.record_count(con, "_stage")


def import_nq_open(con: Connection, plan: FilePlan) -> tuple[Counts, int]:
    dataset = dataset_for(plan)
    _stage(con, plan, importing_rated.stage_nq_open, str(plan.path), dataset=dataset,
           system=plan.system or NQ_SYSTEM, rater=NQ_RATER)
    check_stage(con, plan, None, rows=importing.ordered_stage("_items"))
    counts = _write(con, plan, dataset, items="_items", responses="_stage", ratings="_stage")
    return counts, importing.record_count(con, "_items")


def import_mt_bench(con: Connection, plan: FilePlan) -> tuple[Counts, int]:
    dataset = dataset_for(plan)
    questions = plan.path.with_name("question.jsonl")
    if not questions.is_file():
        raise IngestError(f"MT-Bench judgments need FastChat's question.jsonl beside them "
                          f"({questions} is missing)", file=plan.path)
    try:
        importing_rated.stage_mt_bench_items(con, str(questions), dataset=dataset)
    except DatabaseError as error:
        raise IngestError(f"cannot read {questions}: {error}", file=plan.path) from None
    _stage(con, plan, importing_rated.stage_mt_bench_judgments, str(plan.path))
    check_stage(con, plan, None)
    low, high = MT_BENCH_SCALE
    parsed = []
    for rowid, text in importing_rated.judgments(con):
        result = parse_rating_result(text, low=low, high=high)
        parsed.append((rowid, result.value, result.reason))
    importing_rated.stage_mt_bench_ratings(con, parsed, rubric=MT_BENCH_RUBRIC, low=low,
                                           high=high)
    counts = _write(con, plan, dataset, items="_items", responses="_stage", ratings="_ratings")
    return counts, importing.record_count(con, "_stage")


ADAPTER_IMPORTS = {"pandalm": import_pandalm, "alpaca_eval": import_alpaca_eval,
                   "llmbar": import_llmbar, "nq_open": import_nq_open,
                   "mt_bench": import_mt_bench}
_TEMP = ("_stage", "_prefs", "_raw", "_items", "_ratings")


def import_adapter(con: Connection, plan: FilePlan) -> tuple[Counts, int, tuple[str, ...]]:
    """Import one file of a real set; return (counts, records, datasets)."""
    counts, records = ADAPTER_IMPORTS[plan.fmt](con, plan)
    importing.drop(con, *_TEMP)
    return counts, records, (dataset_for(plan),)
