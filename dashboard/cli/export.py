"""`judgeboard export`: every item, response, rating and preference (CSV, JSONL, Parquet).

judgeboard export --out results.parquet
-> results.ratings.parquet and results.preferences.parquet, which `judgeboard import`
   reads back with no options, one file at a time in either order, or as a folder.
"""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import CommandError, open_store, require_dataset, require_rubric

EPILOG = (
    "Two files go beside FILE, named FILE's name with .ratings and .preferences before the "
    "suffix. The ratings file holds every item and response: a row per rating (current and "
    "superseded), a row with the rating fields empty per response nobody rated, and a row "
    "with the response fields empty too per item without responses. The preferences file "
    "holds a row per preference. Each row has is_current (false once superseded), "
    "created_utc, rubric_version, rater_kind, rater and the ids; ratings carry the "
    "response's effective_score (0-1). `judgeboard import` reads either file back with no "
    "options (or the folder holding both) and rebuilds the same items, responses, ratings, "
    "preferences and metrics; judge calls are not exported."
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write every item, response, rating and preference, with provenance, "
        "to CSV, JSONL or Parquet",
        description=__doc__.split("\n\n")[0],
        epilog=EPILOG,
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE.{csv,jsonl,parquet}",
        help="the format follows the suffix",
    )
    parser.add_argument("--dataset", metavar="D", help="one dataset (default: all)")
    parser.add_argument(
        "--rubric",
        metavar="NAME",
        help="only this rubric's ratings and preferences (default: every rubric's); every "
        "item and response is still written",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dashboard.export.files import ExportError, export

    store = open_store(args)
    require_dataset(store, args.dataset)
    require_rubric(store, args.rubric)
    try:
        result = export(store, args.out, dataset=args.dataset, rubric=args.rubric)
    except ExportError as error:
        raise CommandError(str(error)) from None
    for kind, n in result.rows.items():
        where = result.files.get(kind)
        unrated = (
            f" ({result.without_rating} of them items or responses nobody rated)"
            if kind == "ratings" and result.without_rating
            else ""
        )
        print(f"{kind}: {n} rows{unrated}" + (f" -> {where}" if where else " (no file written)"))
    return 0
