"""Local accounts: a users file of names, roles and salted password hashes.

The file is JSON, written whole (to a new temporary file, then renamed) with mode 0600:
`{"version": 1, "secret": hex, "users": {name: {"role", "salt", "hash", "n", "r", "p"}}}`.
Neither the file nor its temporary file is ever read or written through a symbolic link
(O_NOFOLLOW, and O_EXCL on a temporary name no one can guess): a planted link is refused with
a message. A password is hashed with scrypt at OWASP's parameters (`hashlib.scrypt`, n=2^17,
r=8, p=1, 16 random bytes of salt) and compared in constant time; a hash made with weaker
parameters (n=2^14 before) is still verified with its own and replaced at the next
successful sign-in. `secret` signs the sign-in tokens the dashboard keeps
in a browser cookie (`session_token`); a token names the user and its expiry, and covers the
user's password hash, so changing a password or removing a user ends their sessions.
Signing out revokes the token on the server: the file keeps a digest of each revoked token
(`"revoked": {sha256: expiry}`) until it would have expired, and such a token is refused
everywhere, whichever browser still holds it.

Where: `JUDGEBOARD_USERS`, else `judgeboard-users.json` beside the database. No file means
no sign-in: the dashboard runs as before (for one person on 127.0.0.1) and says so.

On a PostgreSQL store the accounts live in the store itself (chosen by
`dashboard.auth.location.users_of`; the tables of `dashboard.store.accounts`), so that replicas
on several machines share them without sharing a file: every function below takes either a
users file's path or that `UsersTable`, and
keeps the same document (the same hashing, roles, tokens and revocations) in either.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

USERS_ENV = "JUDGEBOARD_USERS"
USERS_FILE = "judgeboard-users.json"
# An admin may import, delete and run judges besides labelling; a reviewer labels and
# adjudicates the answers a campaign's people disagree on; a labeller only labels.
ROLES: tuple[str, ...] = ("admin", "reviewer", "labeller")
ADMIN = "admin"
REVIEWER = "reviewer"
_SCRYPT = {"n": 2**17, "r": 8, "p": 1}  # OWASP's password storage cheat sheet (scrypt)
_NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC
log = logging.getLogger("judgeboard.auth")
MIN_PASSWORD = 8
TOKEN_DAYS = 14


class UsersError(ValueError):
    """A users file or an account that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class User:
    name: str
    role: str

    @property
    def is_admin(self) -> bool:
        return self.role == ADMIN

    @property
    def is_reviewer(self) -> bool:
        """A reviewer or an admin: may adjudicate."""
        return self.role in (ADMIN, REVIEWER)


class UsersTable(Protocol):
    """Where the users document lives when it is not a file: the accounts of a PostgreSQL
    store (`dashboard.store.accounts.StoredUsers`). `exists()` is the file's: sign-in is on."""

    def exists(self) -> bool: ...

    def read(self) -> dict: ...

    def editing(self) -> AbstractContextManager[dict]: ...

    def read_failures(self) -> dict: ...

    def failures(self) -> AbstractContextManager[dict]: ...


# A users file's path, or the accounts of a PostgreSQL store.
Users = Path | UsersTable


def users_path(db_path: Path | str) -> Path:
    """The users file: $JUDGEBOARD_USERS, else judgeboard-users.json beside the database file
    (with a PostgreSQL store, in the current folder: replicas share one by $JUDGEBOARD_USERS)."""
    chosen = os.environ.get(USERS_ENV)
    if chosen:
        return Path(chosen).expanduser().resolve()
    if isinstance(db_path, str):
        return Path.cwd() / USERS_FILE
    return db_path.parent / USERS_FILE


def _link_refused(path: Path) -> UsersError:
    return UsersError(
        f"{path} is a symbolic link; judgeboard never reads or writes a users file through "
        "one (someone may have planted it): remove it and add the accounts again"
    )


