"""`judgeboard align propose` and `judgeboard align search-shots`: new draft versions from
the dev split only, each with its dev numbers (interval and n). No look at the test split is
spent: compare the one you pick with `judgeboard align compare` (one recorded look).

    judgeboard align propose --rubric likert-rag --dataset eo-rag --judge baseline \\
        --optimizer openai/gpt-4o --proposals 3 --panel offline
    judgeboard align search-shots --rubric likert-rag --dataset eo-rag --judge baseline \\
        --panel offline --sets 4 --shots 3 --seed 0
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dashboard.workbench.agreement import VersionScore

DEV_NUMBERS = ("exact", "within_one", "kappa_quadratic")


def _judge_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", required=True, help="the judge (rater name) whose ratings are read")
    p.add_argument("--version", default=None, help="parent version (default: the one in force)")
    p.add_argument(
        "--panel",
        default=None,
        help="panel file name or LiteLLM model strings that run the judge on the dev answers "
        "(without it, proposals are saved but not scored)",
    )
    p.add_argument("--judge-api-base", default=None, metavar="URL", help="endpoint of the panel")
    p.add_argument("--judge-key-env", default=None, metavar="VAR", help="the panel's key variable")


def add_parsers(sub: Any, add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add(
        sub,
        "propose",
        "an optimizer model reads the dev disagreements and proposes revised instructions, "
        "each saved as a draft version and scored on dev only (no look at test)",
    )
    _judge_options(p)
    p.add_argument("--optimizer", required=True, metavar="MODEL", help="LiteLLM model string")
    p.add_argument("--api-base", default=None, metavar="URL", help="endpoint of the optimizer")
    p.add_argument("--key-env", default=None, metavar="VAR", help="the optimizer's key variable")
    p.add_argument("--proposals", type=int, default=3, metavar="N", help="how many (3)")
    p = add(
        sub,
        "search-shots",
        "seeded few-shot sets from dev labels, each a draft version scored on dev (no look)",
    )
    _judge_options(p)
    p.add_argument("--sets", type=int, default=4, help="candidate sets (4)")
    p.add_argument("--shots", type=int, default=3, help="examples per set (3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draw (0)")


def _ci(e: Any) -> str:
    if math.isnan(e.value):
        return f"— (n = {e.n})"
    return f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}] (n = {e.n})"


def _dev_line(score: VersionScore | None) -> str:
    if score is None:
        return "  dev: not scored"
    parts = [f"{name} {_ci(getattr(score, name))}" for name in DEV_NUMBERS]
    return f"  dev ({score.n_responses} responses): " + "; ".join(parts)


def _panel(args: argparse.Namespace) -> Any:
    from dashboard import judging

    if not args.panel:
        return None
    overrides = {"api_base": args.judge_api_base, "api_key_env": args.judge_key_env}
    return judging.load_panel(args.panel, overrides=overrides)


def _parent(store: Any, args: argparse.Namespace) -> str:
    from dashboard.workbench import lab

    return args.version or lab.baseline_version(
        store, rubric=args.rubric, dataset=args.dataset, judge=args.judge
    )


def propose(store: Any, args: argparse.Namespace) -> int:
    from dashboard.workbench import propose as proposing

    parent = _parent(store, args)
    found = proposing.propose_instructions(
        store,
        rubric=args.rubric,
        dataset=args.dataset,
        judge=args.judge,
        version=parent,
        optimizer_model=args.optimizer,
        n_proposals=args.proposals,
        api_base=args.api_base,
        api_key_env=args.key_env,
    )
    reply = found.reply
    cost = "cached, no cost" if reply.cached else f"cost {_usd(reply.cost_usd)}"
    print(
        f"{found.optimizer} read {min(found.n_disagreements, proposing.MAX_DISAGREEMENTS)} of "
        f"{found.n_disagreements} dev disagreements of {args.judge} at {parent} ({cost})"
    )
    names = [p.version.version for p in found.proposals]
    panel = _panel(args)
    scores: dict[str, VersionScore] = {}
    if panel is not None and names:
        found_scores = proposing.score_on_dev(
            store,
            rubric=args.rubric,
            dataset=args.dataset,
            judge=args.judge,
            judges=panel,
            version_names=[parent, *names],
        )
        scores = {s.version: s for s in found_scores}
        print(f"parent {parent}:")
        print(_dev_line(scores.get(parent)))
    for p in found.proposals:
        print(f"proposal {p.version.version} (prompt {p.version.prompt_hash}): {p.rationale}")
        print(_dev_line(scores.get(p.version.version)))
    for u in found.unparsed:
        print(f"unparsed: {u.reason}")
    if names:
        print(
            "Scored on dev only. For the one you pick: judgeboard align run --version VERSION "
            "(the test answers' calls), then judgeboard align compare (one recorded look)"
        )
    return 0 if found.proposals else 1


def _usd(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:.4f}"


def search_shots(store: Any, args: argparse.Namespace) -> int:
    from dashboard.cli.common import CommandError
    from dashboard.workbench import shots

    panel = _panel(args)
    if panel is None:
        raise CommandError("search-shots runs the judge on dev: name it with --panel")
    found = shots.search_few_shot(
        store,
        rubric=args.rubric,
        dataset=args.dataset,
        judge=args.judge,
        judges=panel,
        version=_parent(store, args),
        n_sets=args.sets,
        k=args.shots,
        seed=args.seed,
    )
    print(f"{len(found)} few-shot sets on dev, best first:")
    for s in found:
        print(f"version {s.version.version}: examples {', '.join(s.example_ids)}")
        print(_dev_line(s.dev))
    return 0
