"""Every metric judgeboard reports, declared once: its name, what it is, which way is better,
how its number is written, and, for the reference-based metrics, how it is computed.

The Overview and report tables, `judgeboard metrics --json` and its gates, and the names table
of docs/metrics.md all read these declarations (`python -m dashboard.metrics` prints
that table; a test keeps the docs true). A name is a dotted pattern whose <placeholders> are
filled with a system, a judge or a person when the metric is computed:

    systems.<system>.em          ->  systems.eo-rag-large.em

Adding a reference-based metric takes its scoring function (in `scoring`), its declaration
here (with REFERENCE_VERSION moved on, so that stored responses are scored for it too), and
its row in docs/metrics.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dashboard.metrics import qa_rules
from dashboard.metrics.declarations import (
    COUNT as COUNT,
    ELO as ELO,
    HALLUCINATION_TASKS as HALLUCINATION_TASKS,
    HIGHER as HIGHER,
    JUDGE_LEVEL_METRICS as JUDGE_LEVEL_METRICS,
    LOWER as LOWER,
    MCQA_TASKS as MCQA_TASKS,
    PEOPLE_ALPHA_METRICS as PEOPLE_ALPHA_METRICS,
    PREFERENCE_AGREEMENT_METRICS as PREFERENCE_AGREEMENT_METRICS,
    QA_TASKS as QA_TASKS,
    ROGAN_GLADEN_METRIC as ROGAN_GLADEN_METRIC,
    SCORE as SCORE,
    SIGNED as SIGNED,
    Case as Case,
    Metric as Metric,
    ReferenceMetric as ReferenceMetric,
    corrected_triple,
    declared_name as declared_name,
    fill as fill,
    hallucinated,
    has_options,
    has_references,
    judge_card_metrics,
    mcqa_accuracy,
    mcqa_iou,
    per_rater,
    rater_name as rater_name,
    rubric_version_metrics,
)
from dashboard.metrics.selection import SLICE_PREFIX, unsliced_names

# The version of the reference-based metrics' rules (2: EM and F1 by the dataset's rule). Stored
# scores of another version are computed again (by the next import or `judgeboard score`).
REFERENCE_VERSION = "2"

_S = "systems.<system>"
SYSTEM_METRICS: tuple[Metric, ...] = (
    Metric(f"{_S}.n_responses", "responses", "number of responses (a count)", None, COUNT),
    Metric(
        f"{_S}.judge.<judge>",
        "judge: <judge>",
        "a judge's mean rating, normalized to 0–1: (value − low) / (high − low)",
    ),
    Metric(
        f"{_S}.reference_score.<scorer>",
        "reference score: <scorer>",
        "the mean of a reference score, normalized to 0–1: a score an eval tool computed "
        "against the item's reference (lm-eval's acc, exact_match ...; rater kind "
        "`reference`), neither a judge nor a person, so in no panel and no calibration",
    ),
    Metric(
        f"{_S}.panel",
        "panel",
        "the panel's mean score. A response's panel score is the mean of its judges' "
        "scored ratings",
    ),
    Metric(
        f"{_S}.panel_skipped",
        "panel skipped",
        "judge ratings that did not parse and were skipped (a count)",
        LOWER,
        COUNT,
    ),
    Metric(
        f"{_S}.human",
        "human",
        "people's mean rating, normalized to 0–1",
        n_label="human labels",
    ),
    Metric(
        f"{_S}.effective",
        "effective",
        "mean effective score: people's rating of a response where there is one, the "
        "panel's otherwise",
    ),
    *per_rater(
        f"{_S}.win_rate",
        "win rate",
        "pairwise win rate against every opponent, a tie counting half: each evaluator's, then "
        "the mean over the evaluators (EVE); `n` counts verdicts",
    ),
    *per_rater(
        f"{_S}.bradley_terry",
        "Bradley–Terry",
        "Bradley–Terry rating on the Elo scale (mean 1000), fitted to the battles; `n` is the "
        "system's number of battles",
        style=ELO,
    ),
    Metric(
        f"{_S}.em",
        "EM",
        "exact match against the reference answers, combined over several by the dataset's "
        "rule (`notes.reference_rules`): the max, or the leave-one-out mean",
        reference=ReferenceMetric("em", QA_TASKS, qa_rules.em, has_references),
    ),
    Metric(
        f"{_S}.f1",
        "F1",
        "token F1 against the reference answers, combined over several by the dataset's rule",
        reference=ReferenceMetric("f1", QA_TASKS, qa_rules.f1, has_references),
    ),
    Metric(
        f"{_S}.mcqa_accuracy",
        "MCQA accuracy",
        "multiple-choice accuracy: the letters read from the answer equal the gold letters",
        reference=ReferenceMetric("mcqa_accuracy", MCQA_TASKS, mcqa_accuracy, has_options),
    ),
    Metric(
        f"{_S}.mcqa_iou",
        "MCQA IoU",
        "the IoU of the chosen letters with the gold letters",
        reference=ReferenceMetric("mcqa_iou", MCQA_TASKS, mcqa_iou, has_options),
    ),
    Metric(
        f"{_S}.hallucination_f1",
        "hallucination F1",
        'F1 of the class "hallucinated" for a hallucination detector',
        reference=ReferenceMetric("halluc_pred", HALLUCINATION_TASKS, hallucinated),
        aggregate="f1",
    ),
)

_H = "pairwise.<system>.<opponent>"
HEAD_TO_HEAD_METRICS: tuple[Metric, ...] = per_rater(
    f"{_H}.win_rate",
    "win rate",
    "head-to-head win rate of one system over another, a tie counting half, mean over evaluators",
)

_C = "calibration.<judge>"
JUDGE_AGREEMENT_METRICS: tuple[Metric, ...] = (
    Metric(
        f"{_C}.exact",
        "exact",
        "share of (judge, person) pairs that agree exactly, with the judge's rating rounded "
        "to the scale",
    ),
    Metric(f"{_C}.within_one", "within ±1", "share of pairs within one scale point"),
    Metric(f"{_C}.kappa_quadratic", "kappa (quadratic)", "Cohen's kappa with quadratic weights"),
    Metric(
        f"{_C}.alpha_ordinal",
        "alpha (ordinal)",
        "Krippendorff's alpha (ordinal) of the judge and every person; `n` counts responses",
    ),
    Metric(f"{_C}.spearman", "Spearman", "Spearman correlation of judge and person"),
    Metric(
        f"{_C}.bias",
        "bias (judge − person)",
        "mean of judge minus person, in scale points (0 is unbiased)",
        None,
        SIGNED,
    ),
)

CALIBRATION_TOTALS: tuple[Metric, ...] = (
    Metric(
        "calibration.all_raters.alpha_ordinal",
        "alpha, all raters",
        "alpha over every judge and person",
    ),
    Metric(
        "calibration.human_labels",
        "human labels",
        "human ratings on the responses used for calibration (a count)",
        None,
        COUNT,
    ),
    Metric(
        "calibration.human_preferences",
        "human verdicts",
        "human pairwise verdicts (a count)",
        None,
        COUNT,
    ),
)

PEOPLE_METRICS: tuple[Metric, ...] = (
    Metric(
        "calibration.people.<a>.<b>.exact",
        "exact agreement",
        "two people on the responses they both rated: share of equal ratings",
    ),
    Metric(
        "calibration.people.<a>.<b>.kappa_quadratic",
        "kappa (quadratic)",
        "two people on the responses they both rated: Cohen's kappa, quadratic weights",
    ),
)

PEOPLE_PREFERENCE_METRICS: tuple[Metric, ...] = (
    Metric(
        "calibration.people_pairwise.<a>.<b>.exact",
        "exact agreement",
        "two people on the pairs they both judged: share of equal verdicts",
    ),
    Metric(
        "calibration.people_pairwise.<a>.<b>.kappa",
        "kappa",
        "two people on the pairs they both judged: Cohen's kappa",
    ),
)
_BIAS = (  # (key, label, style, what it is), all in docs/metrics.md "Judge bias"; 0 is best
    ("length", "length", SIGNED, "rating shift per 100 words beyond people's on the same answers"),
    ("position", "position", SCORE, "share of non-tie verdicts for the answer shown first (0.5)"),
    ("self_preference", "self-preference", SIGNED, "own family's systems minus other judges"),
    ("padding", "padding probe", SIGNED, "rating of the answer plus a fixed true sentence − of it"),
)
BIAS_METRICS = tuple(Metric(f"bias.<judge>.{k}", lb, t, None, st) for k, lb, st, t in _BIAS)
VERSION_METRICS = rubric_version_metrics()
_J = "judges.<judge>.self_consistency"
# Repeated judging (`judge --epochs N`, `judge_qa/consistency.py`); `n` counts answers.
SELF_CONSISTENCY_METRICS: tuple[Metric, ...] = (
    Metric(
        f"{_J}.mean_sd",
        "epoch spread (sd)",
        "a judge asked N times per answer: mean over answers of the standard deviation of its "
        "N ratings, in scale points (0: it always repeats itself)",
        LOWER,
    ),
    Metric(
        f"{_J}.share_all_agree",
        "epochs all agree",
        "a judge asked N times per answer: share of answers whose N ratings are all equal",
    ),
    Metric(
        f"{_J}.alpha",
        "epoch alpha",
        "a judge asked N times per answer: Krippendorff's alpha (interval), the N epochs as raters",
    ),
)
JUDGE_CARD_METRICS = judge_card_metrics()

# Judge-corrected estimates (`corrected/`), each beside its judge-only and human-only twin.
CORRECTED_METRICS: tuple[Metric, ...] = (
    *corrected_triple(_S, "", "mean normalized score"),
    *corrected_triple(_S, "pass rate ", "share of responses scored >= 0.5", name="pass_rate."),
    ROGAN_GLADEN_METRIC,
    Metric(
        f"{_S}.labels_needed",
        "labels needed",
        "more random human labels that bring the corrected score's 95% half-width to the "
        "target (default 0.05), by PPI's power analysis; `n` is the valid labels so far",
        LOWER,
        COUNT,
        summary=False,
    ),
    *corrected_triple(
        _H, "win rate ", "head-to-head win rate, a tie counting half", name="win_rate."
    ),
)
COMPARE_METRICS: tuple[Metric, ...] = tuple(
    Metric(
        f"compare.<a>.<b>.{kind}",
        f"{kind} difference",
        f"{whose} mean score of b minus a on their shared items, paired (cluster) bootstrap "
        "interval; the entry adds `p_value` and Holm's `p_holm`",
        None,
        SIGNED,
        summary=False,
    )
    for kind, whose in (
        ("panel", "the panel's"),
        ("human", "people's (valid labels)"),
        ("corrected", "the judge-corrected (PPI++)"),
    )
)

# Tags, an error taxonomy (`campaigns/tags.py`): per campaign, tag and system; `n` counts
# people's tag labels (a person saving an answer in a campaign labels each of its tags).
TAG_METRICS: tuple[Metric, ...] = (
    Metric(
        "tags.<campaign>.<tag>.<system>.share",
        "<tag> share",
        "share of people's current tag labels of the system's answers in the campaign that "
        "tick the tag, bootstrap interval; `n` is the tag labels",
        None,
        summary=False,
    ),
)

ALL_METRICS: tuple[Metric, ...] = (
    *SYSTEM_METRICS,
    *CORRECTED_METRICS,
    *COMPARE_METRICS,
    *HEAD_TO_HEAD_METRICS,
    *JUDGE_AGREEMENT_METRICS,
    *JUDGE_LEVEL_METRICS,
    *CALIBRATION_TOTALS,
    *PEOPLE_ALPHA_METRICS,
    *PEOPLE_METRICS,
    *PREFERENCE_AGREEMENT_METRICS,
    *PEOPLE_PREFERENCE_METRICS,
    *BIAS_METRICS,
    *VERSION_METRICS,
    *SELF_CONSISTENCY_METRICS,
    *JUDGE_CARD_METRICS,
    *TAG_METRICS,
)
REFERENCE_METRICS: tuple[ReferenceMetric, ...] = tuple(
    m.reference for m in SYSTEM_METRICS if m.reference is not None
)


def declared(name: str) -> Metric | None:
    """The declaration a computed metric's name fits (None: no metric is called so). Names
    may hold dots, so several patterns can fit; the most specific one (the most literal
    text) is the one meant. A slice's name (`Slice.prefix`) fits its metric's declaration."""
    if not name.startswith(SLICE_PREFIX):
        return _declared_whole(name)
    return next(filter(None, map(_declared_whole, unsliced_names(name))), None)


def _declared_whole(name: str) -> Metric | None:
    fits = [m for m in ALL_METRICS if m.matches(name)]
    return max(fits, key=lambda m: len(re.sub(r"<[a-z_]+>", "", m.name)), default=None)


def row_key(metric: Metric | str) -> str:
    """A system metric's name (or pattern) after "systems.<system>." ("win_rate.judges"): its
    row's key."""
    return (metric if isinstance(metric, str) else metric.name).removeprefix(f"{_S}.")


def stored_names(*, aggregate: str) -> tuple[str, ...]:
    """The `auto_scores` names of the reference metrics aggregated this way."""
    return tuple(
        m.reference.stored
        for m in SYSTEM_METRICS
        if m.reference is not None and m.aggregate == aggregate
    )


def docs_table(metrics: Iterable[Metric] = ALL_METRICS) -> str:
    """The names table of docs/metrics.md, as Markdown."""
    lines = ["| name | what it is | better |", "|---|---|---|"]
    for m in metrics:
        better = m.better or "—"
        lines.append(f"| `{m.name}` | {m.description} | {better} |")
    return "\n".join(lines) + "\n"
