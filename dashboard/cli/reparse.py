"""`judgeboard reparse`: read unscored judge outputs again, without calling any model.

A judge output that did not parse is stored unscored, with its raw text. After a parser fix,
this command writes a new rating (or verdict) for every such output that now parses; the new
row supersedes the unscored one. Outputs that still do not parse stay unscored.
"""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import open_store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "reparse",
        help="re-read unscored judge outputs (no model calls)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--rubric", metavar="NAME", help="only this rubric")
    parser.add_argument("--judge", metavar="NAME", help="only this judge (the rater name)")
    parser.add_argument("--dataset", metavar="D", help="only this dataset")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dashboard.judging import reparse

    result = reparse(open_store(args), rubric=args.rubric, judge=args.judge, dataset=args.dataset)
    print(f"ratings: {result.ratings_checked} unscored, {result.ratings_rescued} now parsed")
    print(
        f"preferences: {result.preferences_checked} unscored, "
        f"{result.preferences_rescued} now parsed"
    )
    return 0
