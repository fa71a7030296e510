"""What the PostgreSQL store does in PostgreSQL's own SQL, through psycopg (its one home): the
locks and claims that DuckDB's postgres extension cannot express.

- `advisory_lock(url, name)`: one process at a time in a block (the migrations), across
  machines.
- `session(url, location)`: a short READ COMMITTED transaction on one of this process's kept
  sessions, for another module's own PostgreSQL SQL (a campaign's takes and saves' row locks,
  `campaigns/takes.py`).
- `Claims`: the calls of judge runs that several `judgeboard judge` processes share. Each
  process offers the calls its plan needs (`offer`, under its own run key), then claims a few
  at a time (`claim`: `FOR UPDATE SKIP LOCKED`, so two processes asking at once get different
  calls), makes them, stores them, and marks them done (`finish`). A call is claimed by key,
  whatever the run that offered it, so runs on overlapping plans share too. A live process
  renews its claims (`renew`); a claim whose process stopped (killed, its machine lost) is
  free again once its lease ran out, unless its call is already stored ok.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from dashboard.settings import libpq_dsn
from dashboard.store.errors import ServerUnreachable

# A claim not renewed for this long is free again: its process stopped. A live process renews
# its claims every third of it. `JUDGEBOARD_CLAIM_LEASE_S` changes it (the tests use seconds).
LEASE_ENV = "JUDGEBOARD_CLAIM_LEASE_S"
LEASE_S = 600.0
# Claims done (and offers) older than this are forgotten when a run offers its calls.
FORGET_AFTER = "7 days"

_DDL = (
    """CREATE TABLE IF NOT EXISTS call_claims (
        call_key    TEXT PRIMARY KEY,
        owner       TEXT,
        claimed_utc TIMESTAMP,
        done        BOOLEAN NOT NULL DEFAULT false)""",
    """CREATE TABLE IF NOT EXISTS call_offers (
        run_key     TEXT NOT NULL,
        call_key    TEXT NOT NULL,
        offered_utc TIMESTAMP NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
        PRIMARY KEY (run_key, call_key))""",
)
# The tables of this module: bookkeeping of runs, not data (`judgeboard copy` leaves them).
TABLES = ("call_claims", "call_offers", "judge_claims")
_NOW = "(now() AT TIME ZONE 'UTC')"
# Nobody holds it, or its holder's lease ran out.
_FREE = f"(c.owner IS NULL OR c.claimed_utc < {_NOW} - make_interval(secs => %(lease)s))"
# A claim is one judge's call: two judges of a panel with the same model and sampling ask the
# same prompt under one cache key, and each makes its own call (as a one-process run does).
_SEP = ":"
_STORED_OK = (
    "EXISTS (SELECT 1 FROM judge_calls j"
    f" WHERE j.cache_key = split_part(c.call_key, '{_SEP}', 1)"
    f" AND j.judge = substr(c.call_key, strpos(c.call_key, '{_SEP}') + 1) AND j.status = 'ok')"
)


def call_key(cache_key: str, judge: str) -> str:
    """The key of one judge's call in `call_claims`: the call's cache key (hex) and the judge."""
    return f"{cache_key}{_SEP}{judge}"


def lease_s() -> float:
    """The lease of a claim, in seconds (`JUDGEBOARD_CLAIM_LEASE_S`, else 10 minutes)."""
    found = os.environ.get(LEASE_ENV, "").strip()
    try:
        return float(found) if found and float(found) > 0 else LEASE_S
    except ValueError:
        raise SystemExit(f"{LEASE_ENV} must be a number of seconds, not {found!r}") from None


def lock_key(name: str) -> int:
    """A stable 63-bit advisory lock key for a name (`accounts.py` takes its locks by it)."""
    return _key(name)


def _key(name: str) -> int:
    """A stable 63-bit advisory lock key for a name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 1


# Idle sessions kept for the advisory locks and `session`, by URL: a campaign's take and save
# each use one, and a new PostgreSQL session each time costs a connection's start (a process
# and its auth).
_IDLE_LOCK_SESSIONS = 8
_idle: dict[str, list[psycopg.Connection[Any]]] = {}
_idle_guard = threading.Lock()


def _kept_session(url: str) -> psycopg.Connection[Any] | None:
    with _idle_guard:
        kept = _idle.get(url, [])
        while kept:
            con = kept.pop()
            if not con.closed:
                return con
    return None


def _put_back(url: str, con: psycopg.Connection[Any], keep: bool) -> None:
    with _idle_guard:
        kept = _idle.setdefault(url, [])
        if keep and not con.closed and len(kept) < _IDLE_LOCK_SESSIONS:
            kept.append(con)
            return
    con.close()


