"""`judgeboard serve`: the dashboard on 127.0.0.1, with the bundled sample on first start."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from dashboard.auth import location
from dashboard.cli.common import CommandError, open_store
from dashboard.settings import DB_ENV, app_script, resolve_db_path
from dashboard.store import Store, StoreBusy


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the dashboard (127.0.0.1:8501)")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument(
        "--address",
        default="127.0.0.1",
        help="interface to bind; keep the default unless you mean to share it",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="serve a non-loopback --address even without sign-in (anyone who can reach it "
        "may read and change everything); a warning is printed",
    )
    parser.add_argument(
        "--no-sample",
        action="store_true",
        help="leave an empty database empty instead of loading the sample",
    )
    parser.set_defaults(handler=run)


def sign_in_configured(db_path: Path | str | None = None) -> bool:
    """Whether the dashboard asks people to sign in before they see or change anything: a
    users file for the database (`judgeboard users add`), or an OIDC provider (an `[auth]`
    section in .streamlit/secrets.toml here or in the home folder), as the pages decide."""
    if location.users_of(db_path or resolve_db_path()).exists():
        return True
    for folder in (Path.cwd(), Path.home()):
        try:
            secrets = tomllib.loads((folder / ".streamlit" / "secrets.toml").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if "auth" in secrets:
            return True
    return False


def is_loopback(address: str) -> bool:
    """Whether only this machine can reach an address (127.0.0.0/8, ::1, localhost)."""
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: reachable from wherever it resolves


def address_warning(address: str, port: int, *, db_path: Path | str | None = None) -> str | None:
    """The warning for serving beyond this machine without sign-in; None when safe."""
    if is_loopback(address) or sign_in_configured(db_path):
        return None
    return (
        f"judgeboard serve: warning: {address} can be reached from other machines and the "
        f"dashboard has no sign-in: anyone who can reach port {port} can read every answer "
        "and add or change ratings. Keep the default --address 127.0.0.1 unless everyone on "
        "this network may do that."
    )


def refusal(address: str, port: int) -> str:
    """Why `serve` will not bind a non-loopback address without sign-in (no --insecure)."""
    return (
        f"refusing to serve on {address}:{port} without sign-in: anyone who could reach it "
        "could read every answer and add or change ratings. Add accounts "
        "(`judgeboard users add NAME --role admin`) or configure an OIDC provider, keep "
        "--address 127.0.0.1, or pass --insecure if everyone on this network may do that"
    )


def streamlit_command(*, address: str, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_script()),
        "--server.address",
        address,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        # Streamlit's full garbage collection after every run took ~180 ms on the Annotate
        # page (bench/bench_labelling.py), holding the interpreter while the next answer was
        # on its way; Python's own generational collector still runs.
        "--runner.postScriptGC",
        "false",
    ]


def _score_references(store: Store) -> None:
    """Score what has no reference scores of the current rules (a database from before a rule
    change, an import made with --no-score) before any page reads it."""
    from dashboard.metrics.reference import refresh_auto_scores

    try:
        scored = refresh_auto_scores(store)
    except StoreBusy as error:  # the pages still open; they say what is not scored yet
        print(f"judgeboard: not scoring against references now: {error}", flush=True)
        return
    if scored:
        print(f"judgeboard: scored {scored} answers against their references", flush=True)


def run(args: argparse.Namespace) -> int:
    warning = address_warning(args.address, args.port, db_path=resolve_db_path(args.db))
    if warning and not args.insecure:
        raise CommandError(refusal(args.address, args.port))
    store = open_store(args)
    if not args.no_sample:
        from dashboard.ingest.sample import ensure_sample

        for line in ensure_sample(store):
            print(line, flush=True)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    _score_references(store)
    print(f"judgeboard: serving {store.location} on http://{args.address}:{args.port}", flush=True)
    env = {**os.environ, DB_ENV: store.url}
    # Replace this process, so that the PID `make run` started is the server's own.
    os.execve(sys.executable, streamlit_command(address=args.address, port=args.port), env)
