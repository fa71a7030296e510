"""Planning a run: which calls it needs, which are cached, and what the rest may cost.

A call is identified by its cache key, the hash of what decides its output: the judge's
model(s), endpoint, temperature and max_tokens, and the rendered messages. A stored call with
status "ok" and the same key is never made again. Targets whose prompts are identical (two
systems giving the same answer to the same item) share one call.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dashboard.judging import calls_sql, targets_sql
from dashboard.judging.calls_sql import PreferredByCall, RatedByCall
from dashboard.judging.offline import Case, case_for
from dashboard.judging.panel import Judge, Panel
from dashboard.judging.records import scale_of
from dashboard.judging.rubrics import Messages, Rubric
from dashboard.judging.targets import Target, pair_targets, rating_target, reference_list
from dashboard.judging.targets_sql import TargetItem
from dashboard.store import Store
from scoring.workbench import EPOCH_REDUCERS


class PlanError(ValueError):
    """A selection that cannot be judged with this rubric; the message says what to pass."""


@dataclass(frozen=True)
class TargetSelection:
    """What a judge run judges: the responses of a dataset (None: of every dataset), of some
    systems (None: of all), or the pairs of two systems' responses to the same items. (What a
    metric is computed over is another thing, `dashboard.metrics.selection.Selection`.)"""

    dataset: str | None = None
    systems: tuple[str, ...] | None = None
    pairwise: tuple[str, str] | None = None
    # Only these responses (None: every one): the ones people labelled, or the anchors.
    response_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CallSpec:
    """One call to make: a judge, its messages, and every target the answer applies to.
    `case` is what the prompt shows as structured data, for the offline baseline; None when
    the panel has no baseline judge (a real model reads the messages only)."""

    judge: str
    cache_key: str
    prompt_hash: str
    messages: Messages
    targets: tuple[Target, ...]
    case: Case | None
    epoch: int = 0  # which of `--epochs N` asks (0-based)


@dataclass(frozen=True)
class CachedCall:
    """A call already made; `missing` are targets with no stored result from it yet."""

    judge: str
    call_id: str
    raw_output: str | None
    targets: tuple[Target, ...]
    missing: tuple[Target, ...]
    epoch: int = 0


@dataclass(frozen=True)
class JudgePlan:
    judge: str
    model: str
    calls_total: int
    calls_cached: int
    calls_needed: int
    estimated_cost_usd: float | None  # at most: completions priced at max_tokens; None = unknown
    # The same calls through the provider's batch API (`judge --batch`), at the batch price;
    # `batch_price` says where that price comes from (None: the judge has no batch API or
    # no known price).
    estimated_batch_cost_usd: float | None = None
    batch_price: str | None = None
    tokens_needed: int | None = None  # of the calls to make, when a streamed plan has no `calls`


@dataclass(frozen=True)
class RunPlan:
    panel: Panel
    rubric: Rubric
    selection: TargetSelection
    n_targets: int
    judges: tuple[JudgePlan, ...]
    calls: tuple[CallSpec, ...]
    cached: tuple[CachedCall, ...]
    # A Judge QA probe's kind ("padding", "order"): its results go to `probes`, never to
    # ratings or preferences. None for a real run.
    probe: str | None = None
    # Each judge asked `epochs` times per prompt; the rating stored is the `reduce` of them
    # (`scoring.workbench.reduce_epochs`), each epoch kept in `epoch_ratings`.
    epochs: int = 1
    reduce: str = "mean"
    chunk: int = 0  # > 0: streamed (`stream.py`), `calls` and `cached` come a chunk at a time

    @property
    def calls_needed(self) -> int:
        return sum(j.calls_needed for j in self.judges)

    @property
    def calls_cached(self) -> int:
        return sum(j.calls_cached for j in self.judges)

    @property
    def estimated_cost_usd(self) -> float | None:
        costs = [j.estimated_cost_usd for j in self.judges if j.calls_needed]
        known = [c for c in costs if c is not None]
        return float(sum(known)) if len(known) == len(costs) else None


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def prompt_hash(messages: Messages) -> str:
    return _digest(json.dumps(list(messages), ensure_ascii=False, sort_keys=True))[:16]


def cache_key(judge: Judge, messages: Messages) -> str:
    return _digest(
        judge.cache_identity(), json.dumps(list(messages), ensure_ascii=False, sort_keys=True)
    )[:32]


def epoch_key(key: str, epoch: int) -> str:
    """The cache key of ask `epoch` of a prompt: epoch 0 keeps the single call's key, so a
    run with --epochs reuses the calls of a run without."""
    return key if epoch == 0 else _digest(key, f"epoch {epoch}")[:32]


def _epochs(specs: Sequence[CallSpec], epochs: int) -> list[CallSpec]:
    return [
        dataclasses.replace(s, cache_key=epoch_key(s.cache_key, e), epoch=e)
        for s in specs
        for e in range(epochs)
    ]


def _check_selection(rubric: Rubric, selection: TargetSelection) -> None:
    if rubric.is_pairwise and selection.pairwise is None:
        raise PlanError(
            f"rubric {rubric.name} compares two systems: pass --pairwise SYSTEM_A SYSTEM_B"
        )
    if not rubric.is_pairwise and selection.pairwise is not None:
        raise PlanError(
            f"rubric {rubric.name} rates single answers; use a pairwise rubric "
            "(e.g. --rubric pairwise) with --pairwise"
        )


Rendered = tuple[Target, Messages, Case | None]
Built = tuple[Target, dict[str, str], TargetItem]


def built_targets(store: Store, rubric: Rubric, selection: TargetSelection) -> list[Built]:
    """Every target of the selection with its prompt's values and its item."""
    _check_selection(rubric, selection)
    with store.connection() as con:  # also applies pending writes, so the cache is current
        if selection.pairwise is not None:
            system_a, system_b = selection.pairwise
            pairs = targets_sql.select_pair_targets(
                con, system_a=system_a, system_b=system_b, dataset=selection.dataset
            )
            return [(t, v, row) for row in pairs for t, v in pair_targets(row)]
        responses = targets_sql.select_rating_targets(
            con,
            dataset=selection.dataset,
            systems=selection.systems,
            task_types=rubric.task_types,
            response_ids=selection.response_ids,
        )
    return [(*rating_target(row), row) for row in responses]


