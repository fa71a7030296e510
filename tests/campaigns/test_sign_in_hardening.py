"""Sign-in hardening: failed attempts slow down then lock (per name and per client, lifted by
`judgeboard users unlock`), passwords hashed at OWASP's scrypt parameters (old hashes still
verified, then rehashed), and the users file never read or written through a symbolic link."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import pytest

from dashboard.auth import throttle, users
from dashboard.cli import main

PASSWORD = "correct horse"


@pytest.fixture(autouse=True)
def _small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each failed attempt costs one scrypt at n=2^17 (0.1-0.8 s here): lock sooner in tests.
    monkeypatch.setattr(throttle, "LOCK_NAME_AFTER", 6)
    monkeypatch.setattr(throttle, "LOCK_CLIENT_AFTER", 8)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    users_file = tmp_path / "users.json"
    users.add_user(users_file, "ana", PASSWORD, role="admin")
    return users_file


def _fail(path: Path, name: str = "ana", client: str = "10.0.0.1", *, now: float) -> str:
    with pytest.raises(throttle.SignInRefused) as refused:
        throttle.sign_in(path, name, "wrong password", client=client, now=now)
    return str(refused.value)


def test_failures_grow_a_delay_then_lock_the_name_until_an_admin_unlocks_it(
    path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.WARNING, logger="judgeboard.auth")
    now = 1_000_000.0
    for _ in range(throttle.FREE_FAILURES):  # the first three: no wait
        assert _fail(path, now=now) == "Wrong name or password."
    # The fourth attempt, at once: refused without a check, even with the right password.
    with pytest.raises(throttle.SignInRefused, match="wait 1 s"):
        throttle.sign_in(path, "ana", PASSWORD, client="10.0.0.1", now=now)
    waits = []
    for _ in range(throttle.LOCK_NAME_AFTER - throttle.FREE_FAILURES):
        now += 10_000  # past any wait
        assert _fail(path, now=now) == "Wrong name or password."
        waits.append(
            throttle._refusal(
                json.loads(throttle.failures_path(path).read_text()), "ana", "10.0.0.9", now
            )
        )
    assert waits[0] == "Too many failed sign-ins: wait 2 s before trying again."
    assert waits[1] == "Too many failed sign-ins: wait 4 s before trying again."
    # LOCK_NAME_AFTER failures: locked, the right password included, however long one waits.
    with pytest.raises(throttle.SignInRefused, match="locked"):
        throttle.sign_in(path, "ana", PASSWORD, client="10.0.0.2", now=now + 10**6)
    assert "failed sign-in for name 'ana' from client 10.0.0.1" in caplog.text
    assert "sign-in locked for name 'ana' after 6 failures" in caplog.text
    assert PASSWORD not in caplog.text and "wrong password" not in caplog.text
    assert main(["users", "--file", str(path), "list"]) == 0
    assert "locked name 'ana' after 6 failed sign-ins" in capsys.readouterr().out
    assert main(["users", "--file", str(path), "unlock", "ana"]) == 0
    assert "cleared the failed sign-ins of 'ana'" in capsys.readouterr().out
    assert main(["users", "--file", str(path), "unlock", "--client", "10.0.0.1"]) == 0
    user = throttle.sign_in(path, "ana", PASSWORD, client="10.0.0.1", now=now + 10**6)
    assert user == users.User("ana", "admin")
    assert throttle.locks(path) == []


def test_a_client_is_slowed_whatever_names_it_tries(path: Path) -> None:
    now = 2_000_000.0
    for i in range(throttle.FREE_FAILURES):
        _fail(path, f"guess-{i}", "10.9.9.9", now=now)
    message = _fail(path, "another-name", "10.9.9.9", now=now)
    assert message.startswith("Too many failed sign-ins: wait")
    # Another client, the same moment: not slowed.
    assert throttle.sign_in(path, "ana", PASSWORD, client="10.1.1.1", now=now).name == "ana"
    for i in range(throttle.LOCK_CLIENT_AFTER):
        now += 10_000
        _fail(path, f"g{i}", "10.9.9.9", now=now)
    assert any(
        lock == throttle.Lock("client", "10.9.9.9", throttle.LOCK_CLIENT_AFTER)
        for lock in throttle.locks(path)
    )


def test_unknown_names_are_counted_like_known_ones(path: Path) -> None:
    now = 3_000_000.0
    for _ in range(throttle.LOCK_NAME_AFTER):
        now += 10_000
        _fail(path, "nobody", f"10.0.1.{int(now) % 250}", now=now)
    assert [lock.key for lock in throttle.locks(path) if lock.kind == "name"] == ["nobody"]


def test_new_hashes_use_owasp_parameters_and_old_ones_are_rehashed_on_sign_in(
    tmp_path: Path,
) -> None:
    path = tmp_path / "users.json"
    users.add_user(path, "ana", PASSWORD, role="admin")
    entry = json.loads(path.read_text())["users"]["ana"]
    assert (entry["n"], entry["r"], entry["p"]) == (2**17, 8, 1)
    # A file from before: n = 2^14, as judgeboard wrote it until now.
    data = json.loads(path.read_text())
    salt = os.urandom(16)
    old = hashlib.scrypt(PASSWORD.encode(), salt=salt, n=2**14, r=8, p=1)
    data["users"]["ben"] = {
        "role": "labeller",
        "salt": salt.hex(),
        "hash": old.hex(),
        "n": 2**14,
        "r": 8,
        "p": 1,
    }
    path.write_text(json.dumps(data))
    assert users.verify(path, "ben", "wrong password") is None
    assert json.loads(path.read_text())["users"]["ben"]["n"] == 2**14  # unchanged on failure
    assert users.verify(path, "ben", PASSWORD) == users.User("ben", "labeller")
    rehashed = json.loads(path.read_text())["users"]["ben"]
    assert rehashed["n"] == 2**17 and rehashed["hash"] != old.hex()
    assert users.verify(path, "ben", PASSWORD) == users.User("ben", "labeller")


def test_a_planted_users_file_link_is_refused(path: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "attacker.json"
    elsewhere.write_text(json.dumps({"version": 1, "secret": "00", "users": {}}))
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.raises(users.UsersError, match="symbolic link"):
        users.add_user(path, "eve", PASSWORD, role="admin")
    with pytest.raises(users.UsersError, match="symbolic link"):
        users.verify(path, "eve", PASSWORD)
    assert json.loads(elsewhere.read_text())["users"] == {}  # nothing written through it
    assert path.is_symlink()


def test_a_planted_temporary_file_link_is_never_written_through(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "attacker-owned"
    target.write_text("attacker's file\n")
    # The temporary name has a random part; plant a link at the very name it will use.
    monkeypatch.setattr(users.secrets, "token_hex", lambda n=None: "planted")
    planted = path.with_name(f".{path.name}.{os.getpid()}.planted.tmp")
    planted.symlink_to(target)
    with pytest.raises(users.UsersError, match="exists already"):
        users.set_role(path, "ana", "labeller")
    assert target.read_text() == "attacker's file\n"  # no secret written into it
    assert not path.is_symlink() and json.loads(path.read_text())["users"]["ana"]["role"] == "admin"
    # A dangling link (its target absent) is refused all the same (O_EXCL, O_NOFOLLOW).
    target.unlink()
    with pytest.raises(users.UsersError, match="exists already"):
        users.set_role(path, "ana", "labeller")
    assert not target.exists()


def test_a_planted_failures_file_link_is_refused(path: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    throttle.failures_path(path).symlink_to(target)
    with pytest.raises(users.UsersError, match="symbolic link"):
        throttle.sign_in(path, "ana", "wrong password", client="10.0.0.1")
    assert target.read_text() == "{}"


def test_parallel_attempts_are_counted_before_their_checks(path: Path) -> None:
    """Six wrong guesses at once: each is counted before its scrypt runs, so only the first
    FREE_FAILURES are checked; the others meet the wait, unchecked."""
    from concurrent.futures import ThreadPoolExecutor

    now = 4_000_000.0
    with ThreadPoolExecutor(6) as pool:
        said = list(pool.map(lambda i: _fail(path, client=f"10.2.0.{i}", now=now), range(6)))
    assert said.count("Wrong name or password.") == throttle.FREE_FAILURES
    assert all(s.startswith("Too many failed sign-ins: wait") for s in said if "Wrong" not in s)
