"""What the published-set adapters share: the item columns of a stage, the staging of pairs
and preferences, and the insert of what a stage holds.

Each adapter reads one published file with DuckDB's JSON reader and leaves TEMP tables with the
stage columns that `load_sql.py` inserts from: `_stage` (items and their responses), `_prefs`
(preferences), `_items` and `_ratings`. A record's `_problem` is "<field>\\x1f<what is wrong>"
or NULL. Ids are content hashes of the source fields, so importing a file again adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dashboard.ids import utc_now
from dashboard.ingest import counts_sql, load_sql, read_sql, scales_sql
from dashboard.ingest.errors import IngestError
from dashboard.ingest.fields_sql import is_null_type
from dashboard.ingest.formats import KEY, NUMBER, SCALAR_TEXT, STRINGS, TEXT, Field, Format
from dashboard.ingest.generic import scale_message
from dashboard.ingest.ids_sql import content_id_sql, item_id_sql, response_id_sql
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.ingest.stage_sql import ITEM_STAGE_COLUMNS
from dashboard.store.connection import Connection
from dashboard.store.writes import ensure_dataset
from dashboard.types import Dataset

ARRAY = "read_json($path, format='array', sample_size=-1)"
JSONL = "read_json($path, format='newline_delimited', sample_size=-1)"
PREFERENCE_ID = content_id_sql(
    "item_id",
    "response_a",
    "response_b",
    "rater_kind",
    "rater",
    "rubric",
    "rubric_version",
    "verdict",
    "shown_first",
    "unscored_reason",
    "explanation",
    "raw_output",
)
RATING_ID = content_id_sql(
    "response_id",
    "rater_kind",
    "rater",
    "rubric",
    "rubric_version",
    "CAST(value AS VARCHAR)",
    "raw_output",
)
_WHOLE = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT")
_NUMBERS = (*_WHOLE, "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL")
_FITS = {
    TEXT: lambda t: t == "VARCHAR",
    KEY: lambda t: t == "VARCHAR" or t in _WHOLE or t in ("UINTEGER", "UBIGINT"),
    NUMBER: lambda t: t.split("(")[0] in _NUMBERS,
    STRINGS: lambda t: t in ("VARCHAR[]", "JSON[]"),
    SCALAR_TEXT: lambda t: not t.endswith("]") and not t.startswith(("STRUCT", "MAP")),
}


def fits(kind: str, sql_type: str) -> bool:
    """Whether a column DuckDB typed `sql_type` holds values of this kind (a column that was
    null everywhere fits every kind)."""
    return is_null_type(sql_type) or _FITS.get(kind, lambda t: True)(sql_type)


def field(name: str, kind: str) -> Field:
    return Field(name, kind, name)


TEMP_TABLES = ("_stage", "_prefs", "_raw", "_items", "_ratings", "_games")
Importer = Callable[[Connection, FilePlan, str], tuple[Counts, int]]


@dataclass(frozen=True)
class Adapter:
    """One published set: its `--format` name and its name for people, the keys that only its
    files have, and how one of its files imports (returning its counts and records). Files
    with `late(columns)` true import after the others of a folder (a judge file that joins to
    stored pairs). `records_table` is the stage holding one row per record of the file, where
    exact duplicates are counted; `required` the columns its SQL reads."""

    name: str
    title: str
    detect: tuple[frozenset[str], ...]
    run: Importer
    late: Callable[[frozenset[str]], bool] = lambda columns: False
    records_table: tuple[str, ...] = ("_stage",)  # the first that exists
    kind: str = "json"  # the file kind its files are published in ("json" or "jsonl")
    # For each key set of `detect`, every column a file with those keys must have.
    required: tuple[frozenset[str], ...] = ()
    # The kind of value each column its SQL reads must hold (formats.py's kinds).
    fields: tuple[Field, ...] = ()

    def as_format(self) -> Format:
        """Its columns as a format, for the scan that finds a record of the wrong type."""
        return Format(self.name, "", "", self.fields, self.detect)

    def missing(self, columns: frozenset[str]) -> list[str]:
        """The columns its SQL reads that a file with its keys lacks."""
        for index, keys in enumerate(self.detect):
            if keys <= columns:
                needed = self.required[index] if self.required else keys
                return sorted(needed - columns)
        return []


def item_select(given: dict[str, str]) -> str:
    """Every item column of the stage: the given SQL expressions, NULL for the rest."""
    return ", ".join(
        f"({given[name]})::{sql_type} AS {name}" if name in given else f"NULL::{sql_type} AS {name}"
        for name, sql_type in ITEM_STAGE_COLUMNS.items()
    )


def stage_pairs(con: Connection, select: str, problems: str, path: str, dataset: str) -> None:
    """`_stage` from a SELECT of item columns plus system/answer _a and _b."""
    with_item = f"SELECT *, {item_id_sql()} AS item_id FROM ({select})"
    sql = (
        f"CREATE TEMP TABLE _stage AS SELECT *, "
        f"{response_id_sql('item_id', 'system_a', 'answer_a')} AS response_a, "
        f"{response_id_sql('item_id', 'system_b', 'answer_b')} AS response_b, "
        f"{problems} AS _problem FROM ({with_item})"
    )
    read_sql.execute(con, sql, {"path": path, "dataset": dataset})


def stage_prefs(con: Connection, select: str, params: dict[str, object]) -> None:
    """`_prefs` from a SELECT of preference columns (without the id) plus `_problem`."""
    read_sql.execute(
        con,
        f"CREATE TEMP TABLE _prefs AS SELECT *, {PREFERENCE_ID} AS preference_id FROM ({select})",
        params,
    )


def run_stage(
    con: Connection, plan: FilePlan, build: Callable[..., None], *args: object, **kw: object
) -> None:
    """Run a staging function (a DuckDB error is turned into our message by
    `adapters.import_adapter`, which knows the set's columns)."""
    build(con, *args, **kw)


def write(
    con: Connection,
    plan: FilePlan,
    dataset: str,
    *,
    items: str | None = None,
    responses: str | None = None,
    ratings: str | None = None,
    preferences: str | None = None,
) -> Counts:
    """Insert what the named stage tables hold; return the counts."""
    ensure_dataset(con, Dataset(dataset, source=str(plan.path)))
    now = utc_now()
    counts = Counts()
    for table, relation, insert in (
        ("items", items, load_sql.insert_items),
        ("responses", responses, load_sql.insert_responses),
        ("ratings", ratings, load_sql.insert_ratings),
        ("preferences", preferences, load_sql.insert_preferences),
    ):
        if relation is not None:
            if table == "ratings":
                _check_scales(con, plan, relation)
            counts.add(table, insert(con, relation, now=now))
            if table in _JUDGED:
                counts.unscored[table] = counts_sql.unscored(con, relation, *_JUDGED[table])
    return counts


_JUDGED = {"ratings": ("rating_id", "value"), "preferences": ("preference_id", "verdict")}


def _check_scales(con: Connection, plan: FilePlan, relation: str) -> None:
    """A published set's rubric keeps its scale: refused if stored ratings of the same
    rubric name are on another one (`generic.check_scales` for the general formats)."""
    if not scales_sql.has_scale_conflict(con, relation):
        return
    found = scales_sql.scale_conflict(con, load_sql.Rows(relation, "rowid"))
    if found is not None:
        where = "the ratings already stored" if found.other_index < 0 else "this file"
        raise IngestError(scale_message(found, where), file=plan.path)
