"""Where things are: the database, and the files the package ships.

The database is `--db PATH` (or a PostgreSQL URL), else `JUDGEBOARD_DB`, else
./judgeboard.duckdb.

The shipped files (rubrics, panels, the sample, the Streamlit pages and the app script) are
package data, found through `importlib.resources`, so an installed wheel finds its own copy and
an editable install finds the repository's. In the repository `dashboard/data` and
`dashboard/app_pages` are symlinks to the top-level `data/` and `pages/` folders. (The pages
are not in `dashboard/pages`: a `pages/` folder next to app.py would turn on Streamlit's legacy
page discovery.)
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

DEFAULT_DB = "judgeboard.duckdb"
DB_ENV = "JUDGEBOARD_DB"
# A folder of the user's own panel files (those saved from the Run judges page go there too).
PANELS_ENV = "JUDGEBOARD_PANELS"


def _seconds(name: str, default: float) -> float:
    """A number of seconds from the environment (the benchmarks set 0 to compare without)."""
    found = os.environ.get(name, "").strip()
    try:
        return max(0.0, float(found)) if found else default
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, not {found!r}") from None


# The dashboard keeps the database open this long after its last unit of work, unless
# another process waits for the file (dashboard/store/waiters.py); 0: open it each time.
KEEP_WARM_S = _seconds("JUDGEBOARD_KEEP_WARM_S", 1.0)


# A PostgreSQL database as the store (dashboard/store/server.py): --db postgresql://USER@HOST/DB.
SERVER_SCHEMES = ("postgresql://", "postgres://")


def is_server_url(location: object) -> bool:
    """True for a PostgreSQL connection URL (`postgresql://…` or `postgres://…`)."""
    return isinstance(location, str) and location.startswith(SERVER_SCHEMES)


def libpq_dsn(url: str) -> str:
    """A store URL as PostgreSQL's clients (libpq, psycopg) take it."""
    return "postgresql://" + url.split("://", 1)[1]


def resolve_db_path(cli_value: str | os.PathLike[str] | None = None) -> Path | str:
    """The database to use: a file's path, or a PostgreSQL URL as given. The flag wins over the
    environment, which wins over the default."""
    chosen = cli_value or os.environ.get(DB_ENV) or DEFAULT_DB
    if is_server_url(chosen):
        return str(chosen)
    return Path(chosen).expanduser().resolve()


def package_dir() -> Path:
    """The installed `dashboard` package's folder, the root of every shipped file."""
    root = resources.files("dashboard")
    if not isinstance(root, Path):
        # Streamlit runs the app and its pages from files, so a zipped install cannot work.
        raise RuntimeError(
            f"judgeboard must be installed as files on disk, not inside an archive ({root}); "
            "reinstall it with `pip install`"
        )
    return root


def data_dir() -> Path:
    """The shipped data: `rubrics/`, `panels/` and `sample/`."""
    return package_dir() / "data"


def rubrics_dir() -> Path:
    """The shipped rubric files (*.toml)."""
    return data_dir() / "rubrics"


def panels_dir() -> Path:
    """The shipped judge panel files (*.toml)."""
    return data_dir() / "panels"


def user_panels_dir() -> Path:
    """Where panel files defined on the Run judges page are saved: $JUDGEBOARD_PANELS, else
    the shipped panels' folder (the repository's data/panels/ in an editable install)."""
    chosen = os.environ.get(PANELS_ENV)
    return Path(chosen).expanduser().resolve() if chosen else panels_dir()


def panel_dirs() -> list[Path]:
    """Where panel names are looked up: the user's folder first, then the shipped files."""
    return list(dict.fromkeys((user_panels_dir(), panels_dir())))


def sample_manifest() -> Path:
    """The bundled sample's manifest; the files it lists are relative to its folder."""
    return data_dir() / "sample" / "manifest.toml"


def pages_dir() -> Path:
    """The Streamlit pages, one file a page."""
    return package_dir() / "app_pages"


def app_script() -> Path:
    """The Streamlit entry script that `judgeboard serve` runs."""
    return package_dir() / "app.py"