def close_idle(url: str) -> None:
    """Close the sessions kept idle for `url`'s advisory locks (the store is closed: an open
    session would keep its database in use, say from being copied as a template)."""
    with _idle_guard:
        kept = _idle.pop(url, [])
    for con in kept:
        con.close()


@contextmanager
def advisory_lock(url: str, name: str, *, keep: bool = False) -> Iterator[None]:
    """Hold PostgreSQL's session advisory lock `name` for the block (waiting for it). Each
    block has its own session while it holds it, so two threads of one process exclude each
    other too. With `keep` (a lock taken often: a campaign's, on every save) the session is
    kept idle afterwards for the next block of this process, until the store closes
    (`close_idle`). A session whose unlock did not complete is closed, never kept: closing it
    releases its locks."""
    key = _key("judgeboard:" + name)
    con = _kept_session(url)
    if con is not None:
        try:
            con.execute("SELECT pg_advisory_lock(%s)", [key])
        except psycopg.OperationalError:  # the kept session was lost (a server restart)
            con.close()
            con = None
        except BaseException:
            con.close()
            raise
    if con is None:
        con = psycopg.connect(libpq_dsn(url), autocommit=True)
        try:
            con.execute("SELECT pg_advisory_lock(%s)", [key])
        except BaseException:
            con.close()
            raise
    try:
        yield
    finally:
        try:
            con.execute("SELECT pg_advisory_unlock(%s)", [key])
        except BaseException:
            con.close()
            raise
        _put_back(url, con, keep)


class Session:
    """One PostgreSQL session in a transaction of its own (`session`)."""

    def __init__(self, con: psycopg.Connection[Any]) -> None:
        self._con = con

    def execute(self, sql: str, params: Mapping[str, Any] | Sequence[Any] = ()) -> Any:
        """Run PostgreSQL's SQL (`%(name)s` parameters); the cursor, for `rows.fetch`."""
        return self._con.execute(sql, params)


@contextmanager
def session(url: str, location: str) -> Iterator[Session]:
    """A READ COMMITTED transaction (whatever the server's default: each statement sees what
    was committed before it began) on a kept session of this process, committed at the end
    of the block and rolled back on an exception. A lost server is `ServerUnreachable`; an
    error of the SQL (a deadlock too) is psycopg's own."""
    con = _begun(url, location)
    try:
        yield Session(con)
        con.execute("COMMIT")
    except BaseException as error:
        try:
            con.execute("ROLLBACK")
        except psycopg.Error:
            con.close()  # closing a session ends its transaction and its locks
        if isinstance(error, psycopg.OperationalError) and con.broken:
            raise _unreachable(location, error) from error
        raise
    finally:
        idle = con.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        _put_back(url, con, idle)


def _begun(url: str, location: str) -> psycopg.Connection[Any]:
    """A session of `url` in a new READ COMMITTED transaction: a kept one, else a new one (a
    kept session may have been lost, say by a server restart)."""
    con = _kept_session(url)
    if con is not None:
        try:
            con.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            return con
        except psycopg.OperationalError:
            con.close()
    try:
        con = psycopg.connect(libpq_dsn(url), autocommit=True)
    except psycopg.OperationalError as error:
        raise _unreachable(location, error) from error
    try:
        con.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
    except BaseException as error:
        con.close()
        if isinstance(error, psycopg.OperationalError):
            raise _unreachable(location, error) from error
        raise
    return con


def _unreachable(location: str, error: psycopg.OperationalError) -> ServerUnreachable:
    reason = (str(error).strip().splitlines() or ["no reason given"])[0]
    return ServerUnreachable(location, reason.rstrip("."))