def read_private(path: Path) -> str | None:
    """The text of a file judgeboard keeps private (the users file, its failures file),
    never through a symbolic link; None when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_LINK)
    except FileNotFoundError:
        return None
    except OSError as error:
        if path.is_symlink():
            raise _link_refused(path) from None
        raise UsersError(f"{path}: cannot read it ({error.strerror or error})") from error
    with os.fdopen(fd, encoding="utf-8") as handle:
        return handle.read()


def write_private(path: Path, text: str) -> None:
    """Replace `path` whole with `text`, mode 0600: through a new temporary file (O_EXCL,
    O_NOFOLLOW, a random name), never through a symbolic link at either name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        raise _link_refused(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o600)
    except FileExistsError:
        raise UsersError(
            f"{temporary} exists already (a planted file or link?); nothing was written"
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _read(path: Users) -> dict:
    if not isinstance(path, Path):
        return path.read()
    text = read_private(path)
    if text is None:
        return {"version": 1, "secret": secrets.token_hex(32), "users": {}}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise UsersError(f"{path}: not a users file ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("users"), dict):
        raise UsersError(f'{path}: not a users file (no "users" object)')
    return data


def _write(path: Path, data: dict) -> None:
    write_private(path, json.dumps(data, indent=2, sort_keys=True))


@contextmanager
def _editing(path: Users) -> Iterator[dict]:
    """The users file's data, read and written back whole while this process holds an
    exclusive lock on `<file>.lock` (never through a link): two edits at once (two sign-outs,
    a sign-out and `users add`) each read the other's result, so neither is lost. Nothing is
    written when the block raises. (In a store: the same, in one transaction.)"""
    if not isinstance(path, Path):
        with path.editing() as data:
            yield data
        return
    lock = path.with_name(path.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | _NO_LINK, 0o600)
    except OSError as error:
        if lock.is_symlink():
            raise _link_refused(lock) from None
        raise UsersError(f"{lock}: cannot open it ({error.strerror or error})") from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = _read(path)
        yield data
        _write(path, data)
    finally:
        os.close(fd)  # closing the descriptor lets the lock go


def _hash(password: str, salt: bytes, params: dict) -> bytes:
    n, r, p = int(params["n"]), int(params["r"]), int(params["p"])
    # scrypt needs 128·r·n bytes (128 MiB at n=2^17); hashlib's default cap is 32 MiB.
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=2 * 128 * r * n * p + 2**20
    )


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise UsersError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
    return role


def _entry(password: str, role: str, *, check_length: bool = True) -> dict:
    if check_length and len(password) < MIN_PASSWORD:
        raise UsersError(f"a password needs at least {MIN_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    digest = _hash(password, salt, _SCRYPT).hex()
    return {"role": role, "salt": salt.hex(), "hash": digest, **_SCRYPT}


def add_user(path: Users, name: str, password: str, *, role: str) -> User:
    name = name.strip()
    if not name or any(c in name for c in "|\n\r"):
        raise UsersError("a user name must be non-empty, without | or line breaks")
    entry = _entry(password, _check_role(role))  # hashed before the lock is taken
    with _editing(path) as data:
        if name in data["users"]:
            raise UsersError(f"{name!r} exists already; use `judgeboard users passwd` or `role`")
        data["users"][name] = entry
    return User(name, role)


def import_users(source: Path, target: Users) -> tuple[list[User], list[str]]:
    """Copy the accounts of the users file `source` into `target` (a store's accounts), their
    hashes as they are: the same passwords work. A name `target` has already is left as it
    is. Sessions are not carried over (the signing secret differs): people sign in again.
    Returns the accounts added and the names left."""
    found = _read(source) if source.exists() else None
    if found is None:
        raise UsersError(f"{source}: no such users file")
    added, left = [], []
    with _editing(target) as data:
        for name, entry in sorted(found["users"].items()):
            if name in data["users"]:
                left.append(name)
                continue
            data["users"][name] = dict(entry)
            added.append(User(name, _check_role(entry["role"])))
    return added, left


def _existing(data: dict, path: Users, name: str) -> dict:
    if name not in data["users"]:
        raise UsersError(f"{path}: no user named {name!r}")
    return data["users"][name]


def remove_user(path: Users, name: str) -> None:
    with _editing(path) as data:
        _existing(data, path, name)
        del data["users"][name]


def set_password(path: Users, name: str, password: str) -> None:
    _existing(_read(path), path, name)
    entry = _entry(password, "")  # hashed before the lock is taken
    with _editing(path) as data:
        entry["role"] = _existing(data, path, name)["role"]
        data["users"][name] = entry


def set_role(path: Users, name: str, role: str) -> None:
    with _editing(path) as data:
        _existing(data, path, name)["role"] = _check_role(role)


def list_users(path: Users) -> list[User]:
    if not path.exists():
        return []
    data = _read(path)
    return [User(name, entry["role"]) for name, entry in sorted(data["users"].items())]


def verify(path: Users, name: str, password: str) -> User | None:
    """The user, when the name and password match (None otherwise). A match whose hash was
    made with weaker parameters than today's is hashed again with today's and saved."""
    if not path.exists():
        return None
    data = _read(path)
    name = name.strip()
    entry = data["users"].get(name)
    if entry is None:
        _hash(password, b"\0" * 16, _SCRYPT)  # the same time for an unknown name
        return None
    expected = bytes.fromhex(entry["hash"])
    given = _hash(password, bytes.fromhex(entry["salt"]), entry)
    if not hmac.compare_digest(given, expected):
        return None
    if any(int(entry.get(k, 0)) < v for k, v in _SCRYPT.items()):
        fresh = _entry(password, entry["role"], check_length=False)
        try:
            with _editing(path) as latest:
                if latest["users"].get(name, {}).get("hash") == entry["hash"]:
                    latest["users"][name] = fresh
        except (OSError, UsersError) as error:  # a read-only file still lets people in
            log.warning("could not rehash the password of %r: %s", name, error)
    return User(name, entry["role"])


def _signature(secret: str, name: str, expires: int, entry: dict) -> str:
    message = f"{name}|{expires}|{entry['hash']}".encode()
    return hmac.new(bytes.fromhex(secret), message, hashlib.sha256).hexdigest()


def session_token(path: Users, user: User, *, now: float | None = None) -> str:
    """A signed token naming `user`, valid for TOKEN_DAYS."""
    data = _read(path)
    expires = int((now or time.time()) + TOKEN_DAYS * 86400)
    entry = _existing(data, path, user.name)
    return f"{user.name}|{expires}|{_signature(data['secret'], user.name, expires, entry)}"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _valid(data: dict, token: str | None, now: float) -> tuple[User, int] | None:
    """The user a token names and its expiry, when this file signed it and it is unexpired
    and not revoked."""
    if not token:
        return None
    parts = token.split("|")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    name, expires, signature = parts[0], int(parts[1]), parts[2]
    entry = data["users"].get(name)
    if entry is None or expires < now or _digest(token) in data.get("revoked", {}):
        return None
    if not hmac.compare_digest(signature, _signature(data["secret"], name, expires, entry)):
        return None
    return User(name, entry["role"]), expires


def user_of_token(path: Users, token: str | None, *, now: float | None = None) -> User | None:
    """The user a token names, if it is signed by this file, unexpired, not revoked (signed
    out) and still valid."""
    if not token or not path.exists():
        return None
    found = _valid(_read(path), token, now or time.time())
    return found[0] if found else None


def revoke_token(path: Users, token: str | None, *, now: float | None = None) -> bool:
    """Sign a token out everywhere: from now on `user_of_token` refuses it. The digests of
    expired tokens are dropped meanwhile (they are refused anyway). False when the token was
    not valid (nothing to revoke)."""
    if not token or not path.exists():
        return False
    moment = now or time.time()
    if _valid(_read(path), token, moment) is None:
        return False
    with _editing(path) as data:
        found = _valid(data, token, moment)
        revoked = {d: e for d, e in data.get("revoked", {}).items() if e >= moment}
        if found is not None:
            revoked[_digest(token)] = found[1]
        data["revoked"] = revoked
    return True