def render_targets(rubric: Rubric, built: Sequence[Built], *, with_cases: bool) -> list[Rendered]:
    """Each target with its rendered messages (and, for the offline baseline, its case)."""
    return [
        (
            target,
            rubric.render(values),
            case_for(rubric, values, reference_list(row.reference_answers)) if with_cases else None,
        )
        for target, values, row in built
    ]


def _group(judge: Judge, rendered: Sequence[Rendered]) -> list[CallSpec]:
    # Targets with the same prompt share one call; the case of the first stands for all
    # (what the prompt shows of them is the same).
    groups: dict[str, tuple[Messages, Case | None, list[Target]]] = {}
    for target, messages, case in rendered:
        groups.setdefault(cache_key(judge, messages), (messages, case, []))[2].append(target)
    return [
        CallSpec(judge.name, key, prompt_hash(messages), messages, tuple(targets), case)
        for key, (messages, case, targets) in groups.items()
    ]


def _has_result(
    target: Target,
    call_id: str,
    rated: set[RatedByCall],
    preferred: set[PreferredByCall],
) -> bool:
    if target.kind == "rating":
        return RatedByCall(call_id=call_id, response_id=target.response_id or "") in rated
    found = PreferredByCall(
        call_id=call_id,
        response_a=target.response_a or "",
        response_b=target.response_b or "",
        shown_first=target.shown_first or "",
    )
    return found in preferred


