"""What every `judgeboard` subcommand shares: the error it reports as one line, the store named
by --db, and the checks that a --dataset and a --rubric exist."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from dashboard.settings import resolve_db_path
from dashboard.store import Store, StoreBusy

if TYPE_CHECKING:
    from dashboard.metrics.output import MetricsRequest


class CommandError(Exception):
    """A failure to report to the user as one clear line, with exit status `status`."""

    def __init__(self, message: str, *, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def open_store(args: argparse.Namespace) -> Store:
    """The store named by --db / JUDGEBOARD_DB, waiting --wait seconds on a busy file."""
    return Store(resolve_db_path(args.db), wait_s=args.wait)


def require_dataset(store: Store, name: str | None) -> None:
    """A misspelt --dataset is an error, not an empty result that passes every gate."""
    if name is None:
        return
    known = [d.name for d in store.list_datasets()]
    if name not in known:
        raise CommandError(f"no dataset named {name!r} (datasets: {', '.join(known) or 'none'})")


def require_rubric(store: Store, name: str | None) -> None:
    """A misspelt --rubric is an error naming the closest rubrics, as for --dataset."""
    from dashboard.metrics.choices import UnknownChoice, require_rubric

    try:
        require_rubric(store, name)
    except UnknownChoice as error:
        raise CommandError(str(error)) from None


def require_field(store: Store, dataset: str | None, field: str | None) -> None:
    """A --by field that no item of the dataset has is an error listing the fields there."""
    if field is None:
        return
    from dashboard.metrics.choices import UnknownChoice, require_field
    from dashboard.metrics.selection import Selection

    try:
        require_field(store, Selection(dataset), field)
    except UnknownChoice as error:
        raise CommandError(str(error)) from None


def require_panel(store: Store, name: str | None) -> None:
    """A misspelt --panel is an error naming the panels and the judges."""
    from dashboard.metrics.choices import UnknownChoice
    from dashboard.metrics.panels import require_panel

    try:
        require_panel(store, name)
    except UnknownChoice as error:
        raise CommandError(str(error)) from None


def metrics_request(store: Store, args: argparse.Namespace) -> MetricsRequest:
    """The numbers `judgeboard metrics` and `judgeboard report` are asked for (--dataset,
    --rubric, --panel, --pool-raters, --by, --cluster and, for metrics, --target-half-width),
    each name checked against the store."""
    from dashboard.metrics.output import MetricsRequest

    require_dataset(store, args.dataset)
    require_rubric(store, args.rubric)
    require_field(store, args.dataset, args.by)
    require_field(store, args.dataset, args.cluster)
    require_panel(store, args.panel)
    target = getattr(args, "target_half_width", None)
    if target is not None and not target > 0:
        raise CommandError(f"--target-half-width must be > 0, got {target:g}")
    return MetricsRequest(
        dataset=args.dataset,
        rubric=args.rubric,
        panel=args.panel,
        pool_raters=args.pool_raters,
        by=args.by,
        cluster=args.cluster,
        **({} if target is None else {"target_half_width": target}),
        human_reference=getattr(args, "human_reference", None) or "all_labels",
    )


def add_panel_option(parser: argparse.ArgumentParser) -> None:
    """--panel and --cluster of the commands that compute metrics (metrics, report)."""
    parser.add_argument(
        "--panel",
        metavar="NAME",
        help="the panel whose judges make the panel's numbers: a panel file's name "
        "(data/panels/), JUDGE,JUDGE…, or all-judges (default: the panel file whose judges "
        "gave the most ratings of the rubric, else all-judges); other judges keep their own "
        "columns",
    )
    parser.add_argument(
        "--human-reference",
        dest="human_reference",
        choices=("all_labels", "adjudicated"),
        default="all_labels",
        help="calibration compares judges with every person's label (all_labels, the "
        "default) or, where a reviewer adjudicated an answer, with the adjudicated label "
        "(adjudicated); named in the JSON as selection.human_reference",
    )
    parser.add_argument(
        "--cluster",
        metavar="FIELD",
        help="the paired comparisons resample the items by this item field (default: each "
        "item, the conversation for conversational QA)",
    )


def add_rubric_option(parser: argparse.ArgumentParser) -> None:
    """--rubric of the commands that compute metrics (metrics, report)."""
    parser.add_argument(
        "--rubric",
        metavar="NAME",
        help="only this rubric's ratings and pairwise verdicts count (default: the ratings "
        "of the rubric with the most ratings, and the pairwise verdicts of every rubric)",
    )


def add_pool_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pool-raters",
        dest="pool_raters",
        action="store_true",
        help="also report win rates and Bradley–Terry ratings pooled over people and judges "
        "(systems.<system>.win_rate, .bradley_terry; by default they are per rater kind and "
        "per judge only)",
    )


def add_by_option(parser: argparse.ArgumentParser, *, what: str) -> None:
    parser.add_argument(
        "--by",
        metavar="FIELD",
        help=f"{what} again for each value of an item field: dataset, task_type or a key of "
        "the items' metadata (category, turn, ...)",
    )


__all__ = [
    "CommandError",
    "StoreBusy",
    "add_by_option",
    "add_panel_option",
    "add_pool_option",
    "add_rubric_option",
    "metrics_request",
    "open_store",
    "require_dataset",
    "require_field",
    "require_panel",
    "require_rubric",
]
