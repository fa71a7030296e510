"""What the PostgreSQL store does in PostgreSQL's own SQL, through psycopg (its one home): the
locks and claims that DuckDB's postgres extension cannot express.

- `advisory_lock(url, name)`: one process at a time in a block (the migrations), across
  machines.
- `claim(url, run, keys, owner)`: each of several `judgeboard judge` processes claims the calls
  of a shared run that nobody holds (`FOR UPDATE SKIP LOCKED` on the run's plan), so that no
  call is made twice; a claim whose owner stopped without finishing expires after its lease.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psycopg

from dashboard.settings import libpq_dsn

# A claim older than this is free again: its process stopped (killed, its machine lost).
LEASE_S = 600.0

_CLAIMS_DDL = """
CREATE TABLE IF NOT EXISTS judge_claims (
    run_key     TEXT NOT NULL,
    call_key    TEXT NOT NULL,
    owner       TEXT,
    claimed_utc TIMESTAMP,
    done        BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (run_key, call_key)
)"""


def _key(name: str) -> int:
    """A stable 63-bit advisory lock key for a name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 1


@contextmanager
def advisory_lock(url: str, name: str) -> Iterator[None]:
    """Hold PostgreSQL's session advisory lock `name` for the block (waiting for it)."""
    with psycopg.connect(libpq_dsn(url), autocommit=True) as con:
        con.execute("SELECT pg_advisory_lock(%s)", [_key("judgeboard:" + name)])
        try:
            yield
        finally:
            con.execute("SELECT pg_advisory_unlock(%s)", [_key("judgeboard:" + name)])


def offer(url: str, run_key: str, call_keys: Sequence[str]) -> None:
    """Put a run's planned calls up for claiming (each once; a call already offered stays)."""
    with psycopg.connect(libpq_dsn(url)) as con:
        con.execute(_CLAIMS_DDL)
        with con.cursor() as cur:
            cur.executemany(
                "INSERT INTO judge_claims (run_key, call_key) VALUES (%s, %s) "
                "ON CONFLICT DO NOTHING",
                [(run_key, key) for key in call_keys],
            )


def claim(url: str, run_key: str, owner: str, limit: int) -> list[str]:
    """Up to `limit` calls of the run that nobody holds (or whose holder's lease ran out),
    now held by `owner`. Two processes asking at once get different calls."""
    with psycopg.connect(libpq_dsn(url)) as con:
        rows = con.execute(
            """
            UPDATE judge_claims c SET owner = %(owner)s, claimed_utc = now() AT TIME ZONE 'UTC'
            FROM (
                SELECT run_key, call_key FROM judge_claims
                WHERE run_key = %(run)s AND NOT done
                  AND (owner IS NULL
                       OR claimed_utc < now() AT TIME ZONE 'UTC' - make_interval(secs => %(lease)s))
                ORDER BY call_key
                LIMIT %(limit)s
                FOR UPDATE SKIP LOCKED
            ) free
            WHERE c.run_key = free.run_key AND c.call_key = free.call_key
            RETURNING c.call_key""",
            {"owner": owner, "run": run_key, "lease": LEASE_S, "limit": limit},
        ).fetchall()
    return sorted(row[0] for row in rows)


def finish(url: str, run_key: str, owner: str, call_keys: Sequence[str]) -> None:
    """Mark the owner's calls done: nobody claims them again."""
    with psycopg.connect(libpq_dsn(url)) as con, con.cursor() as cur:
        cur.executemany(
            "UPDATE judge_claims SET done = true "
            "WHERE run_key = %s AND call_key = %s AND owner = %s",
            [(run_key, key, owner) for key in call_keys],
        )
