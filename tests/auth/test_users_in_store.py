"""The sign-in accounts of a PostgreSQL store live in the store (`dashboard.store.accounts`):
the `judgeboard users` command, the hashing, tokens, revocation and the throttle work on the
store's tables as on the users file, with no file anywhere; a DuckDB store keeps its file."""

from __future__ import annotations

import io
import multiprocessing as mp
import time
from pathlib import Path

import psycopg
import pytest

from dashboard.auth import location, throttle, users
from dashboard.auth.roles import RoleError
from dashboard.cli import main
from dashboard.ingest import uploads
from dashboard.store import Store
from dashboard.store.accounts import StoredUsers
from tests.support.postgres import PostgresServer
from tests.support.snapshot import table_rows

PASSWORD = "correct horse"


@pytest.fixture(autouse=True)
def _no_users_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No $JUDGEBOARD_USERS, and a current folder of this test's own (no users file there)."""
    monkeypatch.delenv(users.USERS_ENV, raising=False)
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


def _cli(url: str, *args: str, password: str | None = None, monkeypatch=None) -> int:
    if password is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    return main(["--db", url, "users", *args])


def _rows(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url) as con:
        return con.execute(sql).fetchall()


def test_the_users_command_keeps_the_accounts_in_the_store(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    accounts = location.users_of(pg_url)
    assert accounts == StoredUsers(pg_url) and not accounts.exists()
    assert _cli(pg_url, "list") == 0 and "without sign-in" in capsys.readouterr().out
    add = ("add", "ana", "--role", "admin", "--password-stdin")
    assert _cli(pg_url, *add, password=PASSWORD, monkeypatch=monkeypatch) == 0
    assert "to the accounts of postgresql://" in capsys.readouterr().out
    assert accounts.exists()  # sign-in is on for every replica
    short = ("add", "ben", "--password-stdin")
    assert _cli(pg_url, *short, password="short", monkeypatch=monkeypatch) == 2
    assert "at least 8" in capsys.readouterr().err
    assert _cli(pg_url, *short, password="battery staple", monkeypatch=monkeypatch) == 0
    capsys.readouterr()
    assert _cli(pg_url, "list") == 0
    assert capsys.readouterr().out.split() == ["ana", "admin", "ben", "labeller"]
    stored = _rows(pg_url, "SELECT name, role, salt, hash, n, r, p FROM accounts ORDER BY name")
    assert [(name, role) for name, role, *_ in stored] == [("ana", "admin"), ("ben", "labeller")]
    assert all(len(salt) == 32 and len(digest) == 128 for _, _, salt, digest, *_ in stored)
    assert {(n, r, p) for *_, n, r, p in stored} == {(2**17, 8, 1)}  # OWASP's scrypt
    assert PASSWORD not in str(stored)
    assert users.verify(accounts, "ana", PASSWORD) == users.User("ana", "admin")
    assert users.verify(accounts, "ana", "wrong password") is None
    assert users.verify(accounts, "nobody", PASSWORD) is None
    token = users.session_token(accounts, users.User("ben", "labeller"))
    # Another process, another replica: a new object on the same store knows the token.
    assert users.user_of_token(StoredUsers(pg_url), token) == users.User("ben", "labeller")
    assert users.user_of_token(accounts, token.replace("ben", "ana", 1)) is None  # forged
    passwd = ("passwd", "ben", "--password-stdin")
    assert _cli(pg_url, *passwd, password="new password!", monkeypatch=monkeypatch) == 0
    assert users.user_of_token(accounts, token) is None  # a new password ends the sessions
    assert _cli(pg_url, "role", "ben", "admin") == 0
    assert users.verify(accounts, "ben", "new password!") == users.User("ben", "admin")
    assert _cli(pg_url, "remove", "ben") == 0
    assert users.verify(accounts, "ben", "new password!") is None
    assert _cli(pg_url, "remove", "ben") == 2
    assert not list(Path.cwd().iterdir())  # no users file was written here


def test_a_revoked_token_is_refused_on_every_replica_and_only_that_one(pg_url: str) -> None:
    here, there = StoredUsers(pg_url), StoredUsers(pg_url)
    ana = users.add_user(here, "ana", PASSWORD, role="labeller")
    signed_out = users.session_token(here, ana, now=1_000.0)
    other = users.session_token(there, ana, now=1_001.0)  # the same person in another browser
    assert users.revoke_token(there, signed_out, now=2_000.0)
    assert users.user_of_token(here, signed_out, now=2_000.0) is None
    assert users.user_of_token(here, other, now=2_000.0) == ana
    assert not users.revoke_token(here, signed_out, now=2_000.0)  # nothing left to revoke
    assert not users.revoke_token(here, "ana|99999999999|forged", now=2_000.0)
    assert users.user_of_token(here, signed_out, now=2_000.0 + 15 * 86400) is None  # expired
    revoked = _rows(pg_url, "SELECT digest, expires_s FROM revoked_tokens")
    assert len(revoked) == 1 and signed_out not in str(revoked)  # a digest, never the token
    assert revoked[0][1] == int(signed_out.split("|")[1])
    # Once the first token would have expired, its digest is dropped at the next revocation.
    assert users.revoke_token(here, other, now=1_000.0 + 14 * 86400 + 0.5)
    assert [d for d, _ in _rows(pg_url, "SELECT digest, expires_s FROM revoked_tokens")] == [
        users._digest(other)
    ]


def _revoke_all(url: str, tokens: list[str], start: float) -> None:
    while time.time() < start:  # every process begins at the same moment
        time.sleep(0.001)
    for token in tokens:
        assert users.revoke_token(StoredUsers(url), token)


def test_sign_outs_at_the_same_moment_on_four_processes_each_keep_their_revocation(
    pg_url: str,
) -> None:
    accounts = StoredUsers(pg_url)
    ana = users.add_user(accounts, "ana", PASSWORD, role="labeller")
    tokens = [
        [users.session_token(accounts, ana, now=time.time() + i + 10 * p) for i in range(5)]
        for p in range(4)
    ]
    start = time.time() + 3.0
    spawn = mp.get_context("spawn")
    workers = [spawn.Process(target=_revoke_all, args=(pg_url, t, start)) for t in tokens]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert all(users.user_of_token(accounts, t) is None for group in tokens for t in group)
    assert _rows(pg_url, "SELECT count(*) FROM revoked_tokens") == [(20,)]


def test_the_throttle_counts_in_the_store_and_an_admin_unlocks(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(throttle, "LOCK_NAME_AFTER", 5)  # each failure costs one scrypt
    accounts = location.users_of(pg_url)
    users.add_user(accounts, "ana", PASSWORD, role="admin")
    now = 1_000_000.0
    for _ in range(throttle.FREE_FAILURES):
        with pytest.raises(throttle.SignInRefused, match="Wrong name or password"):
            throttle.sign_in(accounts, "ana", "wrong password", client="10.0.0.1", now=now)
    # Another replica, the right password, at once: refused without a check (the wait).
    with pytest.raises(throttle.SignInRefused, match="wait 1 s"):
        throttle.sign_in(StoredUsers(pg_url), "ana", PASSWORD, client="10.0.0.2", now=now)
    for _ in range(throttle.LOCK_NAME_AFTER - throttle.FREE_FAILURES):
        now += 10_000
        with pytest.raises(throttle.SignInRefused, match="Wrong name or password"):
            throttle.sign_in(accounts, "ana", "wrong password", client="10.0.0.3", now=now)
    with pytest.raises(throttle.SignInRefused, match="locked"):
        throttle.sign_in(accounts, "ana", PASSWORD, client="10.0.0.4", now=now + 10**6)
    assert throttle.locks(StoredUsers(pg_url)) == [throttle.Lock("name", "ana", 5)]
    assert _rows(pg_url, "SELECT failures, locked FROM sign_in_failures WHERE key = 'ana'") == [
        (5, True)
    ]
    assert _cli(pg_url, "list") == 0
    assert "locked name 'ana' after 5 failed sign-ins" in capsys.readouterr().out
    assert _cli(pg_url, "unlock", "ana") == 0
    user = throttle.sign_in(accounts, "ana", PASSWORD, client="10.0.0.4", now=now + 10**6)
    assert user == users.User("ana", "admin") and throttle.locks(accounts) == []
    assert _rows(pg_url, "SELECT kind, key FROM sign_in_failures WHERE key = 'ana'") == []


def test_an_old_hash_in_the_store_is_rehashed_at_sign_in(pg_url: str) -> None:
    import hashlib
    import os

    accounts = StoredUsers(pg_url)
    users.add_user(accounts, "ana", PASSWORD, role="admin")
    salt = os.urandom(16)
    old = hashlib.scrypt(PASSWORD.encode(), salt=salt, n=2**14, r=8, p=1).hex()
    with psycopg.connect(pg_url) as con:  # as judgeboard hashed until n = 2^17
        con.execute(
            "INSERT INTO accounts VALUES ('ben', 'labeller', %s, %s, %s, 8, 1)",
            [salt.hex(), old, 2**14],
        )
    assert users.verify(accounts, "ben", "wrong password") is None
    assert _rows(pg_url, "SELECT n FROM accounts WHERE name = 'ben'") == [(2**14,)]
    assert users.verify(accounts, "ben", PASSWORD) == users.User("ben", "labeller")
    assert _rows(pg_url, "SELECT n, hash <> %s FROM accounts WHERE name = 'ben'".replace(
        "%s", f"'{old}'"
    )) == [(2**17, True)]  # fmt: skip
    assert users.verify(accounts, "ben", PASSWORD) == users.User("ben", "labeller")


def test_a_users_file_of_before_stays_in_use_until_imported(
    pg_url: str, _no_users_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostgreSQL deployment that kept its users file in the current folder is not left
    without sign-in: the file stays in use until `judgeboard users import` moves it in."""
    legacy = _no_users_file / users.USERS_FILE
    users.add_user(legacy, "ana", PASSWORD, role="admin")
    users.add_user(legacy, "lee", "password-lee", role="labeller")
    assert location.users_of(pg_url) == legacy
    assert main(["--db", pg_url, "users", "import", str(legacy)]) == 2  # it is the file
    assert "not in a PostgreSQL store" in capsys.readouterr().err
    legacy.rename(_no_users_file.parent / "old-users.json")
    assert location.users_of(pg_url) == StoredUsers(pg_url)
    users.add_user(StoredUsers(pg_url), "lee", "another password", role="admin")
    assert main(["--db", pg_url, "users", "import", "../old-users.json"]) == 0
    out = capsys.readouterr().out
    assert "added 'ana' (admin)" in out and "kept 'lee'" in out
    accounts = StoredUsers(pg_url)
    assert users.verify(accounts, "ana", PASSWORD) == users.User("ana", "admin")  # same hash
    assert users.verify(accounts, "lee", "another password") == users.User("lee", "admin")


def test_a_duckdb_store_keeps_its_users_file(tmp_path: Path) -> None:
    db = tmp_path / "file.duckdb"
    store = Store(db)
    assert location.users_of(db) == users.users_path(db) == tmp_path / users.USERS_FILE
    users.add_user(location.users_of(db), "ana", PASSWORD, role="admin")
    assert (tmp_path / users.USERS_FILE).exists()
    with store.connection() as con:  # m025 made the tables; the file store leaves them empty
        assert con.execute("SELECT count(*) FROM accounts").fetchone() == (0,)


def test_a_labeller_from_the_store_is_refused_an_admins_action(
    pg_server: PostgresServer, pg_sample_template: str
) -> None:
    """The roles of accounts kept in the store are enforced as a file's: a labeller signed in
    through the store's accounts is refused an import, and nothing changes; its admin may."""
    url = pg_server.create(pg_sample_template)
    accounts = location.users_of(url)
    users.add_user(accounts, "lee", "password-lee", role="labeller")
    users.add_user(accounts, "ada", "password-ada", role="admin")
    store = Store(url)
    try:
        lee = throttle.sign_in(accounts, "lee", "password-lee", client="10.0.0.1")
        before = table_rows(store)
        upload = b'{"question": "q?", "answer": "a", "system": "s", "id": "1"}\n'
        with pytest.raises(RoleError, match="lee is signed in as a labeller"):
            uploads.import_upload(store, "u.jsonl", io.BytesIO(upload), dataset="x", actor=lee)
        assert table_rows(store) == before
        ada = throttle.sign_in(accounts, "ada", "password-ada", client="10.0.0.1")
        uploads.import_upload(store, "u.jsonl", io.BytesIO(upload), dataset="x", actor=ada)
        assert table_rows(store) != before
    finally:
        store.close()
