"""Local accounts: the `judgeboard users` command, salted hashes, sign-in tokens."""

from __future__ import annotations

import json
import stat

import pytest

from dashboard.auth import users
from dashboard.cli import main


def _cli(path, *args, password=None, monkeypatch=None):
    if password is not None:
        import io

        monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    return main(["users", "--file", str(path), *args])


def test_the_users_command(tmp_path, monkeypatch, capsys):
    path = tmp_path / "users.json"
    assert _cli(path, "list") == 0 and "without sign-in" in capsys.readouterr().out
    ok = _cli(
        path,
        "add",
        "ana",
        "--role",
        "admin",
        "--password-stdin",
        password="correct horse",
        monkeypatch=monkeypatch,
    )
    assert ok == 0
    assert (
        _cli(path, "add", "ben", "--password-stdin", password="short", monkeypatch=monkeypatch) == 2
    )
    assert "at least 8" in capsys.readouterr().err
    _cli(path, "add", "ben", "--password-stdin", password="battery staple", monkeypatch=monkeypatch)
    capsys.readouterr()
    assert _cli(path, "list") == 0
    assert capsys.readouterr().out.split() == ["ana", "admin", "ben", "labeller"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert "correct horse" not in path.read_text() and stored["users"]["ana"]["salt"]
    assert users.verify(path, "ana", "correct horse") == users.User("ana", "admin")
    assert users.verify(path, "ana", "wrong password") is None
    assert users.verify(path, "nobody", "correct horse") is None
    token = users.session_token(path, users.User("ben", "labeller"))
    assert users.user_of_token(path, token) == users.User("ben", "labeller")
    assert users.user_of_token(path, token.replace("ben", "ana", 1)) is None  # forged
    _cli(
        path, "passwd", "ben", "--password-stdin", password="new password!", monkeypatch=monkeypatch
    )
    assert users.user_of_token(path, token) is None  # a new password ends the sessions
    assert _cli(path, "role", "ben", "admin") == 0
    assert users.verify(path, "ben", "new password!").is_admin
    assert _cli(path, "remove", "ben") == 0 and users.verify(path, "ben", "new password!") is None
    assert _cli(path, "remove", "ben") == 2


def test_an_expired_token_is_refused(tmp_path):
    path = tmp_path / "users.json"
    users.add_user(path, "ana", "correct horse", role="labeller")
    token = users.session_token(path, users.User("ana", "labeller"), now=1_000.0)
    assert users.user_of_token(path, token, now=2_000.0) is not None
    assert users.user_of_token(path, token, now=1_000.0 + 15 * 86400) is None
    with pytest.raises(users.UsersError, match="unknown role"):
        users.add_user(path, "x", "correct horse", role="root")


def test_a_revoked_token_is_refused_and_only_that_one(tmp_path):
    path = tmp_path / "users.json"
    ana = users.add_user(path, "ana", "correct horse", role="labeller")
    signed_out = users.session_token(path, ana, now=1_000.0)
    other = users.session_token(path, ana, now=1_001.0)  # the same person in another browser
    assert users.revoke_token(path, signed_out, now=2_000.0)
    assert users.user_of_token(path, signed_out, now=2_000.0) is None
    assert users.user_of_token(path, other, now=2_000.0) == ana
    assert not users.revoke_token(path, signed_out, now=2_000.0)  # nothing left to revoke
    assert not users.revoke_token(path, "ana|99999999999|forged", now=2_000.0)
    assert not users.revoke_token(path, None)
    # the file keeps a digest, never the token; it is dropped once the token has expired
    assert signed_out not in path.read_text(encoding="utf-8")
    assert len(json.loads(path.read_text(encoding="utf-8"))["revoked"]) == 1
    assert users.revoke_token(path, other, now=1_000.0 + 14 * 86400 + 0.5)
    assert len(json.loads(path.read_text(encoding="utf-8"))["revoked"]) == 1


def _revoke_all(path: str, tokens: list[str], start: float) -> None:
    import time as _time
    from pathlib import Path as _Path

    while _time.time() < start:  # every process begins at the same moment
        _time.sleep(0.001)
    for token in tokens:
        assert users.revoke_token(_Path(path), token)


def test_sign_outs_at_the_same_moment_each_keep_their_revocation(tmp_path):
    """Several processes rewrite the users file at once (four browsers signing out, each five
    times): every revocation is in the file afterwards, none overwritten by another's."""
    import multiprocessing as mp
    import time

    path = tmp_path / "users.json"
    ana = users.add_user(path, "ana", "correct horse", role="labeller")
    tokens = [
        [users.session_token(path, ana, now=time.time() + i + 10 * p) for i in range(5)]
        for p in range(4)
    ]
    spawn = mp.get_context("spawn")
    start = time.time() + 3.0
    workers = [spawn.Process(target=_revoke_all, args=(str(path), t, start)) for t in tokens]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    for token in (t for group in tokens for t in group):
        assert users.user_of_token(path, token) is None
    assert len(json.loads(path.read_text(encoding="utf-8"))["revoked"]) == 20
