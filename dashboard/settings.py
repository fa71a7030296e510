"""Where the database lives: `--db PATH`, else `JUDGEBOARD_DB`, else ./judgeboard.duckdb."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = "judgeboard.duckdb"
DB_ENV = "JUDGEBOARD_DB"


def resolve_db_path(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The database file to use; the flag wins over the environment, which wins over the default."""
    chosen = cli_value or os.environ.get(DB_ENV) or DEFAULT_DB
    return Path(chosen).expanduser().resolve()
