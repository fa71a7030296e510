"""The SQL of `--on-error skip` over a stage: every bad record in file order, the records
whose id an earlier one holds with other content, and the stage without its bad records."""

from __future__ import annotations

from dashboard.ingest.load_sql import Problem, Rows
from dashboard.ingest.read_sql import execute
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


def problems(con: Connection, rows: Rows) -> list[Problem]:
    """Every bad record of a stage, in file order."""
    return fetch(
        execute(
            con,
            f"SELECT {rows.index} AS index, _problem AS problem FROM {rows.relation} "
            "WHERE _problem IS NOT NULL ORDER BY index",
            rows.params,
        ),
        Problem,
    )


def mark_id_conflicts(con: Connection, field_index: int, stage: str = "_stage") -> None:
    """Give `_problem` to each good record whose external id an earlier good record of its
    dataset, or a stored item, holds with other content (`field_index`: the id's field)."""
    prefix = f"'{int(field_index)}' || chr(31) || 'duplicate id ''' || s.external_id || ''': '"
    con.execute(f"""
        UPDATE {stage} s SET _problem = {prefix} || c.why || ' has this id with different content'
        FROM (
            SELECT rid, 'an earlier record' AS why FROM (
                SELECT rowid AS rid, item_id <> first_value(item_id) OVER (
                    PARTITION BY dataset, external_id ORDER BY rowid) AS differs
                FROM {stage} WHERE external_id IS NOT NULL AND _problem IS NULL)
            WHERE differs
            UNION ALL
            SELECT s.rowid, 'an item already stored in this dataset' FROM {stage} s
            JOIN items t ON t.dataset = s.dataset AND t.external_id = s.external_id
            WHERE s._problem IS NULL AND t.item_id <> s.item_id) c
        WHERE s.rowid = c.rid""")


def keep_good(con: Connection, stage: str = "_stage") -> None:
    """The stage without its bad records, in the same order."""
    con.execute(
        f"CREATE TEMP TABLE _good AS SELECT * FROM {stage} WHERE _problem IS NULL ORDER BY rowid"
    )
    con.execute(f"DROP TABLE {stage}")
    con.execute(f"ALTER TABLE _good RENAME TO {stage}")
