"""Where the sign-in accounts of a store are: a users file, or the PostgreSQL store's tables.

Apart from `dashboard.auth.users` so that it may import the store (which imports the users
module): the users module itself never imports the store.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from dashboard.auth import users
from dashboard.auth.users import Users

log = logging.getLogger("judgeboard.auth")


def users_of(db_path: Path | str) -> Users:
    """Where the accounts of the store `db_path` are. A DuckDB file: the users file of
    `users_path`. A PostgreSQL store: its own tables, unless $JUDGEBOARD_USERS names a file,
    or `judgeboard-users.json` exists in the current folder (where accounts were kept before
    they moved into the store; `judgeboard users import FILE` moves them), which is used as
    before rather than leaving the dashboard without sign-in."""
    if isinstance(db_path, Path) or os.environ.get(users.USERS_ENV):
        return users.users_path(db_path)
    legacy = users.users_path(db_path)
    if legacy.exists():
        log.info(
            "the accounts are read from %s, not from the PostgreSQL store: move them in with "
            "`judgeboard users import %s`, then remove the file",
            legacy,
            legacy,
        )
        return legacy
    from dashboard.store.accounts import StoredUsers  # psycopg: only on PostgreSQL

    return StoredUsers(db_path)
