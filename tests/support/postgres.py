"""A real PostgreSQL server for the tests: Debian's PostgreSQL 15, started in a temporary folder
on a free port of 127.0.0.1 and stopped by its PID.

`initdb` refuses to run as root, so as root the server runs as the `postgres` user (on a folder
that user owns, inside folders it can traverse); otherwise as the current user. Every test gets
a database of its own, created from a template that is already migrated (and one holding the
bundled sample), which takes a few milliseconds.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

BIN_DIRS = [Path("/usr/lib/postgresql/15/bin"), *sorted(Path("/usr/lib/postgresql").glob("*/bin"))]
USER = "postgres"


def _bin(name: str) -> str:
    for folder in BIN_DIRS:
        if (folder / name).exists():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(
            f"PostgreSQL's {name} is missing: install Debian's postgresql package "
            "(apt-get install postgresql; .ci/run does this)"
        )
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One server; `url(db)` names a database on it, `create(name, template)` makes one."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="jb-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self.pid: int | None = None

    def _run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        if self.as_root:
            argv = ["su", USER, "-s", "/bin/sh", "-c", " ".join(map(_quote, argv))]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> PostgresServer:
        if self.as_root:
            shutil.chown(self.root, USER)
        done = self._run([_bin("initdb"), "-A", "trust", "-U", USER, "-D", str(self.data)])
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
        options = f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=200"
        done = self._run(
            [_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
             "-w", "start"]
        )  # fmt: skip
        if done.returncode:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {done.stderr.strip()} {log[-500:]}")
        self.pid = int((self.data / "postmaster.pid").read_text().split()[0])
        return self

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as con:
            con.execute(statement)  # type: ignore[arg-type]

    def create(self, template: str | None = None) -> str:
        """A new empty database (or a copy of `template`); its URL."""
        name = "t_" + uuid.uuid4().hex[:12]
        suffix = f" TEMPLATE {template}" if template else ""
        for attempt in range(20):
            try:
                self.sql(f"CREATE DATABASE {name}{suffix}")
                break
            except Exception as error:  # the template is in use for a moment by a closing client
                if "is being accessed by other users" not in str(error) or attempt == 19:
                    raise
                time.sleep(0.1)
        return self.url(name)

    def stop(self) -> None:
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGINT)  # fast shutdown
                for _ in range(100):
                    os.kill(self.pid, 0)
                    time.sleep(0.05)
            except ProcessLookupError:
                pass
            self.pid = None
        shutil.rmtree(self.root, ignore_errors=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"
