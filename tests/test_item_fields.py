"""The item's fields are declared once, on `dashboard.types.Item`; every other list of them is
derived from that declaration and must equal it, in its order."""

from __future__ import annotations

import dataclasses
import inspect
import re

from dashboard.export import export_sql
from dashboard.ingest import formats, ids_sql, load_sql, stage_sql
from dashboard.ingest.adapters import common
from dashboard.ingest.fields_sql import VALUE_TYPES
from dashboard.judging import targets_sql
from dashboard.review import detail_sql
from dashboard.store import Store
from dashboard.store.writes import ITEM_COLUMNS as STORED_COLUMNS
from dashboard.types import ITEM_CONTENT_FIELDS, ITEM_FIELDS, Item
from tests.ingest import identity

NAMES = [f.name for f in ITEM_FIELDS]
CONTENT = [f.name for f in ITEM_CONTENT_FIELDS]
# The item as a file row holds it: every field but the id, under its file name.
IN_FILES = [(f.file_column, f.kind) for f in ITEM_FIELDS if f.name != "item_id"]


def _aliases(select_list: str) -> list[str]:
    """The names a SELECT list gives its columns (`expr AS name`, each before a comma)."""
    return re.findall(r" AS (\w+)\s*(?:,|$)", select_list)


def test_the_declaration_is_the_item_record_and_the_items_table(store: Store) -> None:
    assert [f.name for f in dataclasses.fields(Item)] == NAMES
    assert [n for n in NAMES if n not in ("item_id", "metadata")] == CONTENT
    with store.connection() as con:
        described = con.execute(
            "SELECT column_name, column_type FROM (DESCRIBE items) "
            "WHERE column_name <> 'created_utc'"
        ).fetchall()
    # PostgreSQL's json columns reach DuckDB's postgres extension as text.
    read_as = {"JSON": "VARCHAR"} if store.on_server else {}
    assert [(name, sql_type) for name, sql_type in described] == [
        (f.name, read_as.get(f.sql_type, f.sql_type)) for f in ITEM_FIELDS
    ]
    assert all(f.kind in VALUE_TYPES for f in ITEM_FIELDS)  # kinds of ingest/formats.py


def test_the_importer_derives_its_item_columns() -> None:
    assert list(load_sql.ITEM_COLUMNS) == NAMES
    assert list(STORED_COLUMNS) == [*NAMES, "created_utc"]
    # The stage holds each content field as its kind's normalized value, first, in every shape.
    normalized = {f.name: VALUE_TYPES[f.kind] for f in ITEM_CONTENT_FIELDS}
    assert normalized == stage_sql.ITEM_STAGE_COLUMNS
    for columns in stage_sql.STAGE_COLUMNS.values():
        assert list(columns)[: len(CONTENT)] == CONTENT
    assert _aliases(common.item_select({})) == CONTENT
    for fmt in (formats.RATINGS, formats.PREFERENCES):
        assert [(f.name, f.kind) for f in fmt.fields[: len(IN_FILES)]] == IN_FILES
        assert [f.name for f in fmt.fields[: len(IN_FILES)] if f.required] == ["question"]
        given = fmt.field("item_id")
        assert given is not None and given.target == "given_item_id"


def test_the_export_and_the_detail_derive_their_item_columns() -> None:
    for fmt in export_sql.WRITERS:
        assert _aliases(", ".join(export_sql._item_columns(fmt))) == [c for c, _ in IN_FILES]
    assert _aliases(detail_sql._ITEM_COLUMNS) == [f.file_column for f in ITEM_FIELDS]
    detail = [f.name for f in dataclasses.fields(detail_sql.ResponseRow)]
    assert detail[: len(ITEM_FIELDS)] == [f.file_column for f in ITEM_FIELDS]


def test_the_judges_targets_take_a_subset_in_the_declared_order() -> None:
    names = [f.name for f in dataclasses.fields(targets_sql.TargetItem)]
    assert names == [n for n in NAMES if n in names]


def test_the_id_rule_covers_every_content_field() -> None:
    # The rule itself (its order) is `identity.item_id` and its SQL twin, stated on their own.
    assert set(inspect.signature(identity.item_id).parameters) == set(CONTENT)
    sql = ids_sql.item_id_sql("s.")
    assert {n for n in CONTENT if f"s.{n}" in sql} == set(CONTENT)
