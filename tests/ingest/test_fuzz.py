"""A seeded fuzzer over every import format and file kind, bounded in time.

Each case (tests/support/fuzz.py) is imported into a real database. It must either import, or
be refused with an `IngestError` that names the file and carries none of DuckDB's own text;
a refused import writes nothing, and an import stores no rating that could poison a metric
(a scale that is not finite or is empty, a value outside its scale, a rubric on two scales).

    JUDGEBOARD_FUZZ_SEED=7 JUDGEBOARD_FUZZ_SECONDS=600 pytest tests/ingest/test_fuzz.py

runs another seed for longer; a failure names its seed and case number, which rebuild it.
"""

from __future__ import annotations

import os
import random
import re
import time
import traceback
from pathlib import Path

from dashboard.ingest import IngestError, import_path
from dashboard.ingest.read_sql import table_counts
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.support.fuzz import GENERIC, PUBLISHED, Record, make_case, seed_records

SEED = int(os.environ.get("JUDGEBOARD_FUZZ_SEED", "20261201"))
BUDGET_S = float(os.environ.get("JUDGEBOARD_FUZZ_SECONDS", "20"))
CASES_PER_DATABASE = 40
# However slow the machine, at least this many cases run (past the budget if need be).
MIN_CASES = 25
# DuckDB's own words, which must never reach a user, and Python's.
RAW_TEXT = re.compile(
    r"(Binder|Conversion|Invalid Input|Catalog|Parser|INTERNAL|Out of Range|Serialization"
    r"|Constraint|Not implemented|IO|Permission|Transaction|Invalid) Error"
    r"|Current transaction is aborted|Traceback|duckdb|_duckdb|LINE \d+:"
)
BAD_RATINGS = """
    SELECT count(*) FROM ratings
    WHERE NOT isfinite(scale_low) OR NOT isfinite(scale_high) OR scale_low >= scale_high
       OR (value IS NOT NULL AND (NOT isfinite(value) OR value < scale_low
                                   OR value > scale_high))"""
TWO_SCALES = """
    SELECT count(*) FROM (SELECT rubric FROM ratings GROUP BY rubric
                          HAVING count(DISTINCT (scale_low, scale_high)) > 1)"""


def _counts(store: Store) -> dict[str, int]:
    """Rows of every table: equal before and after a refused import means it wrote nothing."""
    with store.connection() as con:
        return table_counts(con)


def _problems_after(store: Store, path: Path, options: dict, before: object) -> str | None:
    """What is wrong with importing `path` into `store`, or None."""
    try:
        import_path(store, path, score=False, **options)
    except IngestError as error:
        message = str(error)
        if RAW_TEXT.search(message):
            return f"raw text in the message: {message[:500]}"
        if error.file != str(path) and not error.file.startswith(str(path.parent)):
            return f"the message names another file: {message[:300]}"
        if _counts(store) != before:
            return f"a refused import wrote something: {message[:300]}"
        return None
    except Exception:  # noqa: BLE001 - the fuzzer's point: anything else is a defect
        return "an exception other than IngestError:\n" + traceback.format_exc()[-3000:]
    if query(store, BAD_RATINGS)[0][0] or query(store, TWO_SCALES)[0][0]:
        return "stored a rating that poisons metrics"
    return None


def test_no_bad_file_crashes_leaks_raw_text_or_half_writes(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    seeds: dict[str, list[Record]] = {f: seed_records(f) for f in (*GENERIC, *PUBLISHED)}
    failures: list[str] = []
    started = time.monotonic()
    number = 0
    store = Store(tmp_path / "fuzz-0.duckdb")
    while (time.monotonic() - started < BUDGET_S or number < MIN_CASES) and len(failures) < 5:
        if number and number % CASES_PER_DATABASE == 0:
            store = Store(tmp_path / f"fuzz-{number}.duckdb")
        folder = tmp_path / f"case-{number}"
        folder.mkdir()
        case = make_case(number, folder, rng, lambda fmt: [dict(r) for r in seeds[fmt]])
        problem = _problems_after(store, case.path, case.options, _counts(store))
        if problem is not None:
            failures.append(f"{case.describe(SEED)}\n  {problem}")
        number += 1
    assert not failures, f"{len(failures)} of {number} cases failed:\n" + "\n\n".join(failures)
