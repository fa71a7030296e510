"""`judgeboard datasets`: list the datasets with their counts; `--delete NAME` removes one;
`--reference-rule DATASET=RULE` chooses how a dataset's EM and F1 combine several references."""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import CommandError, open_store
from dashboard.store import Store

RULE_CHOICES = "max, leave-one-out or default"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("datasets", help="list datasets, or delete one")
    parser.add_argument("--delete", metavar="NAME", help="delete this dataset and its ratings")
    parser.add_argument(
        "--reference-rule",
        dest="rules",
        action="append",
        default=[],
        metavar="DATASET=RULE",
        help="how the dataset's EM and F1 combine several references: max (SQuAD, NQ-open), "
        "leave-one-out (CoQA, TopiOCQA) or default (the task's); rescores them at once",
    )
    parser.set_defaults(handler=run)


def _set_rules(store: Store, pairs: list[str]) -> None:
    from dashboard.metrics.reference import RuleError, set_reference_rule

    for pair in pairs:
        dataset, sep, rule = pair.partition("=")
        if not sep or not dataset or not rule:
            raise CommandError(
                f"--reference-rule takes DATASET=RULE ({RULE_CHOICES}), got {pair!r}"
            )
        try:
            scored = set_reference_rule(store, dataset, rule)
        except RuleError as error:
            raise CommandError(f"{error}; nothing was changed") from None
        print(f"{dataset}: EM and F1 by {rule}; rescored {scored} responses")


def run(args: argparse.Namespace) -> int:
    store = open_store(args)
    if args.rules:
        _set_rules(store, args.rules)
        return 0
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
        print(f"no datasets in {store.location}; add one with `judgeboard import PATH`")
        return 0
    from dashboard.metrics.reference import reference_rules

    rules = {r.dataset: r for r in reference_rules(store)}
    print(
        f"{'dataset':<32} {'items':>8} {'responses':>10} {'ratings':>9} {'preferences':>12}"
        "  reference rule (EM/F1)"
    )
    for d in rows:
        rule = rules.get(d.name)
        shown = f"{rule.rule} ({'chosen' if rule.chosen else 'default'})" if rule else "—"
        print(
            f"{d.name:<32} {d.n_items:>8} {d.n_responses:>10} {d.n_ratings:>9} "
            f"{d.n_preferences:>12}  {shown}"
        )
    return 0
