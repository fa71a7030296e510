"""What a run did, per judge, and how the CLI and the dashboard print a plan and a summary."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from dashboard.ids import utc_now
from dashboard.judging import calls_sql
from dashboard.judging.errors import error_line
from dashboard.judging.limits import duration_text, limited_seconds, tokens_of_call
from dashboard.judging.plan import RunPlan
from dashboard.store import Store, StoreError
from scoring.pairwise import NOT_JUDGED, flip_rate, in_both_orders
from scoring.stats import CI
from scoring.workbench import SelfConsistency

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgeSummary:
    """One judge's part of a run. `cost_usd` None = unknown; `cost_unknown_calls` counts the
    calls LiteLLM could not price. Parse failures count outputs, new or cached, that did not
    parse. `flip_rate` (pairwise only) is the share of pairs whose two orders disagree."""

    judge: str
    model: str
    calls_planned: int
    calls_made: int
    cache_hits: int
    failures: int
    parse_failures: int
    attempts: int
    retries: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    cost_unknown_calls: int
    last_error: str | None = None
    flip_rate: float | None = None
    n_pairs: int = 0
    # With `--epochs N`: how much the N ratings of an answer vary (None without epochs).
    self_consistency: SelfConsistency | None = None


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    rubric: str
    rubric_version: str
    judges: tuple[JudgeSummary, ...]
    wall_s: float
    pending_writes: bool = False  # True when the database stayed busy: rows wait in the spool
    cancelled: bool = False  # stopped by its `cancel` event: the calls not made are not made
    failed_keys: tuple[str, ...] = ()  # the cache keys of the calls that failed

    def judge(self, name: str) -> JudgeSummary:
        return next(j for j in self.judges if j.judge == name)

    @property
    def calls_made(self) -> int:
        return sum(j.calls_made for j in self.judges)

    @property
    def failures(self) -> int:
        return sum(j.failures for j in self.judges)


@dataclass
class Tally:
    """A judge's counters while the run goes (mutable; owned by the event loop's thread)."""

    calls_made: int = 0
    cache_hits: int = 0
    failures: int = 0
    parse_failures: int = 0
    attempts: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known_calls: int = 0
    cost_unknown_calls: int = 0
    last_error: str | None = None
    failed_keys: list[str] = field(default_factory=list)
    verdicts: dict[tuple[str, str, str], dict[str, str | None]] = field(default_factory=dict)
    consistency: SelfConsistency | None = None  # set at the end of a run with epochs

    def add_cost(self, cost_usd: float | None) -> None:
        if cost_usd is None:
            self.cost_unknown_calls += 1
        else:
            self.cost_usd += cost_usd
            self.cost_known_calls += 1

    def flips(self) -> tuple[float | None, int]:
        """The flip rate over the pairs judged and scored in both orders, and their number
        (`scoring.pairwise`'s definitions: an order that did not parse leaves the pair out)."""
        states = [(v.get("A", NOT_JUDGED), v.get("B", NOT_JUDGED)) for v in self.verdicts.values()]
        n_pairs = sum(in_both_orders(*s) for s in states)
        if not n_pairs:
            return None, 0
        rate = flip_rate([s[0] for s in states], [s[1] for s in states])
        return (None if math.isnan(rate) else rate), n_pairs

    def summary(self, *, judge: str, model: str, calls_planned: int) -> JudgeSummary:
        known = self.cost_known_calls > 0 or self.cost_unknown_calls == 0
        rate, n_pairs = self.flips()
        return JudgeSummary(
            judge,
            model,
            calls_planned,
            self.calls_made,
            self.cache_hits,
            self.failures,
            self.parse_failures,
            self.attempts,
            self.retries,
            self.prompt_tokens,
            self.completion_tokens,
            self.cost_usd if known else None,
            self.cost_unknown_calls,
            self.last_error,
            rate,
            n_pairs,
            self.consistency,
        )


def _usd(value: float | None, unknown_calls: int = 0) -> str:
    if value is None:
        return "unknown"
    text = f"${value:.4f}"
    return f"{text} + {unknown_calls} unknown" if unknown_calls else text


def plan_lines(plan: RunPlan) -> list[str]:
    """The plan as a small table: calls needed, cached, and the cost bound per judge."""
    sel = plan.selection
    scope = [f"dataset {sel.dataset}" if sel.dataset else "all datasets"]
    if sel.systems:
        scope.append(f"systems {', '.join(sel.systems)}")
    if sel.pairwise:
        scope.append(f"pairs {sel.pairwise[0]} vs {sel.pairwise[1]}, both orders")
    if plan.epochs > 1:
        scope.append(f"{plan.epochs} epochs per answer, rating = their {plan.reduce}")
    lines = [
        f"plan: rubric {plan.rubric.name} v{plan.rubric.version}, {'; '.join(scope)}: "
        f"{plan.n_targets} {'judgements' if plan.rubric.is_pairwise else 'responses'}",
        f"  {'judge':<28} {'calls':>7} {'cached':>7} {'to call':>8}  est. cost (at most)",
    ]
    for j in plan.judges:
        lines.append(
            f"  {j.judge:<28} {j.calls_total:>7} {j.calls_cached:>7} "
            f"{j.calls_needed:>8}  {_usd(j.estimated_cost_usd)}"
        )
    lines.append(
        f"  {'total':<28} {sum(j.calls_total for j in plan.judges):>7} "
        f"{plan.calls_cached:>7} {plan.calls_needed:>8}  {_usd(plan.estimated_cost_usd)}"
    )
    return lines + batch_lines(plan) + limit_lines(plan)


def batch_lines(plan: RunPlan) -> list[str]:
    """What the calls to make would cost through the batch API (`judge --batch`), beside the
    online price, and how long the results may take."""
    from dashboard.judging.batch_support import BATCH_WINDOW_TEXT  # no LiteLLM import

    lines = [
        f"  {j.judge}: with --batch at most {_usd(j.estimated_batch_cost_usd)} "
        f"(online {_usd(j.estimated_cost_usd)}; {j.batch_price}), results within "
        f"{BATCH_WINDOW_TEXT}"
        for j in plan.judges
        if j.calls_needed and j.batch_price is not None
    ]
    return lines


def limit_lines(plan: RunPlan) -> list[str]:
    """The least time each rate-limited judge's calls take (its panel's rpm and tpm, which
    the run stays under across all its worker processes)."""
    lines = []
    streamed = {j.judge: j for j in plan.judges if j.tokens_needed is not None}
    for judge in plan.panel.judges:
        if judge.name in streamed:  # a streamed plan counted them as it went
            calls, tokens = streamed[judge.name].calls_needed, streamed[judge.name].tokens_needed
        else:
            specs = [s for s in plan.calls if s.judge == judge.name]
            calls, tokens = len(specs), sum(tokens_of_call(judge, s.messages) for s in specs)
        estimate = limited_seconds(judge, calls, tokens or 0)
        if estimate is None or not calls:
            continue
        limits = ", ".join(
            f"{value:,g} {unit}/min"
            for value, unit in ((judge.rpm, "requests"), (judge.tpm, "tokens"))
            if value
        )
        lines.append(
            f"  {judge.name}: limited to {limits}: {calls} calls take at least "
            f"{duration_text(estimate.seconds)} (bound by {estimate.bound_by})"
        )
    return lines


def summary_lines(summary: RunSummary) -> list[str]:
    """The run as a table per judge, then the last error of each judge that had failures."""
    lines = [
        f"summary: run {summary.run_id[:12]}, rubric {summary.rubric} "
        f"v{summary.rubric_version}, {summary.wall_s:.1f} s",
        f"  {'judge':<28} {'made':>6} {'cached':>7} {'retries':>8} {'failed':>7} "
        f"{'unparsed':>9} {'tokens in/out':>16}  cost",
    ]
    for j in summary.judges:
        tokens = f"{j.prompt_tokens}/{j.completion_tokens}"
        lines.append(
            f"  {j.judge:<28} {j.calls_made:>6} {j.cache_hits:>7} {j.retries:>8} "
            f"{j.failures:>7} {j.parse_failures:>9} {tokens:>16}  "
            f"{_usd(j.cost_usd, j.cost_unknown_calls)}"
        )
    for j in summary.judges:
        if j.flip_rate is not None:
            lines.append(
                f"  {j.judge}: flip rate {j.flip_rate:.1%} over {j.n_pairs} pairs "
                "(an inconsistent pair counts as a tie)"
            )
    for j in summary.judges:
        if j.self_consistency is not None:
            lines.append(f"  {j.judge}: {consistency_line(j.self_consistency)}")
    for j in summary.judges:
        if j.failures:
            lines.append(
                f"  {j.judge}: {j.failures} call(s) failed; last error: {error_line(j.last_error)}"
            )
    if summary.failures:
        lines.append("  failed calls are retried by the next run of the same command")
    if summary.pending_writes:
        lines.append(
            "  the database was busy: results wait in the spool and are applied "
            "the next time it is opened"
        )
    return lines


def _number(value: float, style: str) -> str:
    return "n/a" if math.isnan(value) else format(value, style)


def consistency_line(found: SelfConsistency) -> str:
    """A judge's self-consistency in words: its spread over the N epochs of each answer."""
    return (
        f"self-consistency over {found.n_epochs} epochs of {found.n_answers} answers: "
        f"mean sd {_number(found.mean_sd, '.3f')}{_interval(found.mean_sd_ci, '.3f')}, "
        f"all epochs agree on {_number(found.share_all_agree, '.1%')}"
        f"{_interval(found.share_all_agree_ci, '.1%')}, alpha {_number(found.alpha, '.3f')}"
        f"{_interval(found.alpha_ci, '.3f')} (95% intervals over the answers, n = "
        f"{found.n_answers})"
    )


def _interval(ci: CI, style: str) -> str:
    if math.isnan(ci.low) or math.isnan(ci.high):
        return ""
    return f" [{format(ci.low, style)}, {format(ci.high, style)}]"


def finish_run(
    store: Store, plan: RunPlan, summary: RunSummary, *, started_utc: object, wait_s: float
) -> None:
    """After a run: keep its summary, and let the rule-filled campaigns take the answers its
    scores now match (`campaigns.rules`); a busy or broken database only logs."""
    # imported here: the campaigns read scores through the metrics, which import this package
    from dashboard.campaigns.rules import fill_after_run

    record_summary(store, plan, summary, started_utc=started_utc, wait_s=wait_s)
    fill_after_run(store)


def record_summary(
    store: Store, plan: RunPlan, summary: RunSummary, *, started_utc: object, wait_s: float
) -> None:
    """Keep the run's summary in judge_runs; a busy or broken database only logs."""
    chosen = dataclasses.asdict(plan.selection)
    if chosen.get("response_ids") is not None:  # their number, not every id
        chosen["response_ids"] = len(chosen["response_ids"])
    repeated = {"epochs": plan.epochs, "reduce": plan.reduce} if plan.epochs > 1 else {}
    selection = json.dumps({**chosen, "probe": plan.probe, **repeated})
    rows = summary_rows(
        summary, started_utc=started_utc, finished_utc=utc_now(), selection_json=selection
    )
    try:
        with store.connection(wait_s=wait_s) as con:
            calls_sql.add_judge_runs(con, rows)
    except StoreError as error:
        log.warning("the summary of run %s was not recorded: %s", summary.run_id, error)


def summary_rows(
    summary: RunSummary, *, started_utc: object, finished_utc: object, selection_json: str
) -> list[Mapping[str, object]]:
    """judge_runs rows for `store.judging.add_judge_runs`."""
    return [
        {
            "run_id": summary.run_id,
            "judge": j.judge,
            "model": j.model,
            "rubric": summary.rubric,
            "rubric_version": summary.rubric_version,
            "selection": selection_json,
            "calls_planned": j.calls_planned,
            "calls_made": j.calls_made,
            "cache_hits": j.cache_hits,
            "failures": j.failures,
            "parse_failures": j.parse_failures,
            "attempts": j.attempts,
            "prompt_tokens": j.prompt_tokens,
            "completion_tokens": j.completion_tokens,
            "cost_usd": j.cost_usd,
            "cost_unknown_calls": j.cost_unknown_calls,
            "flip_rate": j.flip_rate,
            "n_pairs": j.n_pairs,
            "last_error": j.last_error,
            "started_utc": started_utc,
            "finished_utc": finished_utc,
        }
        for j in summary.judges
    ]
