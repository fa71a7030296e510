"""`judgeboard metrics`: the numbers of the Overview and Calibration pages, for pipelines.

    judgeboard metrics --dataset eo-rag --json
    judgeboard metrics --dataset eo-rag --fail-under systems.eo-rag-large.effective=0.7 \\
        --fail-under 'calibration.*.kappa_quadratic=0.4' --fail-over 'calibration.*.bias=0.5'

Exit status: 0 when every gate holds, 1 when a metric fails one (or has no value), 2 for a bad
option or an unknown metric name.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dashboard.cli.common import CommandError, open_store, require_dataset
from dashboard.metrics import registry
from dashboard.metrics.gates import OVER, UNDER, Gate, GateError, failures, parse_gate

FAILED_STATUS = 1


def names_help() -> str:
    """The metric names, from their declarations (the table of docs/metrics.md)."""
    width = max(len(m.name) for m in registry.ALL_METRICS)
    lines = ["metric names (see docs/metrics.md); each is {value, low, high, n}:"]
    for m in registry.ALL_METRICS:
        better = f" ({m.better} is better)" if m.better else ""
        lines.append(f"  {m.name:<{width}}  {m.label}{better}")
    lines.append(
        "A NAME may use * and ? (shell-style): every metric it matches must pass. A NAME "
        "ending in .low, .high or .n gates that part of the metric."
    )
    return "\n".join(lines)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="print the Overview's and Calibration's numbers; gate a pipeline",
        description=__doc__.split("\n\n")[0],
        epilog=names_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", metavar="D", help="one dataset (default: all)")
    parser.add_argument(
        "--rubric",
        metavar="NAME",
        help="rubric of the scores (default: the one with the most ratings)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    parser.add_argument(
        "--fail-under",
        dest="fail_under",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="exit 1 when the metric is below VALUE (repeatable)",
    )
    parser.add_argument(
        "--fail-over",
        dest="fail_over",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="exit 1 when the metric is above VALUE, for lower-is-better metrics such as a "
        "flip rate or a bias (repeatable)",
    )
    parser.set_defaults(handler=run)


def gates_of(args: argparse.Namespace) -> list[Gate]:
    try:
        return [parse_gate(t, direction=UNDER) for t in args.fail_under] + [
            parse_gate(t, direction=OVER) for t in args.fail_over
        ]
    except GateError as error:
        raise CommandError(str(error)) from None


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def table_lines(data: dict[str, Any]) -> list[str]:
    selection = data["selection"]
    lines = [f"dataset: {selection['dataset'] or 'all'}   rubric: {selection['rubric'] or '—'}"]
    width = max((len(n) for n in data["metrics"]), default=10)
    lines.append(f"{'metric':<{width}}  {'value':>9}  {'95% interval':>21}  {'n':>6}")
    for name, m in data["metrics"].items():
        interval = (
            f"[{_fmt(m['low'])}, {_fmt(m['high'])}]"
            if m["low"] is not None and m["high"] is not None
            else ""
        )
        n = "" if m["n"] is None else str(m["n"])
        lines.append(f"{name:<{width}}  {_fmt(m['value']):>9}  {interval:>21}  {n:>6}")
    return lines


def run(args: argparse.Namespace) -> int:
    from dashboard.metrics import metrics_json
    from dashboard.metrics.selection import Selection

    gates = gates_of(args)
    store = open_store(args)
    require_dataset(store, args.dataset)
    _, _, data = metrics_json.compute(store, Selection(args.dataset, args.rubric))
    try:
        failed = failures(data["metrics"], gates)  # an unknown name fails before any output
    except GateError as error:
        raise CommandError(str(error)) from None
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(table_lines(data)))
    for message in failed:
        print(f"judgeboard metrics: FAIL {message}", file=sys.stderr)
    return FAILED_STATUS if failed else 0
