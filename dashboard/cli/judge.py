"""`judgeboard judge`: run a judge panel over a dataset, with a plan first and a summary last.

    judgeboard judge --panel offline --rubric likert-rag --dataset eo-rag
    judgeboard judge --panel openai/gpt-4o-mini,judgeboard/baseline --rubric pass-fail
    judgeboard judge --panel data/panels/example-multi.toml --rubric pairwise --pairwise A B
    judgeboard judge --panel offline --rubric likert-rag --labelled-only   # people's responses
    judgeboard judge --panel offline --rubric likert-rag --few-shot 5 --few-shot-seed 1
    judgeboard judge --panel openai/gpt-4o-mini --rubric likert-rag --epochs 5 --temperature 1
    judgeboard judge --panel openai/gpt-4o-mini --rubric likert-rag --batch   # half price, ≤ 24 h

Calls already made (same judge settings, same prompt) are never made again; a killed run
resumes where it stopped. Exit status 1 when some calls still failed after their retries.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from dashboard.cli.common import CommandError, open_store

if TYPE_CHECKING:
    from dashboard.judging.panel import Panel

# Flags that override a field of every judge of the panel (flag, field, type, metavar, help);
# a flag not given keeps the panel's value.
OVERRIDES: tuple[tuple[str, str, Any, str, str], ...] = (
    ("--api-base", "api_base", str, "URL", "endpoint, e.g. http://127.0.0.1:8000/v1 for vLLM"),
    ("--api-key-env", "api_key_env", str, "VAR", "environment variable that holds the key"),
    ("--temperature", "temperature", float, "T", "sampling temperature (default 0)"),
    ("--seed", "seed", int, "S", "the request's sampling seed (+ the epoch; default none)"),
    ("--max-tokens", "max_tokens", int, "N", "completion token limit (default 512)"),
    ("--timeout", "timeout_s", float, "S", "seconds per attempt (default 60)"),
    ("--concurrency", "concurrency", int, "N", "requests in flight per judge (default 8)"),
    ("--max-attempts", "max_attempts", int, "N", "attempts per call, retries included (default 4)"),
    ("--input-cost-per-token", "input_cost_per_token", float, "USD", "price of a prompt token"),
    (
        "--output-cost-per-token",
        "output_cost_per_token",
        float,
        "USD",
        "price of a completion token",
    ),
)


# Each worker imports LiteLLM (about 3 s of CPU, the cost of some 700 calls): without
# --workers, a plan gets one more worker per this many calls to make, up to the cores.
CALLS_PER_DEFAULT_WORKER = 1000


def workers_for(calls: int, asked: int | None) -> int:
    """Worker processes for a plan of `calls` calls: the number asked for, else the cores
    there are, at most one per CALLS_PER_DEFAULT_WORKER calls."""
    if asked is not None:
        if asked < 1:
            raise CommandError("--workers: give 1 or more worker processes")
        return asked
    from dashboard.judging.pool import default_workers

    return max(1, min(default_workers(), calls // CALLS_PER_DEFAULT_WORKER))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="rate responses with a judge panel (LiteLLM)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument(
        "--panel",
        required=True,
        metavar="FILE|MODEL,…",
        help="a panel TOML file or name (data/panels), or LiteLLM model strings "
        "separated by commas; judgeboard/baseline is the offline heuristic",
    )
    parser.add_argument(
        "--rubric",
        required=True,
        metavar="NAME|FILE",
        help="rubric name (likert-rag, eve-0-5, eve-0-5-context, pass-fail, "
        "pairwise) or the path of a rubric TOML file",
    )
    parser.add_argument("--dataset", metavar="D", help="judge only this dataset")
    parser.add_argument("--systems", metavar="S,…", help="judge only these systems")
    parser.add_argument(
        "--pairwise",
        nargs=2,
        metavar=("A", "B"),
        help="compare system A with system B (with a pairwise rubric)",
    )
    parser.add_argument(
        "--labelled-only",
        action="store_true",
        help="judge only the responses people rated (a new rubric version costs a few calls)",
    )
    parser.add_argument(
        "--few-shot",
        type=int,
        default=None,
        metavar="N",
        help="put N of people's labels (a seeded draw) into the prompt as examples; the "
        "rubric version says so, and its agreement is reported on the other labels only",
    )
    parser.add_argument(
        "--few-shot-seed", type=int, default=0, metavar="S", help="seed of the draw (default 0)"
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=1,
        metavar="N",
        help="ask each judge N times per answer (each ask cached on its own; set --temperature "
        "or --seed so they can differ); the rating is the --reduce of the N, and the run's "
        "summary reports the judge's self-consistency (default 1)",
    )
    parser.add_argument(
        "--reduce",
        choices=("mean", "median", "mode"),
        default="mean",
        help="how the N ratings of --epochs become one (mode: a tie goes to the lower rating; "
        "default mean)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes that make the calls (default: the cores there are, at most "
        f"one per {CALLS_PER_DEFAULT_WORKER:,} calls to make); this process keeps the database",
    )
    parser.add_argument(
        "--batch",
        action="store_true",
        help="send the calls through each judge's batch API (about half the price; results "
        "within up to 24 h); a stopped run resumes by polling its batches, never resubmitting",
    )
    # Seconds between two polls of a batch (default 30). Hidden: the tests poll fast.
    parser.add_argument(
        "--poll-every", dest="poll_every_s", type=float, default=None, help=argparse.SUPPRESS
    )
    parser.add_argument("--plan-only", action="store_true", help="show the plan and stop")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    # How often results are merged into DuckDB (seconds). Hidden: the SIGKILL test sets it
    # long so that the kill finds the run's journal still open.
    parser.add_argument(
        "--flush-every", dest="flush_every_s", type=float, default=None, help=argparse.SUPPRESS
    )
    # Targets planned at a time when the plan streams (default `stream.CHUNK`; 0: plan whole).
    # Hidden: the memory test sets it small.
    parser.add_argument("--plan-chunk", type=int, default=None, help=argparse.SUPPRESS)
    for flag, field, kind, metavar, text in OVERRIDES:
        parser.add_argument(flag, dest=field, type=kind, default=None, metavar=metavar, help=text)
    parser.set_defaults(handler=run)


def _progress_bar(total: int, *, enabled: bool) -> Any:
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="call", file=sys.stderr, dynamic_ncols=True)


def _key_lines(panel: Panel) -> list[str]:
    """Which key (by variable name, never its value) goes to which api_base (the key rule)."""
    from dashboard.judging.panel import key_routes

    return [
        f"  key: {judge.name}: {name or 'no key sent'} → {where}"
        for judge in panel.judges
        for name, where in key_routes(judge)
    ]


def _needs_calls(plan: Any, judge: str) -> bool:
    return any(j.judge == judge and j.calls_needed for j in plan.judges)


def _note(line: str) -> None:
    print(line, flush=True)


def _plan(
    args: argparse.Namespace,
    store: Any,
    panel: Panel,
    rubric: Any,
    *,
    systems: list[str] | None,
    response_ids: tuple[str, ...] | None,
) -> Any:
    """The run's plan: a big rating run streams, a chunk at a time (`judging.stream`)."""
    from dashboard import judging
    from dashboard.judging.stream import CHUNK, can_stream, plan_streamed

    chunk = CHUNK if args.plan_chunk is None else args.plan_chunk
    options = {"epochs": args.epochs, "batch": args.batch, "response_ids": response_ids}
    if chunk > 0 and args.pairwise is None and can_stream(store, rubric, **options):
        return plan_streamed(
            store, panel, rubric, dataset=args.dataset, systems=systems, chunk=chunk
        )
    return judging.plan_run(
        store,
        panel,
        rubric,
        dataset=args.dataset,
        systems=systems,
        pairwise=args.pairwise,
        response_ids=response_ids,
        epochs=args.epochs,
        reduce=args.reduce,
    )


