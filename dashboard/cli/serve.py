"""`judgeboard serve`: the dashboard on 127.0.0.1, with the bundled sample on first start."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dashboard.cli.common import open_store
from dashboard.settings import DB_ENV, app_script
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
        "--no-sample",
        action="store_true",
        help="leave an empty database empty instead of loading the sample",
    )
    parser.set_defaults(handler=run)


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
    store = open_store(args)
    if not args.no_sample:
        from dashboard.ingest.sample import ensure_sample

        for line in ensure_sample(store):
            print(line, flush=True)
    _score_references(store)
    print(f"judgeboard: serving {store.path} on http://{args.address}:{args.port}", flush=True)
    env = {**os.environ, DB_ENV: str(store.path)}
    # Replace this process, so that the PID `make run` started is the server's own.
    os.execve(sys.executable, streamlit_command(address=args.address, port=args.port), env)
