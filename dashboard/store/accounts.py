"""The sign-in accounts of a PostgreSQL store, in its own tables (migration m025_accounts).

`dashboard.auth.users` and `dashboard.auth.throttle` keep their logic (the hashing, the roles,
the signed tokens, their revocation, the throttle's counts) and read or edit one document: on
a DuckDB store the users file, here `StoredUsers`. The document is built from the tables and
an edit writes back only what changed, in one PostgreSQL transaction under an advisory lock
(the file's `flock`), so every replica on every machine sees one set of accounts, and two
edits at once (two sign-outs on two replicas) each see the other's result.

- `accounts`: a row per user (name, role, scrypt salt, hash and parameters).
- `account_secret`: one row, the key that signs the sign-in tokens; written by the first edit
  (as the file is created by its first edit): until then there is no sign-in.
- `revoked_tokens`: the digest of each signed-out token until it would have expired.
- `sign_in_failures`: the throttle's counts per name and per client (`dashboard.auth.throttle`).

`judgeboard copy` leaves these tables out: accounts belong to a deployment, not to its data.
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg

from dashboard.auth.users import UsersError
from dashboard.settings import libpq_dsn
from dashboard.store.claims import lock_key
from dashboard.store.server import redact

_KINDS = ("names", "clients")


class StoredUsers:
    """The accounts of the PostgreSQL store at `url`, where `dashboard.auth.users` would
    otherwise read a users file."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __str__(self) -> str:
        return f"the accounts of {redact(self.url)}"

    def __repr__(self) -> str:
        return f"StoredUsers({redact(self.url)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoredUsers) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    def exists(self) -> bool:
        """True once an account was ever added (the secret is written): sign-in is on."""
        return bool(self._run(lambda cur: cur.execute("SELECT 1 FROM account_secret").fetchall()))

    def read(self) -> dict:
        """The users document, as the file holds it (a fresh secret when there is none)."""
        return self._run(_read_users)

    @contextmanager
    def editing(self) -> Iterator[dict]:
        """The document, written back (what changed) when the block ends without raising."""
        with self._locked("accounts") as cur:
            data = _read_users(cur)
            before = _copy(data)
            yield data
            _write_users(cur, before, data)

    def read_failures(self) -> dict:
        return self._run(_read_failures)

    @contextmanager
    def failures(self) -> Iterator[dict]:
        """The throttle's counts; written back when changed, even when the block raises (a
        refusal keeps the count it made)."""
        refused: Exception | None = None
        with self._locked("sign-in failures") as cur:
            counts = _read_failures(cur)
            before = _copy(counts)
            try:
                yield counts
            except Exception as error:  # noqa: BLE001 - written all the same, then raised again
                refused = error
            _write_failures(cur, before, counts)
        if refused is not None:
            raise refused

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(libpq_dsn(self.url))
        except psycopg.Error as error:
            raise UsersError(f"cannot reach {self}: {error}".strip()) from error

    def _run(self, read: Callable[[psycopg.Cursor[Any]], Any]) -> Any:
        """A read, in one transaction on this process's kept connection (`_Kept`): every page
        run reads the accounts, and a new connection cost PostgreSQL about 4 ms of CPU (its
        backend's start) where a query on an open one costs 0.05 ms."""
        try:
            return _kept(self.url).read(read)
        except psycopg.OperationalError:  # the kept one broke (the server restarted): anew
            _forget(self.url)
        with self._opened() as cur:
            return read(cur)

    @contextmanager
    def _locked(self, name: str) -> Iterator[psycopg.Cursor[Any]]:
        """One transaction holding the advisory lock `name` (released when it ends)."""
        with self._opened() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [lock_key("judgeboard:" + name)])
            yield cur

    @contextmanager
    def _opened(self) -> Iterator[psycopg.Cursor[Any]]:
        """A transaction on the store, which commits when the block ends (rolls back when it
        raises). A database not yet migrated to m025 (`judgeboard users add` before anything
        else opened it) is migrated first, as opening the store does."""
        for attempt in (1, 2):
            with self._connect() as con, con.cursor() as cur:
                found = cur.execute("SELECT to_regclass('public.account_secret')").fetchone()
                if (found is not None and found[0] is not None) or attempt == 2:
                    yield cur
                    return
            _migrate(self.url)