def run(args: argparse.Namespace) -> int:
    from dashboard import judging
    from dashboard.judging.few_shot import few_shot_rubric, record_examples
    from dashboard.judging.plan import labelled_only

    overrides = {field: getattr(args, field) for _, field, _, _, _ in OVERRIDES}
    try:
        panel = judging.load_panel(args.panel, overrides=overrides)
        rubric = judging.load_rubric(args.rubric)
        store = open_store(args)
        systems = [s for s in (args.systems or "").split(",") if s] or None
        if args.few_shot is not None:
            rubric = few_shot_rubric(
                store,
                rubric,
                n=args.few_shot,
                seed=args.few_shot_seed,
                dataset=args.dataset,
                systems=systems,
            )
        only = (
            labelled_only(store, rubric, dataset=args.dataset, systems=systems)
            if args.labelled_only
            else None
        )
        plan = _plan(args, store, panel, rubric, systems=systems, response_ids=only)
    except (judging.PanelError, judging.RubricError, judging.PlanError) as error:
        raise CommandError(judging.scrub_secrets(str(error))) from None
    for line in [*judging.plan_lines(plan), *_key_lines(panel)]:
        print(line, flush=True)
    if plan.n_targets == 0:
        print("nothing to judge: no response matches this selection (see `judgeboard datasets`)")
        return 0
    if args.batch:
        from dashboard.judging.batch_support import batch_problems

        problems = batch_problems([j for j in panel.judges if _needs_calls(plan, j.name)])
        if problems:
            raise CommandError("--batch: " + "; ".join(problems))
    workers = 1 if args.batch else workers_for(plan.calls_needed, args.workers)
    if workers > 1:
        print(f"  {plan.calls_needed} calls over {workers} worker processes", flush=True)
    if args.plan_only:
        return 0
    record_examples(store, plan.rubric)
    bar = _progress_bar(plan.calls_needed, enabled=not args.no_progress)

    def on_progress(done: int, total: int) -> None:
        if bar is not None and done > bar.n:
            bar.update(done - bar.n)  # tqdm redraws at most every 0.1 s

    try:
        summary = asyncio.run(
            judging.run_plan(
                store,
                plan,
                on_progress=on_progress,
                flush_every_s=args.flush_every_s,
                workers=workers,
                batch=args.batch,
                poll_every_s=args.poll_every_s,
                on_note=_note,
            )
        )
    finally:
        if bar is not None:
            bar.close()
    key_names = [name for judge in panel.judges for name in judge.key_env_names]
    for line in judging.summary_lines(summary):
        print(judging.scrub_secrets(line, env_names=key_names))
    return 1 if summary.failures else 0
