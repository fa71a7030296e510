"""What each import of a file did, so that the same file imported again with another column
mapping is told from a new file: its content gives other items or responses than the earlier
import did, and keeping both would hold the file twice in the dataset. That is refused unless
the import replaces the earlier one (`--replace`), which removes what the earlier import
brought and this one does not (and refuses when people or judges have labelled it since).

While a file imports, `load_sql` notes the id of every item, response, rating and preference
it holds in the temp table `_file_rows` (`FILE_ROWS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.ids import new_id, utc_now
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar

FILE_ROWS = "_file_rows"
KINDS = ("items", "responses", "ratings", "preferences")
# The rows people and judges add to a response or an item after an import, which a
# replacement must not drop: (table, the columns that name the response or item).
_LATER_WORK: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ratings", "rating_id", ("response_id",)),
    ("preferences", "preference_id", ("response_a", "response_b")),
)
_REFERRING: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("campaign_items", ("response_id",)),
    ("anchors", ("response_id",)),
    ("few_shot_examples", ("response_id",)),
    ("probes", ("response_id", "response_a", "response_b")),
)


@dataclass(frozen=True)
class EarlierImport:
    """An import in force (not replaced) of the same content into one of the same datasets
    whose items or responses differ from this import's: `new_*` are this import's rows it
    lacks, `old_*` its rows this import lacks."""

    import_id: str
    file_name: str
    format: str
    mapping: str
    created_utc: datetime
    items: int
    responses: int
    new_items: int
    new_responses: int
    old_items: int
    old_responses: int


def start_file(con: Connection) -> None:
    con.execute(f"CREATE OR REPLACE TEMP TABLE {FILE_ROWS} (kind VARCHAR, row_id VARCHAR)")


def note_rows(con: Connection, kind: str, rows_sql: str, id_column: str) -> None:
    """Note the ids a file holds (a no-op outside an import that tracks them)."""
    if scalar(
        con.execute(
            "SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = $name AND temporary",
            {"name": FILE_ROWS},
        )
    ):
        con.execute(
            f"INSERT INTO {FILE_ROWS} SELECT DISTINCT $kind, {id_column} FROM ({rows_sql}) "
            f"WHERE {id_column} IS NOT NULL",
            {"kind": kind},
        )


_IN_FORCE = """
    SELECT * FROM imports e
    WHERE e.file_sha256 = $sha256 AND e.file_name = $file_name
      AND list_has_any(e.datasets, $datasets)
      AND NOT EXISTS (SELECT 1 FROM imports r WHERE list_contains(r.replaces, e.import_id))"""


def _count(kind: str, where: str) -> str:
    return (
        f"(SELECT count(*) FROM import_rows o WHERE o.import_id = e.import_id "
        f"AND o.kind = '{kind}' {where})"
    )


def _missing_from_file(kind: str) -> str:
    return _count(
        kind,
        f"AND NOT EXISTS (SELECT 1 FROM {FILE_ROWS} f WHERE f.kind = '{kind}' "
        "AND f.row_id = o.row_id)",
    )


def _new_in_file(kind: str) -> str:
    return (
        f"(SELECT count(*) FROM {FILE_ROWS} f WHERE f.kind = '{kind}' AND NOT EXISTS ("
        "SELECT 1 FROM import_rows o WHERE o.import_id = e.import_id "
        f"AND o.kind = '{kind}' AND o.row_id = f.row_id))"
    )


def differing_imports(
    con: Connection, file_name: str, sha256: str, datasets: list[str]
) -> list[EarlierImport]:
    """The imports in force of this file (its name and content) into these datasets whose
    items or responses are not the file's now (none when it gives what it gave before)."""
    sql = f"""
        SELECT * FROM (
            SELECT e.import_id, e.file_name, e.format, e.mapping, e.created_utc,
                   {_count("items", "")} AS items, {_count("responses", "")} AS responses,
                   {_new_in_file("items")} AS new_items,
                   {_new_in_file("responses")} AS new_responses,
                   {_missing_from_file("items")} AS old_items,
                   {_missing_from_file("responses")} AS old_responses
            FROM ({_IN_FORCE}) e)
        WHERE new_items + new_responses + old_items + old_responses > 0
        ORDER BY created_utc"""
    params = {"file_name": file_name, "sha256": sha256, "datasets": datasets}
    cursor = con.execute(sql, params)
    return fetch(cursor, EarlierImport)


def same_import_in_force(con: Connection, file_name: str, sha256: str, datasets: list[str]) -> bool:
    """Whether an import in force of this file into these datasets is recorded (called when
    none differs: it holds exactly the file's rows)."""
    params = {"file_name": file_name, "sha256": sha256, "datasets": datasets}
    found = con.execute(f"SELECT count(*) FROM ({_IN_FORCE})", params)
    return int(scalar(found)) > 0


