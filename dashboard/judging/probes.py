"""Judge QA probes: re-judge a seeded sample of real responses, perturbed in a controlled way,
through the same runner and cache as a real run.

- "padding" (a rating rubric): each answer with one fixed sentence added, irrelevant to any
  question and true. A judge that rates the padded copy differently is moved by length, not
  content; the mean shift with its interval is the padding bias (`metrics/judge_qa/judge_bias.py`).
- "order" (a pairwise rubric): each sampled pair judged in both presentation orders. The
  share of decided verdicts for the answer shown first is the position bias; the regular
  pairwise run asks the same prompts, so its calls are reused from the cache.

Results go to the `probes` table, never to ratings or preferences: no system metric reads a
perturbed copy. A probe's calls are cached like any other, so a second run of the same probe
costs nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dashboard.judging.panel import Panel
from dashboard.judging.plan import (
    Built,
    PlanError,
    RunPlan,
    built_targets,
    make_selection,
    plan_rendered,
    render_targets,
)
from dashboard.judging.rubrics import Rubric
from dashboard.store import Store

PADDING, ORDER = "padding", "order"
PROBE_KINDS = (PADDING, ORDER)
# Irrelevant to every question, true, and the same for every answer (14 words).
PADDING_SENTENCE = "For the record, the Pacific Ocean is the largest and deepest ocean on Earth."
DEFAULT_SAMPLE = 50
DEFAULT_SEED = 0


def padded(answer: str) -> str:
    """An answer with the padding sentence added after it."""
    return f"{answer.rstrip()}\n\n{PADDING_SENTENCE}"


def _sample(built: Sequence[Built], *, size: int, seed: int) -> list[Built]:
    """A seeded sample of the targets, a pair's two orders kept together."""
    groups: dict[tuple[str, ...], list[Built]] = {}
    for entry in built:
        target = entry[0]
        key = (target.item_id, target.response_id or "", *target.pair[1:])
        groups.setdefault(key, []).append(entry)
    keys = sorted(groups)
    chosen = sorted(random.Random(seed).sample(keys, min(size, len(keys))))
    return [entry for key in chosen for entry in groups[key]]


def plan_probe(
    store: Store,
    panel: Panel,
    rubric: Rubric,
    *,
    kind: str,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    pairwise: Sequence[str] | None = None,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = DEFAULT_SEED,
) -> RunPlan:
    """The plan of a probe of `kind` on a seeded sample of `sample_size` responses (or pairs)."""
    if kind not in PROBE_KINDS:
        raise PlanError(f"unknown probe {kind!r}; choose one of {', '.join(PROBE_KINDS)}")
    if kind == PADDING and rubric.is_pairwise:
        raise PlanError("the padding probe re-rates single answers: choose a rating rubric")
    if kind == ORDER and not rubric.is_pairwise:
        raise PlanError("the order probe swaps two answers: choose a pairwise rubric")
    if sample_size < 1:
        raise PlanError("the probe's sample size must be at least 1")
    selection = make_selection(rubric, dataset=dataset, systems=systems, pairwise=pairwise)
    sample = _sample(built_targets(store, rubric, selection), size=sample_size, seed=seed)
    if kind == PADDING:
        sample = [(t, {**v, "answer": padded(v["answer"])}, row) for t, v, row in sample]
    rendered = render_targets(
        rubric, sample, with_cases=any(judge.is_baseline for judge in panel.judges)
    )
    return plan_rendered(store, panel, rubric, selection, rendered, probe=kind)