def _estimate(
    judge: Judge, specs: Sequence[CallSpec]
) -> tuple[float | None, float | None, str | None]:
    """At most what the calls cost online, and through the batch API with its price's source."""
    from dashboard.judging.batch_support import batch_support
    from dashboard.judging.llm import batch_price, estimate_cost  # LiteLLM only when needed

    prompt_chars = sum(len(m["content"]) for s in specs for m in s.messages)
    # About four characters per token; completions are priced at their max_tokens bound.
    prompt_tokens, completion_tokens = prompt_chars // 4, judge.max_tokens * len(specs)
    online = (
        estimate_cost(judge, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        if specs
        else 0.0
    )
    price = batch_price(judge) if batch_support(judge) is None else None
    if price is None:
        return online, None, None
    batch = prompt_tokens * price.input_cost_per_token + (
        completion_tokens * price.output_cost_per_token
    )
    return online, batch, price.source


def plan_run(
    store: Store,
    panel: Panel,
    rubric: Rubric,
    *,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    pairwise: Sequence[str] | None = None,
    response_ids: Sequence[str] | None = None,
    epochs: int = 1,
    reduce: str = "mean",
) -> RunPlan:
    """Everything the run will do, before it calls anything. With `response_ids`, only
    those responses are judged (`--labelled-only`, the anchors); with `epochs` N > 1 each
    judge is asked N times per prompt and the rating is the `reduce` of the N."""
    selection = make_selection(
        rubric, dataset=dataset, systems=systems, pairwise=pairwise, response_ids=response_ids
    )
    rendered = render_targets(
        rubric,
        built_targets(store, rubric, selection),
        with_cases=any(judge.is_baseline for judge in panel.judges),
    )
    return plan_rendered(store, panel, rubric, selection, rendered, epochs=epochs, reduce=reduce)


def labelled_only(
    store: Store, rubric: Rubric, *, dataset: str | None, systems: Sequence[str] | None
) -> tuple[str, ...]:
    """The responses people rated (`--labelled-only`): a new rubric version then costs a few
    calls, and its agreement with people is known at once."""
    if rubric.is_pairwise:
        raise PlanError("--labelled-only judges the responses people rated: use a rating rubric")
    with store.connection() as con:
        return tuple(targets_sql.labelled_response_ids(con, dataset=dataset, systems=systems))


def make_selection(
    rubric: Rubric,
    *,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    pairwise: Sequence[str] | None = None,
    response_ids: Sequence[str] | None = None,
) -> TargetSelection:
    """The selection of a run, checked against the rubric before anything is read."""
    if pairwise is not None and len(pairwise) != 2:
        raise PlanError("--pairwise takes exactly two systems: A B")
    if not rubric.is_pairwise:
        scale_of(rubric)  # a rating rubric without a scale fails here, before any call
    return TargetSelection(
        dataset,
        tuple(systems) if systems else None,
        (pairwise[0], pairwise[1]) if pairwise else None,
        tuple(sorted(set(response_ids))) if response_ids is not None else None,
    )


Stored = Callable[[Target, str], bool]


def _stored_results(store: Store, rubric: Rubric, call_ids: list[str], probe: str | None) -> Stored:
    """Whether a call's result for a target is stored (in `probes` for a probe)."""
    with store.connection() as con:
        if probe is not None:
            probed = calls_sql.probed_by_calls(con, call_ids, kind=probe)
            return lambda t, call_id: (call_id, *target_key(t)) in probed
        rated = calls_sql.rated_by_calls(con, call_ids) if not rubric.is_pairwise else set()
        preferred = calls_sql.preferred_by_calls(con, call_ids) if rubric.is_pairwise else set()
    return lambda t, call_id: _has_result(t, call_id, rated, preferred)


def target_key(target: Target) -> tuple[str, str, str, str]:
    """What a target is about: its response, or its pair and presentation order."""
    return (
        target.response_id or "",
        target.response_a or "",
        target.response_b or "",
        target.shown_first or "",
    )


def plan_rendered(
    store: Store,
    panel: Panel,
    rubric: Rubric,
    selection: TargetSelection,
    rendered: Sequence[Rendered],
    *,
    probe: str | None = None,
    epochs: int = 1,
    reduce: str = "mean",
) -> RunPlan:
    """The plan of rendered targets: the calls to make, and those cached."""
    _check_epochs(rubric, epochs, reduce, probe)
    specs = {judge.name: _epochs(_group(judge, rendered), epochs) for judge in panel.judges}
    with store.connection() as con:
        found = calls_sql.find_ok_calls(
            con, (s.cache_key for group in specs.values() for s in group)
        )
    stored = _stored_results(store, rubric, [c.call_id for c in found.values()], probe)
    calls: list[CallSpec] = []
    cached: list[CachedCall] = []
    judges = []
    for judge in panel.judges:
        needed = [s for s in specs[judge.name] if s.cache_key not in found]
        hits = [s for s in specs[judge.name] if s.cache_key in found]
        for spec in hits:
            call = found[spec.cache_key]
            missing = tuple(t for t in spec.targets if not stored(t, call.call_id))
            cached.append(
                CachedCall(
                    judge.name, call.call_id, call.raw_output, spec.targets, missing, spec.epoch
                )
            )
        calls.extend(needed)
        online, batch, batch_source = _estimate(judge, needed)
        judges.append(
            JudgePlan(
                judge.name,
                judge.model,
                len(specs[judge.name]),
                len(hits),
                len(needed),
                online,
                batch,
                batch_source,
            )
        )
    return RunPlan(
        panel,
        rubric,
        selection,
        len(rendered),
        tuple(judges),
        tuple(calls),
        tuple(cached),
        probe,
        epochs,
        reduce,
    )


def _check_epochs(rubric: Rubric, epochs: int, reduce: str, probe: str | None) -> None:
    if epochs < 1:
        raise PlanError(f"--epochs must be at least 1, got {epochs}")
    if reduce not in EPOCH_REDUCERS:
        raise PlanError(f"--reduce must be one of {', '.join(EPOCH_REDUCERS)}, got {reduce!r}")
    if epochs > 1 and (rubric.is_pairwise or probe is not None):
        raise PlanError("--epochs repeats the ratings of answers: use a rating rubric")