def record_import(
    con: Connection,
    *,
    file_name: str,
    sha256: str,
    fmt: str,
    mapping: str,
    datasets: list[str],
    replaces: list[str] | None = None,
) -> str:
    import_id = new_id()
    con.execute(
        "INSERT INTO imports VALUES ($id, $name, $sha256, $fmt, $mapping, $datasets, "
        "$replaces, $now)",
        {
            "id": import_id,
            "name": file_name,
            "sha256": sha256,
            "fmt": fmt,
            "mapping": mapping,
            "datasets": datasets,
            "replaces": replaces,
            "now": utc_now(),
        },
    )
    con.execute(
        f"INSERT INTO import_rows SELECT $id, kind, row_id FROM {FILE_ROWS}", {"id": import_id}
    )
    return import_id


def _dropped(kind: str) -> str:
    """SQL: the earlier import's rows of a kind that neither this file nor another import in
    force holds (`$old` is the earlier import)."""
    return f"""
        SELECT o.row_id FROM import_rows o
        WHERE o.import_id = $old AND o.kind = '{kind}'
          AND NOT EXISTS (SELECT 1 FROM {FILE_ROWS} f WHERE f.kind = '{kind}'
                          AND f.row_id = o.row_id)
          AND NOT EXISTS (
              SELECT 1 FROM import_rows x JOIN imports i USING (import_id)
              WHERE x.kind = '{kind}' AND x.row_id = o.row_id AND x.import_id <> $old
                AND NOT EXISTS (SELECT 1 FROM imports r
                                WHERE list_contains(r.replaces, i.import_id)))"""


@dataclass(frozen=True)
class LaterWork:
    """Rows given since the earlier import to what a replacement would remove."""

    table: str
    n: int


def later_work(con: Connection, old: str) -> list[LaterWork]:
    """Labels, verdicts, campaigns, anchors, few-shot examples and probes on the responses a
    replacement would remove that the earlier import did not bring: a replacement keeps them,
    so it is refused."""
    found = []
    params: dict[str, Any] = {"old": old}
    for table, id_column, columns in _LATER_WORK:
        on = " OR ".join(f"t.{c} IN (SELECT row_id FROM gone)" for c in columns)
        sql = (
            f"WITH gone AS ({_dropped('responses')}) SELECT count(*) FROM {table} t "
            f"WHERE ({on}) AND t.{id_column} NOT IN (SELECT row_id FROM import_rows "
            f"WHERE import_id = $old AND kind = '{table}')"
        )
        found.append(LaterWork(table, int(scalar(con.execute(sql, params)))))
    for table, columns in _REFERRING:
        on = " OR ".join(f"t.{c} IN (SELECT row_id FROM gone)" for c in columns)
        sql = f"WITH gone AS ({_dropped('responses')}) SELECT count(*) FROM {table} t WHERE {on}"
        found.append(LaterWork(table, int(scalar(con.execute(sql, params)))))
    return [work for work in found if work.n]


@dataclass(frozen=True)
class Removed:
    items: int
    responses: int
    ratings: int
    preferences: int


_ID = {"ratings": "rating_id", "preferences": "preference_id"}


def remove_import(con: Connection, old: str) -> Removed:
    """Delete what the earlier import brought that nothing else holds: its ratings and
    preferences on the responses it alone brought, those responses (and their reference
    scores), and its items no response is left on. A row the deleted rows superseded is
    current again."""
    params = {"old": old}
    con.execute(f"CREATE OR REPLACE TEMP TABLE _gone_responses AS {_dropped('responses')}", params)
    counts = {}
    for table, _, columns in _LATER_WORK:
        on = " OR ".join(f"t.{c} IN (SELECT row_id FROM _gone_responses)" for c in columns)
        key = _ID[table]
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE _gone AS SELECT t.{key} AS id, t.supersedes "
            f"FROM {table} t WHERE {on}"
        )
        counts[table] = int(
            scalar(con.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT id FROM _gone)"))
        )
        con.execute(
            f"UPDATE {table} t SET superseded = false WHERE t.{key} IN "
            f"(SELECT supersedes FROM _gone) AND NOT EXISTS "
            f"(SELECT 1 FROM {table} s WHERE s.supersedes = t.{key})"
        )
    con.execute("DELETE FROM auto_scores WHERE response_id IN (SELECT row_id FROM _gone_responses)")
    counts["responses"] = int(
        scalar(
            con.execute(
                "DELETE FROM responses WHERE response_id IN (SELECT row_id FROM _gone_responses)"
            )
        )
    )
    counts["items"] = int(
        scalar(
            con.execute(
                f"DELETE FROM items WHERE item_id IN ({_dropped('items')}) "
                "AND item_id NOT IN (SELECT item_id FROM responses)",
                params,
            )
        )
    )
    con.execute("DROP TABLE IF EXISTS _gone")
    con.execute("DROP TABLE IF EXISTS _gone_responses")
    return Removed(counts["items"], counts["responses"], counts["ratings"], counts["preferences"])
