"""`judgeboard users`: the local accounts of the dashboard (add, remove, list, passwd, role,
unlock: lift the lock that failed sign-ins put on a name or a client, `dashboard.auth.throttle`).

The file is `--file`, else $JUDGEBOARD_USERS, else judgeboard-users.json beside the database
(`dashboard.auth.users`); with a PostgreSQL store (`--db postgresql://…`), the accounts are in
the store itself, shared by every replica (`import FILE` moves a users file's accounts in).
A password is read from the terminal, or one line of stdin with `--password-stdin`; it is
never an argument (arguments show in the process list).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from dashboard.auth import location, throttle, users
from dashboard.cli.common import CommandError
from dashboard.settings import resolve_db_path


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("users", help="manage the dashboard's sign-in accounts")
    parser.add_argument("--file", help="the users file (default: beside the database)")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="add an account")
    add.add_argument("name")
    add.add_argument("--role", choices=users.ROLES, default="labeller")
    add.add_argument("--password-stdin", action="store_true", help="read the password on stdin")
    remove = actions.add_parser("remove", help="remove an account")
    remove.add_argument("name")
    actions.add_parser("list", help="list the accounts and their roles")
    passwd = actions.add_parser("passwd", help="set an account's password")
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true")
    role = actions.add_parser("role", help="set an account's role")
    role.add_argument("name")
    role.add_argument("role", choices=users.ROLES)
    move = actions.add_parser(
        "import", help="copy a users file's accounts into the PostgreSQL store (same passwords)"
    )
    move.add_argument("source", help="the users file to copy the accounts of")
    unlock = actions.add_parser("unlock", help="lift a sign-in lock after failed attempts")
    unlock.add_argument("name", nargs="?", help="the account name to unlock")
    unlock.add_argument("--client", help="a client address to unlock instead (or as well)")
    parser.set_defaults(handler=run)


def _path(args: argparse.Namespace) -> users.Users:
    if args.file:
        return Path(args.file).expanduser().resolve()
    return location.users_of(resolve_db_path(args.db))


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise CommandError("the two passwords differ; nothing was changed")
    return first


def _import(path: users.Users, source: str) -> None:
    if isinstance(path, Path):
        raise CommandError(
            f"the accounts are in the users file {path}, not in a PostgreSQL store: nothing to "
            "import (give --db postgresql://… without $JUDGEBOARD_USERS or --file)"
        )
    added, left = users.import_users(Path(source).expanduser().resolve(), path)
    for user in added:
        print(f"added {user.name!r} ({user.role}) to {path}")
    for name in left:
        print(f"kept {name!r}: {path} has that account already")


def _unlock(path: users.Users, name: str | None, client: str | None) -> None:
    if name is None and client is None:
        raise CommandError("name the account to unlock, or give --client ADDRESS")
    if throttle.unlock(path, name=name, client=client):
        which = " and ".join(repr(k) for k in (name, client) if k)
        print(f"cleared the failed sign-ins of {which}; they may sign in again")
    else:
        print("nothing to unlock: no failed sign-ins are counted for that")


def run(args: argparse.Namespace) -> int:
    path = _path(args)
    try:
        if args.action == "add":
            user = users.add_user(path, args.name, _password(args), role=args.role)
            print(f"added {user.name!r} ({user.role}) to {path}")
        elif args.action == "remove":
            users.remove_user(path, args.name)
            print(f"removed {args.name!r} from {path}")
        elif args.action == "passwd":
            users.set_password(path, args.name, _password(args))
            print(f"set the password of {args.name!r}")
        elif args.action == "role":
            users.set_role(path, args.name, args.role)
            print(f"{args.name!r} is now {args.role}")
        elif args.action == "import":
            _import(path, args.source)
        elif args.action == "unlock":
            _unlock(path, args.name, args.client)
        else:
            found = users.list_users(path)
            if not found:
                print(f"no accounts in {path}: the dashboard runs without sign-in")
            for user in found:
                print(f"{user.name:<32} {user.role}")
            for lock in throttle.locks(path):
                print(f"locked {lock.kind} {lock.key!r} after {lock.failures} failed sign-ins")
    except users.UsersError as error:
        raise CommandError(str(error)) from error
    return 0
