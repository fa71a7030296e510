"""Failed sign-ins: a growing delay per name and per client, then a lockout an admin lifts.

After `FREE_FAILURES` failures in a row, a name (or a client address) must wait before its next
attempt: 1 s, then 2, 4, 8 … up to `MAX_DELAY_S`; an attempt inside that wait is refused without
checking the password. After `LOCK_NAME_AFTER` failures a name is locked, after
`LOCK_CLIENT_AFTER` a client is, until an admin runs `judgeboard users unlock NAME` (or
`--client ADDRESS`). A lock holds against the right password too, and an unknown name is
counted and locked like a known one, so the answers say nothing about which names exist. A
success clears the name's and the client's count. Every failure and lock is logged (logger
`judgeboard.auth`), with the name and the client, never the password.

The counts live in a file beside the users file (`<users>.failures.json`, mode 0600), shared
by every session and process, changed under an exclusive `flock` of `<users>.failures.lock`;
neither is ever opened through a symbolic link. Counts with no failure for a day are dropped.
With the accounts in a PostgreSQL store (`location.users_of`), the counts are in the store too
(`sign_in_failures`), changed under an advisory lock: every replica counts the same failures.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dashboard.auth.users import (
    User,
    Users,
    UsersError,
    read_private,
    verify,
    write_private,
)

FREE_FAILURES = 3
MAX_DELAY_S = 300.0
LOCK_NAME_AFTER = 10
LOCK_CLIENT_AFTER = 30
FORGET_AFTER_S = 86400.0
log = logging.getLogger("judgeboard.auth")


class SignInRefused(Exception):
    """An attempt refused before or after its check; the message is for the person."""


@dataclass(frozen=True)
class Lock:
    kind: str  # "name" or "client"
    key: str
    failures: int


def failures_path(users_file: Path) -> Path:
    return users_file.with_name(f"{users_file.stem}.failures.json")


@contextlib.contextmanager
def _locked(users_file: Users) -> Iterator[dict]:
    """The counts, read and (when changed by the block) written under an exclusive lock."""
    if not isinstance(users_file, Path):
        with users_file.failures() as counts:
            yield counts
        return
    lock_file = users_file.with_name(f"{users_file.stem}.failures.lock")
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise UsersError(
            f"{lock_file}: cannot open it ({error.strerror or error}); a symbolic link there "
            "is refused: remove it"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        path = failures_path(users_file)
        text = read_private(path)
        try:
            counts = json.loads(text) if text else {}
        except ValueError:
            counts = {}  # a damaged count file: start counting again
        counts.setdefault("names", {})
        counts.setdefault("clients", {})
        before = json.dumps(counts, sort_keys=True)
        try:
            yield counts  # a refusal raised in the block still saves the count it made
        finally:
            if json.dumps(counts, sort_keys=True) != before:
                write_private(path, json.dumps(counts, indent=2, sort_keys=True))
    finally:
        os.close(fd)  # releases the flock


def _wait_s(entry: dict, now: float) -> float:
    failures = int(entry.get("failures", 0))
    if failures < FREE_FAILURES:
        return 0.0
    delay = min(MAX_DELAY_S, 2.0 ** (failures - FREE_FAILURES))
    return max(0.0, float(entry.get("last", 0.0)) + delay - now)


def _refusal(counts: dict, name: str, client: str, now: float) -> str | None:
    by_name, by_client = counts["names"].get(name, {}), counts["clients"].get(client, {})
    if by_name.get("locked") or by_client.get("locked"):
        return (
            "Too many failed sign-ins: this account or this computer is locked. "
            "Ask an admin to run `judgeboard users unlock`."
        )
    wait = max(_wait_s(by_name, now), _wait_s(by_client, now))
    if wait > 0:
        return f"Too many failed sign-ins: wait {wait:.0f} s before trying again."
    return None


def _count_attempt(counts: dict, name: str, client: str, now: float) -> None:
    """Count an attempt as failed before its check: attempts made in parallel then each see
    the others' waits, as attempts one after the other do."""
    for kind, key in (("names", name), ("clients", client)):
        entry = counts[kind].setdefault(key, {"failures": 0})
        entry["failures"] = int(entry["failures"]) + 1
        entry["last"] = now


def _settle_failure(counts: dict, name: str, client: str, now: float) -> None:
    """After a wrong password: lock what has failed too often, log, forget old counts."""
    for kind, key, lock_after in (
        ("names", name, LOCK_NAME_AFTER),
        ("clients", client, LOCK_CLIENT_AFTER),
    ):
        entry = counts[kind].setdefault(key, {"failures": 1, "last": now})
        if int(entry["failures"]) >= lock_after and not entry.get("locked"):
            entry["locked"] = True
            log.error("sign-in locked for %s %r after %d failures", kind[:-1], key, lock_after)
    log.warning(
        "failed sign-in for name %r from client %s (%d in a row for the name)",
        name,
        client,
        counts["names"][name]["failures"],
    )
    for kind in ("names", "clients"):
        for key in [
            k
            for k, e in counts[kind].items()
            if not e.get("locked") and now - float(e.get("last", 0.0)) > FORGET_AFTER_S
        ]:
            del counts[kind][key]


def sign_in(
    users_file: Users, name: str, password: str, *, client: str, now: float | None = None
) -> User:
    """The user for this name and password, or SignInRefused: a wrong pair, or an attempt
    during a name's or client's wait, or for a locked one. The attempt is counted before the
    password is checked (outside the lock: a check costs a scrypt), and the count cleared
    if it was right."""
    moment = time.time() if now is None else now
    name, client = name.strip(), client or "unknown"
    with _locked(users_file) as counts:
        if refusal := _refusal(counts, name, client, moment):
            log.warning("refused sign-in for name %r from client %s: %s", name, client, refusal)
            raise SignInRefused(refusal)
        _count_attempt(counts, name, client, moment)
    user = verify(users_file, name, password)
    with _locked(users_file) as counts:
        if user is None:
            _settle_failure(counts, name, client, moment)
            raise SignInRefused("Wrong name or password.")
        counts["names"].pop(name, None)
        counts["clients"].pop(client, None)
    return user


def unlock(users_file: Users, *, name: str | None = None, client: str | None = None) -> bool:
    """Lift the lock and clear the count of a name or a client; False if there was none."""
    with _locked(users_file) as counts:
        found = False
        for kind, key in (("names", name), ("clients", client)):
            if key is not None and counts[kind].pop(key, None) is not None:
                found = True
                log.warning("sign-in count cleared for %s %r", kind[:-1], key)
        return found


def locks(users_file: Users) -> list[Lock]:
    """The names and clients locked now."""
    if isinstance(users_file, Path):
        text = read_private(failures_path(users_file))
        try:
            counts = json.loads(text) if text else {}
        except ValueError:
            return []
    else:
        counts = users_file.read_failures()
    return [
        Lock(kind[:-1], key, int(entry.get("failures", 0)))
        for kind in ("names", "clients")
        for key, entry in sorted((counts.get(kind) or {}).items())
        if entry.get("locked")
    ]
