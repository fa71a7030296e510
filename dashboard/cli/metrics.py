"""`judgeboard metrics`: the numbers of the Overview and Calibration pages, for pipelines.

    judgeboard metrics --dataset eo-rag --json
    judgeboard metrics --dataset eo-rag --fail-under systems.eo-rag-large.effective=0.7 \\
        --fail-under 'calibration.*.kappa_quadratic=0.4'

Exit status: 0 when every --fail-under holds, 1 when a metric falls short (or has no value),
2 for a bad option or an unknown metric name.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import math
import sys
from dataclasses import dataclass
from typing import Any

from dashboard.cli.common import CommandError, open_store, require_dataset

FAILED_STATUS = 1
NAMES_HELP = """metric names (see docs/metrics.md); each is {value, low, high, n}:
  systems.<system>.n_responses | .panel | .panel_skipped | .human | .effective
  systems.<system>.judge.<judge>          a judge's mean, normalized to 0-1
  systems.<system>.win_rate | .bradley_terry
  systems.<system>.em | .f1 | .mcqa_accuracy | .mcqa_iou | .hallucination_f1
  pairwise.<system>.<opponent>.win_rate
  calibration.<judge|panel>.exact | .within_one | .kappa_quadratic | .alpha_ordinal
                           | .spearman | .bias
  calibration.all_raters.alpha_ordinal | calibration.human_labels
  calibration.human_preferences | calibration.people.<a>.<b>.exact | .kappa_quadratic
  calibration.pairwise.<judge>.agreement | .agreement_without_ties | .flip_rate | .unscored
  calibration.people_pairwise.<a>.<b>.exact | .kappa
A NAME in --fail-under may use * and ? (shell-style); every metric it matches must pass."""


@dataclass(frozen=True)
class Threshold:
    pattern: str
    minimum: float


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="print the Overview's and Calibration's numbers; gate a pipeline",
        description=__doc__.split("\n\n")[0],
        epilog=NAMES_HELP,
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
        help="exit 1 when the metric's value is below VALUE (repeatable)",
    )
    parser.set_defaults(handler=run)


def parse_threshold(text: str) -> Threshold:
    name, sep, value = text.rpartition("=")
    try:
        minimum = float(value)
    except ValueError:
        minimum = math.nan
    if not sep or not name.strip() or math.isnan(minimum):
        raise CommandError(
            f"--fail-under {text!r}: expected NAME=NUMBER, e.g. systems.my-rag.effective=0.7"
        )
    return Threshold(name.strip(), minimum)


def _matching(threshold: Threshold, names: list[str]) -> list[str]:
    if any(c in threshold.pattern for c in "*?["):
        found = [n for n in names if fnmatch.fnmatchcase(n, threshold.pattern)]
    else:
        found = [threshold.pattern] if threshold.pattern in names else []
    if not found:
        close = difflib.get_close_matches(threshold.pattern, names, n=5, cutoff=0.5)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise CommandError(
            f"--fail-under: no metric named {threshold.pattern!r}{hint} "
            "(all names: judgeboard metrics --json)"
        )
    return found


def shortfalls(metrics: dict[str, dict[str, Any]], thresholds: list[Threshold]) -> list[str]:
    """One message per metric below its threshold; unknown names raise CommandError."""
    names = sorted(metrics)
    matched = [(t, name) for t in thresholds for name in _matching(t, names)]
    messages = []
    for threshold, name in matched:
        value = metrics[name]["value"]
        if value is None:
            messages.append(
                f"{name} has no value (too little data), needs >= {threshold.minimum:g}"
            )
        elif value < threshold.minimum:
            messages.append(f"{name} = {value:.4g} is under the threshold {threshold.minimum:g}")
    return messages


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

    thresholds = [parse_threshold(t) for t in args.fail_under]
    store = open_store(args)
    require_dataset(store, args.dataset)
    _, _, data = metrics_json.compute(store, Selection(args.dataset, args.rubric))
    failures = shortfalls(data["metrics"], thresholds)  # an unknown name fails before output
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(table_lines(data)))
    for message in failures:
        print(f"judgeboard metrics: FAIL {message}", file=sys.stderr)
    return FAILED_STATUS if failures else 0
