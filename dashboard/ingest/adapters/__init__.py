"""Adapters for the real public sets in ../shared/data (see its README for their formats), one
module per set, each with its detection keys, its default dataset and its SQL.

- PandaLM: each pair an item with two responses; the 3 annotators become human preferences.
  The judge files (GPT-3.5, PandaLM-7B) carry only `idx` and join to the stored pairs.
- AlpacaEval annotations: pairs with one judge preference each.
- LLMBar: pairs, the gold label as a human preference, a result file's verdicts in both orders.
- NQ-open EfficientQA test: each rated prediction a response with a 3-level human rating.
- FastChat MT-Bench single judgments: the judge's raw text, rated by our own parser.
"""

from __future__ import annotations

from dashboard.ingest import read_sql
from dashboard.ingest.adapters import alpaca_eval, llmbar, mt_bench, nq_open, pandalm
from dashboard.ingest.adapters.common import TEMP_TABLES, Adapter
from dashboard.ingest.errors import IngestError
from dashboard.ingest.generic import read_error
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection, DatabaseError

_KIND_NAMES = {
    "json": "a JSON array",
    "jsonl": "JSON lines",
    "csv": "a CSV file",
    "parquet": "a Parquet file",
}
# In detection order: the first whose keys a file has.
ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        mt_bench.ADAPTER,
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
    return plan.dataset or ADAPTERS[plan.fmt].default_dataset


def import_adapter(con: Connection, plan: FilePlan) -> tuple[Counts, int, tuple[str, ...]]:
    """Import one file of a real set; return (counts, records, datasets)."""
    adapter = ADAPTERS[plan.fmt]
    if plan.kind != adapter.kind:
        raise IngestError(
            f"has the columns of {adapter.name}, whose files are {_KIND_NAMES[adapter.kind]}, "
            f"but it is {_KIND_NAMES[plan.kind]}: convert it back, or pass --format with one of "
            "the general formats (docs/formats.md)",
            file=plan.path,
        )
    if not any(keys <= plan.columns.names for keys in adapter.detect):  # --format said so
        needs = " or ".join(f"({', '.join(sorted(keys))})" for keys in adapter.detect)
        raise IngestError(
            f"is not a {adapter.name} file: those have the columns {needs}", file=plan.path
        )
    dataset = dataset_for(plan)
    try:
        counts, records = adapter.run(con, plan, dataset)
    except DatabaseError as error:  # a value of another type than the set's: which record
        raise read_error(plan, adapter.checks, error) from None
    read_sql.drop(con, *TEMP_TABLES)
    return counts, records, (dataset,)


__all__ = ["ADAPTERS", "Adapter", "dataset_for", "import_adapter", "phase"]
