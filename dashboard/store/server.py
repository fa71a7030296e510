"""The store on a PostgreSQL server, through DuckDB's own postgres extension.

`--db postgresql://USER@HOST:PORT/DB` (or `JUDGEBOARD_DB`) makes a PostgreSQL database the store.
The tables live in PostgreSQL; every query is still DuckDB SQL, run by an in-memory DuckDB of
this process that has the database attached (`ATTACH '…' AS pg (TYPE postgres)`), so the
metrics, the imports and the pages run the same SQL on both stores. Many processes, on one
machine or several, write at once with PostgreSQL's own transactions: there is no file lock, no
journal and no waiting note on this store.

What the extension cannot send to PostgreSQL is done here, once:
- Views. A view created in an attached PostgreSQL database is sent as PostgreSQL SQL, which
  DuckDB's views are not. The views live in this process's in-memory catalog instead, over the
  attached tables; their definitions are kept in the table `_duckdb_views`, written by the
  migrations, and created again by every process that attaches the database.
- `ALTER TABLE` beyond adding and dropping columns, and types in `ADD COLUMN`, are sent as
  PostgreSQL SQL (`postgres_execute`).
- Two processes migrating one database at once: the migration holds a PostgreSQL advisory
  lock (through psycopg, `claims.py`'s library), so it runs once.

DuckDB's postgres extension comes from the wheel `duckdb-extension-postgres`, which matches
exactly this DuckDB (1.5.5); its file is named `postgres.duckdb_extension` but the extension's
own name is `postgres_scanner`, under which DuckDB must load it (a link by that name, made once
in a cache folder).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import duckdb

from dashboard.settings import libpq_dsn
from dashboard.store import migrations
from dashboard.store.changes import LARGE_TABLE_COLUMNS
from dashboard.store.errors import (
    NewerSchema,
    NotADatabase,
    ServerUnreachable,
    StoreError,
    WriteConflict,
)
from dashboard.store.keys import ALIAS, NUL_REPLACEMENT
from dashboard.store.reads import FINGERPRINT_SHARED, POSTGRES_TEXTS, Fingerprint
from dashboard.store.rows import fetch

log = logging.getLogger(__name__)

# The unqualified names of the SQL: the server's tables (where new tables go too), then our
# views (in this process's memory).
SEARCH_PATH = f"{ALIAS}.public,memory.main"
_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False}
_VIEW_DDL = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(\w+)", re.IGNORECASE)
_ALTER = re.compile(r"^\s*ALTER\s+TABLE\b", re.IGNORECASE)
# DuckDB's type names that PostgreSQL spells otherwise (in raw ALTER TABLE statements).
_PG_TYPES = ((re.compile(r"\bDOUBLE\b(?!\s+PRECISION)", re.IGNORECASE), "DOUBLE PRECISION"),)
_UNREACHABLE = re.compile(
    r"Connection refused|could not connect|could not translate host name|"
    r"password authentication failed|database \"[^\"]+\" does not exist|no pg_hba.conf entry|"
    r"role \"[^\"]+\" does not exist|server closed the connection",
    re.IGNORECASE,
)


def redact(url: str) -> str:
    """The URL without its password, for every message and page."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}@{host}" if parts.username else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def extension_path() -> Path:
    """The postgres extension, linked under the name DuckDB loads it by."""
    try:
        import duckdb_extension_postgres  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - a dependency of the package
        raise StoreError(
            "the PostgreSQL store needs the package duckdb-extension-postgres "
            f"(== DuckDB {duckdb.__version__}); reinstall judgeboard"
        ) from error
    shipped = (
        Path(duckdb_extension_postgres.__file__).parent
        / "extensions"
        / f"v{duckdb.__version__}"
        / "postgres.duckdb_extension"
    )
    if not shipped.is_file():
        raise StoreError(
            f"the installed duckdb-extension-postgres has no build for DuckDB {duckdb.__version__}"
            f" ({shipped} is missing); install duckdb-extension-postgres=={duckdb.__version__}"
        )
    digest = hashlib.sha256(str(shipped).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"judgeboard-{os.getuid()}" / f"duckdb-ext-{digest}"
    link = folder / "postgres_scanner.duckdb_extension"
    if not link.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = folder / f".{os.getpid()}-{threading.get_ident()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(shipped)
        os.replace(tmp, link)
    return link


class _Migrating:
    """The connection the migrations see on a server: views are kept in `_duckdb_views` (and
    created in memory by every process), ALTER TABLE goes to PostgreSQL as its own SQL."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._position = 0

    def execute(self, sql: str, parameters: Any = None) -> Any:
        view = _VIEW_DDL.match(sql)
        if view is not None:
            self._position += 1
            self._con.execute(f"DELETE FROM {ALIAS}.public._duckdb_views WHERE name = ?", [view[1]])
            self._con.execute(
                f"INSERT INTO {ALIAS}.public._duckdb_views VALUES (?, "
                f"(SELECT coalesce(max(position), 0) + 1 FROM {ALIAS}.public._duckdb_views), ?)",
                [view[1], sql],
            )
            return self._con
        if _ALTER.match(sql):
            if parameters:
                raise ValueError("an ALTER TABLE of a migration binds no parameters")
            for pattern, spelled in _PG_TYPES:
                sql = pattern.sub(spelled, sql)
            self.postgres_execute(sql)
            return self._con
        return self._con.execute(sql, parameters)

    def postgres_execute(self, sql: str) -> None:
        """PostgreSQL's own SQL (a migration's triggers, an ALTER TABLE), sent as it is."""
        self._con.execute("CALL postgres_execute(?, ?)", [ALIAS, sql])
        self._con.execute("CALL pg_clear_cache()")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


class ServerDatabase:
    """A PostgreSQL database, attached to one in-memory DuckDB per process; each unit of work
    gets its own DuckDB connection (a cursor) with PostgreSQL's transactions."""

    server = True

    def __init__(self, url: str, *, wait_s: float = 30.0, memory_limit: str | None = None) -> None:
        self.url = url
        self.location = redact(url)
        # Messages name `location`; the path is the folder of this machine's files of the
        # store (a judge run's journal of paid calls), private to this user.
        digest = hashlib.sha256(self.location.encode()).hexdigest()[:16]
        self.path = Path(tempfile.gettempdir()) / f"judgeboard-{os.getuid()}" / digest / "store"
        self.wait_s = wait_s
        self.memory_limit = memory_limit or os.environ.get("JUDGEBOARD_MEMORY_LIMIT", "3GB")
        self.read_only = False
        self._instance: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _fault(self, error: BaseException) -> StoreError | None:
        text = str(error)
        if _UNREACHABLE.search(text):
            return ServerUnreachable(self.location, _reason(text))
        if re.search(r"could not serialize access|deadlock detected", text, re.IGNORECASE):
            return WriteConflict(self.location)
        return None

    def _attach(self) -> duckdb.DuckDBPyConnection:
        """This process's DuckDB with the server attached, migrated and its views created."""
        with self._lock:
            if self._instance is not None and self._pid == os.getpid():
                return self._instance
            instance = duckdb.connect(":memory:", config=_CONFIG)
            try:
                instance.execute(f"LOAD '{extension_path()}'")
                # PostgreSQL's text cannot hold a NUL character (DuckDB's can): it is stored
                # as U+FFFD, the replacement character, rather than refusing the whole import.
                instance.execute("SET GLOBAL pg_null_byte_replacement = ?", [NUL_REPLACEMENT])
                # DuckDB draws a progress bar on stdout for a query over 2 s (a metrics query
                # through the extension can be): it would corrupt `metrics --json`.
                instance.execute("SET enable_progress_bar = false")
                dsn = libpq_dsn(self.url).replace("'", "''")
                instance.execute(f"ATTACH '{dsn}' AS {ALIAS} (TYPE postgres)")
            except duckdb.Error as error:
                instance.close()
                raise self._fault(error) or _engine_fault(self.location, error) from error
            try:
                self._migrate(instance)
                self._create_views(instance)
            except BaseException as error:
                instance.close()
                fault = self._fault(error) if isinstance(error, duckdb.Error) else None
                if fault is None:
                    raise
                raise fault from error
            self._instance, self._pid = instance, os.getpid()
            return instance

    def _migrate(self, instance: duckdb.DuckDBPyConnection) -> None:
        from dashboard.store.claims import advisory_lock

        con = instance.cursor()
        try:
            con.execute(f"USE {ALIAS}")
            state = migrations.schema_state(con)
            foreign = [t for t in state.foreign_tables if t != "_duckdb_views"]
            if foreign and not state.applied:
                raise NotADatabase(
                    self.location,
                    f"holds the tables {', '.join(foreign[:5])} and no _migrations: it is not "
                    "judgeboard's database, so judgeboard leaves it alone (name an empty "
                    "database, or create one: createdb NAME)",
                )
            if state.unknown:
                raise NewerSchema(
                    self.location, found=max(state.unknown), known=len(migrations.MIGRATIONS)
                )
            if not state.pending:
                return
            with advisory_lock(self.url, "migrate"):
                con.execute(
                    "CREATE TABLE IF NOT EXISTS _duckdb_views "
                    "(name VARCHAR PRIMARY KEY, position INTEGER NOT NULL, sql VARCHAR NOT NULL)"
                )
                migrations.migrate(_Migrating(con))
        finally:
            con.close()

    @staticmethod
    def _create_views(instance: duckdb.DuckDBPyConnection) -> None:
        con = instance.cursor()
        try:
            rows = con.execute(
                f"SELECT name, sql FROM {ALIAS}.public._duckdb_views ORDER BY position"
            ).fetchall()
            con.execute("USE memory")
            con.execute(f"SET search_path = 'memory.main,{ALIAS}.public'")
            for _name, sql in rows:
                con.execute(_VIEW_DDL.sub(lambda m: f"CREATE OR REPLACE VIEW {m[1]}", sql, 1))
        finally:
            con.close()

    @contextmanager
    def connect(self, *, wait_s: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection for one unit of work."""
        del wait_s  # PostgreSQL's own locks wait; there is no file to wait for
        instance = self._attach()
        con = instance.cursor()
        try:
            with self._faults():
                con.execute(f"USE {ALIAS}")
                con.execute(f"SET search_path = '{SEARCH_PATH}'")
                con.execute("SET memory_limit = ?", [self.memory_limit])
                yield con
        finally:
            con.close()

    @contextmanager
    def sharing(self, con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
        """`con`, a connection this thread holds open (`Store.kept_open`), for another unit
        of work: no new cursor to set up (its USE and search path cost 2-10 ms of CPU each
        time, more with many sessions); a fault inside the block as `connect` gives it."""
        with self._faults():
            yield con

    @contextmanager
    def _faults(self) -> Iterator[None]:
        try:
            yield
        except duckdb.Error as error:
            fault = self._fault(error)
            if fault is None:
                raise
            raise fault from error

    def close(self) -> None:
        from dashboard.store.claims import close_idle

        with self._lock:
            if self._instance is not None:
                self._instance.close()
                self._instance = None
        close_idle(self.url)


# The fingerprint's query, run by PostgreSQL: change counts of the large tables, the rest as on
# a file.
FINGERPRINT_SQL = LARGE_TABLE_COLUMNS + FINGERPRINT_SHARED


def fingerprint(con: duckdb.DuckDBPyConnection) -> Fingerprint:
    """The store's fingerprint (`reads.fingerprint`), computed by PostgreSQL itself (counting
    rows through the extension would copy every table into DuckDB), from the large tables'
    change counts (`changes.py`) rather than their rows."""
    sql = FINGERPRINT_SQL.format(texts=POSTGRES_TEXTS)
    cursor = con.execute(f"SELECT * FROM postgres_query('{ALIAS}', ?)", [sql])
    (found,) = fetch(cursor, Fingerprint)
    return found


_PASSWORD = re.compile(r"(://[^:/@\s\"']+):[^@\s\"']*@")


def _reason(text: str) -> str:
    text = _PASSWORD.sub(r"\1@", text)  # never a password in a message
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if _UNREACHABLE.search(line):
            return re.sub(r"^.*?(?:FATAL|ERROR):\s*", "", line).rstrip(".")
    return lines[0] if lines else text


def _engine_fault(location: str, error: BaseException) -> StoreError:
    return ServerUnreachable(location, _reason(str(error)))
