"""`judgeboard metrics`: the numbers of the Overview and Calibration pages, for pipelines.

    judgeboard metrics --dataset eo-rag --json
    judgeboard metrics --dataset eo-rag --fail-under systems.eo-rag-large.effective=0.7 \\
        --fail-under 'calibration.*.kappa_quadratic=0.4' --fail-over 'calibration.*.bias=0.5'
    judgeboard metrics --dataset mt-bench --by category \\
        --fail-under 'by.category=*.systems.gpt-4.win_rate.judges=0.5'

Exit status: 0 when every gate holds, 1 when a metric fails one (or has no value), 2 for a bad
option or an unknown metric name.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dashboard.cli.common import (
    CommandError,
    add_by_option,
    add_panel_option,
    add_pool_option,
    add_rubric_option,
    metrics_request,
    open_store,
)
from dashboard.metrics import registry
from dashboard.metrics.output import OVER, PARTS, UNDER, Gate, GateError, failures, parse_gate

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
        "ending in .low, .high or .n gates that part of the metric. With --by FIELD, every "
        "metric is also named per slice: by.FIELD=VALUE.NAME."
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
    add_rubric_option(parser)
    add_pool_option(parser)
    add_by_option(parser, what="every metric")
    add_panel_option(parser)
    parser.add_argument(
        "--target-half-width",
        dest="target_half_width",
        type=float,
        default=0.05,
        metavar="W",
        help="systems.<system>.labels_needed counts the random labels that bring the "
        "corrected score's 95%% half-width to W (default 0.05)",
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


# The pooled standings' names (the names of win rates and Bradley–Terry ratings before they
# were per rater kind) exist only with --pool-raters.
_POOLED = tuple(m for m in registry.ALL_METRICS if m.name.endswith((".win_rate", ".bradley_terry")))


def _gate_error(error: GateError, gates: list[Gate], *, pooled: bool) -> CommandError:
    """The gate's error, saying where the pooled names went when a gate names one."""
    names = [g.pattern for g in gates] + [
        stem
        for g in gates
        if (parts := g.pattern.rpartition("."))[2] in PARTS
        for stem in parts[:1]
    ]
    if pooled or not any(registry.declared(n) in _POOLED for n in names):
        return CommandError(str(error))
    return CommandError(
        f"{error}; win rates and Bradley–Terry ratings are named per rater kind (.judges, "
        ".people) and per judge (.judge.NAME): the names pooled over people and judges "
        "exist only with --pool-raters"
    )


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
    lines = [
        f"dataset: {selection['dataset'] or 'all'}   rubric: {selection['rubric'] or '—'}   "
        f"panel: {selection['panel'] or '—'}"
    ]
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
    notes = [d["note"] for d in data["notes"]["rank_disagreements"]]
    for piece in data.get("by", {}).get("slices", []):
        notes += [f"{piece['prefix']} {d['note']}" for d in piece["notes"]["rank_disagreements"]]
    lines += [f"note: {note}" for note in notes]
    lines += [f"corrected: {note}" for note in data["notes"].get("corrected", [])]
    compare = data["notes"].get("compare") or {}
    if compare.get("survive_holm") is not None:
        survive = ", ".join(compare["survive_holm"]) or "none"
        lines.append(f"compare: differences that survive Holm's correction: {survive}")
    return lines


def run(args: argparse.Namespace) -> int:
    from dashboard.metrics import output

    gates = gates_of(args)
    store = open_store(args)
    data = output.numbers(store, metrics_request(store, args)).json
    try:
        failed = failures(data["metrics"], gates)  # an unknown name fails before any output
    except GateError as error:
        raise _gate_error(error, gates, pooled=args.pool_raters) from None
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(table_lines(data)))
    for message in failed:
        print(f"judgeboard metrics: FAIL {message}", file=sys.stderr)
    return FAILED_STATUS if failed else 0