class _Kept:
    """One open connection of this process to the store, for the accounts' reads; a lock
    makes the page runs of several sessions (threads) take turns on it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.con: psycopg.Connection[Any] | None = None

    def read(self, read: Callable[[psycopg.Cursor[Any]], Any]) -> Any:
        with self.lock:
            if self.con is None or self.con.closed:
                self.con = _open(self.url)
            with self.con.transaction(), self.con.cursor() as cur:
                return read(cur)

    def close(self) -> None:
        with self.lock:
            if self.con is not None:
                self.con.close()
                self.con = None


# The stores whose accounts this process read last, each with its connection: a dashboard has
# one; a process that goes through many databases (a test run) keeps at most `_KEPT_MAX` open.
_KEPT: OrderedDict[str, _Kept] = OrderedDict()
_KEPT_LOCK = threading.Lock()
_KEPT_MAX = 4


def _kept(url: str) -> _Kept:
    dropped: list[_Kept] = []
    with _KEPT_LOCK:
        found = _KEPT.get(url)
        if found is None or found.pid != os.getpid():  # a forked child opens its own
            found = _KEPT[url] = _Kept(url)
        _KEPT.move_to_end(url)
        while len(_KEPT) > _KEPT_MAX:
            dropped.append(_KEPT.popitem(last=False)[1])
    for old in dropped:
        _close_quietly(old)
    return found


def _close_quietly(kept: _Kept) -> None:
    with suppress(psycopg.Error):
        kept.close()


def _forget(url: str) -> None:
    with _KEPT_LOCK:
        found = _KEPT.pop(url, None)
    if found is not None:
        _close_quietly(found)


def _open(url: str) -> psycopg.Connection[Any]:
    """A connection to a store migrated to m025 (a database not yet migrated, as
    `StoredUsers._opened` does, is migrated first)."""
    con = psycopg.connect(libpq_dsn(url))
    try:
        found = con.execute("SELECT to_regclass('public.account_secret')").fetchone()
        con.commit()
        if found is None or found[0] is None:
            _migrate(url)
    except BaseException:
        con.close()
        raise
    return con


def _migrate(url: str) -> None:
    from dashboard.store import Store  # the store's package imports this module's callers

    store = Store(url)
    try:
        store.list_datasets()  # opening the store migrates it
    finally:
        store.close()


def _copy(data: dict) -> dict:
    """The document as it was read, to write back only what the edit changed."""
    return copy.deepcopy(data)


def _read_users(cur: psycopg.Cursor[Any]) -> dict:
    import secrets

    found = cur.execute("SELECT secret FROM account_secret WHERE id = 1").fetchone()
    users = {
        name: {"role": role, "salt": salt, "hash": digest, "n": n, "r": r, "p": p}
        for name, role, salt, digest, n, r, p in cur.execute(
            "SELECT name, role, salt, hash, n, r, p FROM accounts"
        )
    }
    revoked = dict(cur.execute("SELECT digest, expires_s FROM revoked_tokens").fetchall())
    secret = found[0] if found else secrets.token_hex(32)
    return {
        "version": 1,
        "secret": secret,
        "users": users,
        "revoked": revoked,
        "stored": bool(found),
    }


def _write_users(cur: psycopg.Cursor[Any], before: dict, after: dict) -> None:
    if not before["stored"] or after["secret"] != before["secret"]:
        cur.execute(
            "INSERT INTO account_secret (id, secret) VALUES (1, %s) "
            "ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret",
            [after["secret"]],
        )
    for name in before["users"].keys() - after["users"].keys():
        cur.execute("DELETE FROM accounts WHERE name = %s", [name])
    for name, entry in after["users"].items():
        if before["users"].get(name) != entry:
            cur.execute(
                "INSERT INTO accounts (name, role, salt, hash, n, r, p) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
                "role = EXCLUDED.role, salt = EXCLUDED.salt, hash = EXCLUDED.hash, "
                "n = EXCLUDED.n, r = EXCLUDED.r, p = EXCLUDED.p",
                [
                    name,
                    entry["role"],
                    entry["salt"],
                    entry["hash"],
                    *(int(entry[k]) for k in "nrp"),
                ],
            )
    revoked_before, revoked_after = before["revoked"], after.get("revoked", {})
    for digest in revoked_before.keys() - revoked_after.keys():
        cur.execute("DELETE FROM revoked_tokens WHERE digest = %s", [digest])
    for digest in revoked_after.keys() - revoked_before.keys():
        cur.execute(
            "INSERT INTO revoked_tokens (digest, expires_s) VALUES (%s, %s) "
            "ON CONFLICT (digest) DO NOTHING",
            [digest, int(revoked_after[digest])],
        )


def _read_failures(cur: psycopg.Cursor[Any]) -> dict:
    counts: dict[str, dict[str, dict]] = {kind: {} for kind in _KINDS}
    rows = cur.execute("SELECT kind, key, failures, last_s, locked FROM sign_in_failures")
    for kind, key, failures, last_s, locked in rows:
        if kind in counts:
            counts[kind][key] = {
                "failures": failures,
                "last": last_s,
                **({"locked": True} if locked else {}),
            }
    return counts


def _write_failures(cur: psycopg.Cursor[Any], before: dict, after: dict) -> None:
    for kind in _KINDS:
        old, new = before.get(kind, {}), after.get(kind, {})
        for key in old.keys() - new.keys():
            cur.execute("DELETE FROM sign_in_failures WHERE kind = %s AND key = %s", [kind, key])
        for key, entry in new.items():
            if old.get(key) == entry:
                continue
            cur.execute(
                "INSERT INTO sign_in_failures (kind, key, failures, last_s, locked) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (kind, key) DO UPDATE SET "
                "failures = EXCLUDED.failures, last_s = EXCLUDED.last_s, locked = EXCLUDED.locked",
                [kind, key, int(entry.get("failures", 0)), float(entry.get("last", 0.0)),
                 bool(entry.get("locked"))],
            )  # fmt: skip