class Claims:
    """One process's claims on a PostgreSQL store, over one connection (thread-safe)."""

    def __init__(self, url: str, owner: str, *, location: str, lease: float | None = None) -> None:
        self.url, self.owner, self.location = url, owner, location
        self.lease_s = lease_s() if lease is None else lease
        self._lock = threading.Lock()
        self._con: psycopg.Connection[Any] | None = None

    @contextmanager
    def _cursor(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor in a transaction of its own, on this process's connection."""
        with self._lock:
            try:
                if self._con is None or self._con.closed:
                    self._con = psycopg.connect(libpq_dsn(self.url), autocommit=True)
                with self._con.transaction(), self._con.cursor() as cur:
                    yield cur
            except psycopg.OperationalError as error:
                raise _unreachable(self.location, error) from error

    def _run(self, sql: str, params: dict[str, Any]) -> list[Any]:
        """One statement in its own transaction; the rows it returns."""
        with self._cursor() as cur:
            cur.execute(sql, {"owner": self.owner, "lease": self.lease_s, **params})
            return cur.fetchall() if cur.description else []

    def offer(self, run_key: str, call_keys: Sequence[str]) -> None:
        """Put a run's calls up for claiming. A call done earlier but not stored ok (it failed,
        or its result was lost) is free again: this run makes it."""
        keys = sorted(set(call_keys))
        with self._cursor() as cur:
            # Two processes creating the tables at once would collide in the catalog.
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [_key("judgeboard:claims")])
            for ddl in _DDL:
                cur.execute(ddl)
            old = f"{_NOW} - '{FORGET_AFTER}'::interval"
            cur.execute(f"DELETE FROM call_offers WHERE offered_utc < {old}")
            cur.execute(f"DELETE FROM call_claims WHERE done AND claimed_utc < {old}")
        with self._cursor() as cur:
            cur.executemany(
                "INSERT INTO call_offers (run_key, call_key) VALUES (%s, %s) "
                "ON CONFLICT DO NOTHING",
                [(run_key, key) for key in keys],
            )
            cur.executemany(
                "INSERT INTO call_claims (call_key) VALUES (%s) ON CONFLICT DO NOTHING",
                [(key,) for key in keys],
            )
            cur.execute(
                f"""UPDATE call_claims c SET done = false, owner = NULL, claimed_utc = NULL
                FROM call_offers o
                WHERE o.run_key = %s AND o.call_key = c.call_key AND c.done
                  AND NOT {_STORED_OK}""",
                [run_key],
            )

    def claim(self, run_key: str, limit: int) -> list[str]:
        """Up to `limit` calls of the run that nobody holds (or whose holder's lease ran out
        and whose call is not stored ok), now held by this process."""
        # A lapsed claim whose call is stored (its holder stored it, then stopped) is done.
        self._run(
            f"""UPDATE call_claims c SET done = true FROM call_offers o
            WHERE o.run_key = %(run)s AND o.call_key = c.call_key AND NOT c.done
              AND c.owner IS NOT NULL AND {_FREE} AND {_STORED_OK}""",
            {"run": run_key},
        )
        rows = self._run(
            f"""UPDATE call_claims c SET owner = %(owner)s, claimed_utc = {_NOW}
            FROM (
                SELECT c.call_key FROM call_claims c
                JOIN call_offers o ON o.call_key = c.call_key AND o.run_key = %(run)s
                WHERE NOT c.done AND {_FREE}
                ORDER BY c.call_key
                LIMIT %(limit)s
                FOR UPDATE OF c SKIP LOCKED
            ) free
            WHERE c.call_key = free.call_key
            RETURNING c.call_key""",
            {"run": run_key, "limit": limit},
        )
        return sorted(row[0] for row in rows)

    def held_by_others(self, run_key: str) -> int:
        """The run's calls that other processes hold and have not finished: this process
        waits for them (they finish, or their lease runs out and it claims them)."""
        rows = self._run(
            """SELECT count(*) FROM call_claims c
            JOIN call_offers o ON o.call_key = c.call_key AND o.run_key = %(run)s
            WHERE NOT c.done AND c.owner IS NOT NULL AND c.owner <> %(owner)s""",
            {"run": run_key},
        )
        return int(rows[0][0])

    def renew(self) -> None:
        """This process is alive: its unfinished claims start a new lease."""
        self._run(
            f"UPDATE call_claims SET claimed_utc = {_NOW} WHERE owner = %(owner)s AND NOT done", {}
        )

    def finish(self, call_keys: Sequence[str]) -> None:
        """Mark this process's calls done (their results are stored): nobody makes them again
        in this run."""
        if call_keys:
            self._run(
                f"UPDATE call_claims SET done = true, claimed_utc = {_NOW} "
                "WHERE call_key = ANY(%(keys)s) AND owner = %(owner)s",
                {"keys": list(call_keys)},
            )

    def release(self, call_keys: Sequence[str]) -> None:
        """Give back calls this process claimed and will not make (a cancel, a fault)."""
        if call_keys:
            self._run(
                "UPDATE call_claims SET owner = NULL, claimed_utc = NULL "
                "WHERE call_key = ANY(%(keys)s) AND owner = %(owner)s AND NOT done",
                {"keys": list(call_keys)},
            )

    def close(self, run_keys: Sequence[str] = ()) -> None:
        """Forget the runs' offers (their calls stay claimed or done) and disconnect."""
        if run_keys:
            self._run(
                "DELETE FROM call_offers WHERE run_key = ANY(%(runs)s)", {"runs": list(run_keys)}
            )
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
