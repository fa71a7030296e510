"""What the published-set adapters share: the item columns of a stage, the staging of pairs
and preferences, and the insert of what a stage holds.

Each adapter reads one published file with DuckDB's JSON reader and leaves TEMP tables with the
stage columns that `load_sql.py` inserts from: `_stage` (items and their responses), `_prefs`
(preferences), `_items` and `_ratings`. A record's `_problem` is "<field>\\x1f<what is wrong>"
or NULL. Ids are content hashes of the source fields, so importing a file again adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from dashboard.ids import utc_now
from dashboard.ingest import load_sql, read_sql
from dashboard.ingest.errors import IngestError
from dashboard.ingest.formats import SINGLE, Field, Format
from dashboard.ingest.generic import read_error, scale_message
from dashboard.ingest.ids_sql import content_id_sql, item_id_sql, response_id_sql
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.ingest.stage_sql import ITEM_STAGE_COLUMNS
from dashboard.store.connection import Connection, DatabaseError
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
TEMP_TABLES = ("_stage", "_prefs", "_raw", "_items", "_ratings")
Importer = Callable[[Connection, FilePlan, str], tuple[Counts, int]]


@dataclass(frozen=True)
class Adapter:
    """One published set: the keys that only its files have, the dataset it goes into by
    default, and how one of its files imports (returning its counts and records). Files with
    `late(columns)` true import after the others of a folder (a judge file that joins to
    stored pairs). Its SQL reads the `kind` of file the set is published in, and no other."""

    name: str
    detect: tuple[frozenset[str], ...]
    default_dataset: str
    run: Importer
    late: Callable[[frozenset[str]], bool] = lambda columns: False
    kind: str = "json"  # the file kind its published files come in: "json" or "jsonl"
    # The kind of each column its SQL reads (formats.py's kinds): a record whose value is of
    # another type is named when DuckDB cannot use it.
    kinds: Mapping[str, str] = field(default_factory=dict)

    @property
    def checks(self) -> Format:
        """The types of its columns, as a format for `locate` to check records against."""
        fields = tuple(Field(name, kind, name) for name, kind in self.kinds.items())
        return Format(self.name, SINGLE, "context", fields, self.detect)


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
    """Run a staging function; a file DuckDB cannot read becomes our IngestError."""
    try:
        build(con, *args, **kw)
    except DatabaseError as error:
        raise read_error(plan, None, error) from None


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
    return counts


def _check_scales(con: Connection, plan: FilePlan, relation: str) -> None:
    """A published set's rubric keeps its scale: refused if stored ratings of the same
    rubric name are on another one (`generic.check_scales` for the general formats)."""
    if not load_sql.has_scale_conflict(con, relation):
        return
    found = load_sql.scale_conflict(con, load_sql.Rows(relation, "rowid"))
    if found is not None:
        where = "the ratings already stored" if found.other_index < 0 else "this file"
        raise IngestError(scale_message(found, where), file=plan.path)
