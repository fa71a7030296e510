"""`judgeboard align`: the judge workbench in a shell (docs/judge-qa.md; the Judge lab page).

    judgeboard align split --rubric likert-rag --dataset eo-rag --seed 0 --test-fraction 0.5
    judgeboard align show --rubric likert-rag --dataset eo-rag --judge baseline   # dev only
    judgeboard align export --rubric likert-rag --version 1 > edit.toml
    judgeboard align edit --rubric likert-rag --from edit.toml --author ana --note "why"
    judgeboard align run --rubric likert-rag --version 1-wb1 --dataset eo-rag --panel offline
    judgeboard align compare --rubric likert-rag --dataset eo-rag --judge baseline --version 1-wb1
    judgeboard align adopt --rubric likert-rag --dataset eo-rag --judge baseline \\
        --version 1-wb1 --by ana --reason "kappa up on test"
    judgeboard align card --rubric likert-rag
    judgeboard align propose --rubric likert-rag --dataset eo-rag --judge baseline \\
        --optimizer openai/gpt-4o --proposals 3 --panel offline      # dev only, no look
    judgeboard align search-shots --rubric likert-rag --dataset eo-rag --judge baseline \\
        --panel offline --sets 4 --shots 3 --seed 0                  # dev only, no look

Dev labels are for looking (`show`, few-shot examples); test labels only give a number.
`compare`, `scores --split test` and `adopt` score the test split, and each such look is
recorded: `show` says how many were spent on each judge since that judge's last adoption.
`propose` (an optimizer model, a paid call, cached) and `search-shots` save draft versions
scored on dev only: compare the one you pick on test.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dashboard.cli import align_propose
from dashboard.cli.common import CommandError, open_store

SUBCOMMANDS = (
    "split",
    "show",
    "export",
    "edit",
    "run",
    "scores",
    "compare",
    "adopt",
    "card",
    "propose",
    "search-shots",
)


def _add(sub: Any, name: str, text: str, *, dataset: bool = True) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=text, description=text)
    parser.add_argument("--rubric", required=True, metavar="NAME", help="rubric name")
    if dataset:
        parser.add_argument("--dataset", required=True, metavar="D", help="dataset")
    return parser


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "align",
        help="the judge workbench: split, edit, run, compare and adopt rubric versions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="align_command", required=True, metavar="STEP")
    p = _add(sub, "split", "make (or show) the seeded, stratified dev/test split of labels")
    p.add_argument("--seed", type=int, default=None, help="make a new split with this seed")
    p.add_argument("--test-fraction", type=float, default=0.5, help="share held out (0.5)")
    p.add_argument("--by", default=None, help="who makes the split")
    p = _add(sub, "show", "the split, the versions, the looks spent and dev disagreements")
    p.add_argument("--judge", help="list this judge's dev disagreements, worst first")
    p.add_argument("--version", help="at this version (default: the one in force)")
    p.add_argument("--limit", type=int, default=10, help="disagreements shown (10)")
    p = _add(sub, "export", "print a version as a rubric TOML file", dataset=False)
    p.add_argument("--version", required=True)
    p = _add(sub, "edit", "save an edited TOML file as a new version of its parent", dataset=False)
    p.add_argument("--from", dest="path", required=True, metavar="FILE", help="edited TOML")
    p.add_argument("--author", default=None)
    p.add_argument("--note", default=None, help="why this edit")
    p = _add(sub, "run", "run a version on the labelled answers only (plan first, cached)")
    p.add_argument("--version", required=True)
    p.add_argument("--panel", required=True, help="panel file name or LiteLLM model strings")
    p.add_argument("--plan-only", action="store_true", help="show the plan and stop")
    p.add_argument(
        "--every-answer",
        action="store_true",
        help="judge every answer of the dataset, not only the labelled ones (after adoption)",
    )
    p.add_argument("--api-base", default=None, metavar="URL", help="endpoint of the judges")
    p.add_argument("--api-key-env", default=None, metavar="VAR", help="variable with the key")
    p = _add(sub, "scores", "each version's agreement with people on a side of the split")
    p.add_argument("--judge", required=True)
    p.add_argument("--split", choices=("dev", "test"), default="dev")
    p = _add(sub, "compare", "a version against the adopted one on test, paired (one look)")
    p.add_argument("--judge", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--baseline", default=None, help="default: the version in force")
    p = _add(sub, "adopt", "adopt a version for the panel; its test numbers become the card")
    p.add_argument("--judge", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--by", required=True, help="who adopts it")
    p.add_argument("--reason", required=True, help="why")
    _add(
        sub,
        "card",
        "the judge cards: adopted versions' test agreement, fresh or stale",
        dataset=False,
    )
    align_propose.add_parsers(sub, _add)
    parser.set_defaults(handler=run)


def _ci(value: float, low: float, high: float, n: int) -> str:
    if math.isnan(value):
        return f"—  (n = {n})"
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}] (n = {n})"


def _split(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import split

    if args.seed is None:
        found = split.record_split(store, rubric=args.rubric, dataset=args.dataset)
    else:
        found = split.make_split(
            store,
            rubric=args.rubric,
            dataset=args.dataset,
            seed=args.seed,
            test_fraction=args.test_fraction,
            by=args.by,
        )
    print(
        f"split of {args.rubric} on {args.dataset}: seed {found.seed}, test fraction "
        f"{found.test_fraction:g}: {found.counts}"
    )


def _show(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import lab

    state = lab.state(store, rubric=args.rubric, dataset=args.dataset)
    made = "recorded" if state.split.recorded else "not recorded yet (the default shown)"
    print(f"split: seed {state.split.seed}, {state.split.counts}, {made}")
    for v in state.versions:
        origin = "file" if v.from_file else f"from {v.parent}, by {v.author or '?'}"
        print(f"version {v.version} ({origin}; prompt {v.prompt_hash})")
    for card in state.cards:
        print(f"in force for {card.judge}: {card.version}, adopted by {card.adopted_by}")
    print(f"in force for every other judge: {state.versions[0].version} (the file's)")
    for judge in sorted(set(state.judges) | set(state.looks)):
        print(f"test split looks since the last adoption of {judge}: {state.looks_of(judge)}")
    if args.judge:
        version = args.version or state.in_force(args.judge)
        found = lab.dev_disagreements(
            store, rubric=args.rubric, dataset=args.dataset, judge=args.judge, version=version
        )
        print(f"dev disagreements of {args.judge} at {version}: {len(found)}, worst first")
        for d in found[: args.limit]:
            print(
                f"- {d.response_id} ({d.system}) judge {d.judge_value:g}, {d.person} "
                f"{d.person_value:g}: {d.question[:70]}"
            )


def _edit(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import lab, versions

    text = Path(args.path).read_text(encoding="utf-8")
    changes, examples, parent = versions.changes_from_toml(text)
    root = versions.list_versions(store, args.rubric)[0].rubric
    allowed = [
        i
        for d in store.dataset_names()
        for i in lab.dev_label_ids(store, rubric=root.name, dataset=d)
    ]
    saved = versions.save_version(
        store,
        args.rubric,
        parent=str(parent),
        changes=changes,
        example_ids=examples,
        allowed_examples=allowed,
        author=args.author,
        note=args.note,
    )
    print(
        f"saved {args.rubric} version {saved.version} (parent {saved.parent}, prompt "
        f"{saved.prompt_hash})"
    )
    print(versions.diff(store, args.rubric, saved.version) or "(no change to the parent)")


def _run(store: Any, args: argparse.Namespace) -> int:
    from dashboard import judging
    from dashboard.workbench import run as running, versions

    rubric = versions.get_version(store, args.rubric, args.version).rubric
    overrides = {"api_base": args.api_base, "api_key_env": args.api_key_env}
    panel = judging.load_panel(args.panel, overrides=overrides)
    plan = running.plan_version(
        store, judges=panel, rubric=rubric, dataset=args.dataset, every_answer=args.every_answer
    )
    for line in judging.plan_lines(plan):
        print(line)
    if args.plan_only or plan.n_targets == 0:
        return 0
    summary = running.run_version(store, plan)
    for line in judging.summary_lines(summary):
        print(judging.scrub_secrets(line))
    return 1 if summary.failures else 0


def _scores(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import lab

    found = lab.score_on(
        store, rubric=args.rubric, dataset=args.dataset, judge=args.judge, side=args.split
    )
    for s in found:
        print(f"{s.judge} {s.version} on {s.side} ({s.n_responses} responses):")
        for name in (
            "exact",
            "within_one",
            "kappa_quadratic",
            "alpha_ordinal",
            "spearman",
            "tpr",
            "tnr",
        ):
            e = getattr(s, name)
            print(f"  {name:16} {_ci(e.value, e.low, e.high, e.n)}")


def _compare(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import lab

    c = lab.compare(
        store,
        rubric=args.rubric,
        dataset=args.dataset,
        judge=args.judge,
        candidate=args.version,
        baseline=args.baseline,
    )
    d = c.difference
    print(
        f"{c.judge}: {c.candidate} against {c.baseline} on the test split, paired "
        f"({d.n_units} responses, {d.n_pairs} labels)"
    )
    k, e = d.kappa_quadratic, d.exact
    print(f"  kappa (quadratic) difference {_ci(k.estimate, k.low, k.high, d.n_units)}")
    print(f"  exact agreement difference   {_ci(e.estimate, e.low, e.high, d.n_units)}")
    m = c.mcnemar
    print(
        f"  McNemar: {m.only_a} only {c.candidate} right, {m.only_b} only {c.baseline} "
        f"right, p = {m.p_value:.3g}"
    )
    print(f"verdict: {c.verdict}")


def _adopt(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import lab

    card = lab.adopt(
        store,
        rubric=args.rubric,
        dataset=args.dataset,
        judge=args.judge,
        version=args.version,
        by=args.by,
        reason=args.reason,
    )
    print(
        f"adopted {args.rubric} {card.version} for {card.judge} on {card.dataset} "
        f"(model {card.model}, prompt {card.prompt_hash})"
    )


def _card(store: Any, args: argparse.Namespace) -> None:
    from dashboard.workbench import cards

    found = cards.judge_cards(store, rubric=args.rubric)
    if not found:
        print(f"no version of {args.rubric} adopted yet: `judgeboard align adopt`")
    for c in found:
        state = "STALE: " + "; ".join(c.stale_reasons) if c.stale else "fresh"
        print(f"{c.judge} / {c.rubric} {c.version} on {c.dataset}: {state}")
        print(
            f"  bound to model {c.model} (version {c.model_version or 'not reported'}), "
            f"prompt {c.prompt_hash}, {c.n_labels} labelled responses"
        )
        for name, n in c.numbers.items():
            nan = math.nan
            value, low, high = (nan if n[k] is None else n[k] for k in ("value", "low", "high"))
            print(f"  {name:16} {_ci(value, low, high, int(n['n']))}")


STEPS: dict[str, Callable[[Any, argparse.Namespace], Any]] = {
    "split": _split,
    "show": _show,
    "edit": _edit,
    "run": _run,
    "scores": _scores,
    "compare": _compare,
    "adopt": _adopt,
    "card": _card,
    "propose": align_propose.propose,
    "search-shots": align_propose.search_shots,
}


def run(args: argparse.Namespace) -> int:
    from dashboard.judging import PanelError, PlanError, RubricError
    from dashboard.workbench import versions

    store = open_store(args)
    try:
        if args.align_command == "export":
            found = versions.get_version(store, args.rubric, args.version)
            print(versions.to_toml(found.rubric, parent=found.parent), end="")
            return 0
        return int(STEPS[args.align_command](store, args) or 0)
    except (RubricError, PanelError, PlanError, ValueError, OSError) as error:
        raise CommandError(str(error)) from None
