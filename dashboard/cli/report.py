"""`judgeboard report`: one self-contained HTML file for reviews (opens offline, fetches nothing).

judgeboard report --dataset eo-rag --out report.html
judgeboard report --dataset mt-bench --by category --out report.html
"""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import (
    add_by_option,
    add_panel_option,
    add_pool_option,
    add_rubric_option,
    metrics_request,
    open_store,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write the HTML report (summary, histograms, calibration, pairwise, "
        "worst answers, methods)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--out", required=True, metavar="FILE.html", help="where to write it")
    parser.add_argument("--dataset", metavar="D", help="one dataset (default: all)")
    add_rubric_option(parser)
    add_pool_option(parser)
    add_by_option(parser, what="a section of the numbers")
    add_panel_option(parser)
    parser.add_argument(
        "--worst",
        type=int,
        default=None,
        metavar="N",
        help="how many worst-rated answers to show (default 10)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dashboard.report import DEFAULT_WORST, write_report

    store = open_store(args)
    request = metrics_request(store, args)
    worst = DEFAULT_WORST if args.worst is None else max(0, args.worst)
    path = write_report(store, args.out, request, worst_n=worst)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0
