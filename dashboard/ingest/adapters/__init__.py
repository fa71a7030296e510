"""Adapters for the real public sets in ../shared/data (see its README for their formats), one
module per set, each with its detection keys and its SQL. A file of a published set goes into
the dataset the user names, else the file's (or the folder's) name, as any other file does.

- PandaLM: each pair an item with two responses; the 3 annotators become human preferences.
  The judge files (GPT-3.5, PandaLM-7B) carry only `idx` and join to the stored pairs.
- AlpacaEval annotations: pairs with one judge preference each.
- LLMBar: pairs, the gold label as a human preference, a result file's verdicts in both orders.
- NQ-open EfficientQA test: each rated prediction a response with a 3-level human rating.
- FastChat MT-Bench single judgments: the judge's raw text, rated by our own parser.
- FastChat MT-Bench pair judgments: both games of a pair, one verdict per presentation order.
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.ingest import counts_sql, read_sql
from dashboard.ingest.adapters import alpaca_eval, llmbar, mt_bench, mt_bench_pair, nq_open, pandalm
from dashboard.ingest.adapters.common import TEMP_TABLES, Adapter, fits
from dashboard.ingest.errors import IngestError, other_format
from dashboard.ingest.generic import KIND_NAMES, read_error
from dashboard.ingest.plan import FilePlan, Imported
from dashboard.store.connection import Connection, DatabaseError

# In detection order: the first whose keys a file has.
ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        mt_bench.ADAPTER,
        mt_bench_pair.ADAPTER,
        nq_open.ADAPTER,
        llmbar.ADAPTER,
        alpaca_eval.ADAPTER,
        pandalm.ADAPTER,
    )
}


def phase(fmt: str, columns: frozenset[str]) -> int:
    """When a file imports within a folder: judge files that join to stored pairs go last."""
    adapter = ADAPTERS.get(fmt)
    return 1 if adapter is not None and adapter.late(columns) else 0


def dataset_for(plan: FilePlan) -> str:
    return plan.dataset or plan.dataset_default


def check_plans(plans: Sequence[FilePlan]) -> None:
    """Refuse an import whose files would merge where they must not (two LLMBar result
    files named as one judge)."""
    llmbar.check_judges([p for p in plans if p.fmt == llmbar.ADAPTER.name])


def import_adapter(con: Connection, plan: FilePlan) -> Imported:
    """Import one file of a real set."""
    dataset = dataset_for(plan)
    adapter = ADAPTERS[plan.fmt]
    if plan.kind != adapter.kind:  # its SQL reads the kind it is published in, and no other
        raise IngestError(
            f"has the columns of {adapter.title}, whose files are {KIND_NAMES[adapter.kind]}, "
            f"but it is {KIND_NAMES[plan.kind]}: convert it back, or pass --format with one of "
            "the plain formats",
            file=plan.path,
        )
    missing = adapter.missing(plan.columns.names)
    if missing:
        raise IngestError(
            f"the file has no column '{missing[0]}', which {adapter.title} files have "
            f"(it has: {', '.join(plan.columns.file_columns)})",
            file=plan.path,
            field=missing[0],
            remedy=other_format(),
        )
    wrong = next(
        (
            f
            for f in adapter.fields
            if f.name in plan.columns.view and not fits(f.kind, plan.columns.type_of(f.name) or "")
        ),
        None,
    )
    if wrong is not None:
        raise read_error(plan, adapter.as_format(), TypeError(wrong.name), what=adapter.title)
    try:
        counts, records = adapter.run(con, plan, dataset)
    except DatabaseError as error:
        raise read_error(plan, adapter.as_format(), error, what=adapter.title) from None
    table = next(t for t in adapter.records_table if read_sql.table_exists(con, t))
    counts.duplicates = counts_sql.exact_duplicates(con, table)
    read_sql.drop(con, *TEMP_TABLES)
    return Imported(counts, records, (dataset,))


__all__ = ["ADAPTERS", "Adapter", "check_plans", "dataset_for", "import_adapter", "phase"]
