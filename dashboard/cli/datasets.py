"""`judgeboard datasets`: list the datasets with their counts; `--delete NAME` removes one."""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import CommandError, open_store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("datasets", help="list datasets, or delete one")
    parser.add_argument("--delete", metavar="NAME", help="delete this dataset and its ratings")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = open_store(args)
    if args.delete:
        known = store.dataset_names()
        if args.delete not in known:
            # A misspelt name must not look like a deletion that worked.
            raise CommandError(
                f"no dataset named {args.delete!r} (datasets: "
                f"{', '.join(known) or 'none'}); nothing was deleted"
            )
        store.delete_dataset(args.delete)
        print(f"deleted dataset {args.delete!r}")
        return 0
    rows = store.list_datasets()
    if not rows:
        print(f"no datasets in {store.path}; add one with `judgeboard import PATH`")
        return 0
    print(f"{'dataset':<32} {'items':>8} {'responses':>10} {'ratings':>9} {'preferences':>12}")
    for d in rows:
        print(
            f"{d.name:<32} {d.n_items:>8} {d.n_responses:>10} {d.n_ratings:>9} "
            f"{d.n_preferences:>12}"
        )
    return 0
