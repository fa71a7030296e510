"""`judgeboard score`: score every answer against its references (EM/F1, MCQA, hallucination
verdicts) where that is not done yet: after `judgeboard import --no-score`, after responses
were added by code, or once the scoring rules changed. An import does it by itself."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dashboard.cli.common import open_store, require_dataset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score answers against their references where not done yet",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--dataset", metavar="D", help="one dataset (default: all)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dashboard.metrics.reference import refresh_auto_scores

    store = open_store(args)
    require_dataset(store, args.dataset)
    with tqdm(
        desc="scoring answers against references",
        unit=" responses",
        file=sys.stderr,
        leave=False,
        disable=args.no_progress,
    ) as bar:

        def advance(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        scored = refresh_auto_scores(store, dataset=args.dataset, on_progress=advance)
    print(
        f"scored {scored} responses against their references"
        if scored
        else "every answer is already scored against its references"
    )
    return 0
