"""Every metric judgeboard reports, declared once: its name, what it is, which way is better,
how its number is written, and, for the reference-based metrics, how it is computed.

The Overview and report tables, `judgeboard metrics --json` and its gates, and the names table
of docs/metrics.md all read these declarations (`python -m dashboard.metrics.registry` prints
that table; a test keeps the docs true). A name is a dotted pattern whose <placeholders> are
filled with a system, a judge or a person when the metric is computed:

    systems.<system>.em          ->  systems.eo-rag-large.em

Adding a reference-based metric takes its scoring function (in `scoring`), its declaration
here (with REFERENCE_VERSION moved on, so that stored responses are scored for it too), and
its row in docs/metrics.md.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dashboard.metrics import qa_rules
from dashboard.metrics.selection import SLICE_PREFIX, unsliced_names
from scoring import classification, mcqa

HIGHER, LOWER = "higher", "lower"
# How a metric's number is written: a 0-1 score, a whole count, an Elo rating, a signed
# difference in scale points.
SCORE, COUNT, ELO, SIGNED = "score", "count", "elo", "signed"

# The version of the reference-based metrics' rules (2: EM and F1 by the dataset's rule). Stored
# scores of another version are computed again (by the next import or `judgeboard score`).
REFERENCE_VERSION = "2"

QA_TASKS = frozenset({"open_qa", "open_qa_context", "conversational_qa"})
MCQA_TASKS = frozenset({"mcqa_single", "mcqa_multi"})
HALLUCINATION_TASKS = frozenset({"hallucination"})


@dataclass(frozen=True)
class Case:
    """What a reference-based metric sees of one response: the answer and its item's gold."""

    task_type: str
    answer: str
    references: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    gold_letters: tuple[str, ...] = ()
    rule: str | None = None  # the dataset's reference rule (None: the task's, `qa_rules`)

    @functools.cached_property
    def chosen(self) -> list[str]:
        """The MCQA letters the answer picks, read once for every MCQA metric."""
        return list(mcqa.extract_choices(self.answer, list(self.options)))


@dataclass(frozen=True)
class ReferenceMetric:
    """A metric computed per response against its item's gold, once (when the response is
    imported), and stored in `auto_scores` under `stored` (see `metrics/reference.py`).
    It applies to a response of one of `tasks` for which `applies(case)` holds."""

    stored: str
    tasks: frozenset[str]
    score: Callable[[Case], float | None]
    applies: Callable[[Case], bool] = lambda case: True


@dataclass(frozen=True)
class Metric:
    """One metric.

    `name` is its dotted pattern and `label` heads its column (a <placeholder> in the label
    is filled like the name's). `better` is HIGHER, LOWER, or None for a count or a figure
    whose best value lies in the middle (a bias). `n_label`, when set, heads an extra column
    with the estimate's n in the tables that show one. A reference-based system metric
    carries `reference`; `aggregate` says how the per-response values become the system's
    number: "mean", or "f1", the F1 of the positive class against the items' gold labels.
    `summary` False keeps a metric out of the summary tables (the Overview's scores, the
    report's summary): each judge's standings are shown in the standings tables instead.
    """

    name: str
    label: str
    description: str
    better: str | None = HIGHER
    style: str = SCORE
    n_label: str | None = None
    reference: ReferenceMetric | None = None
    aggregate: str = "mean"
    summary: bool = True

    @property
    def key(self) -> str:
        """The last part of the name ("em"): how a computed record holds this metric."""
        return self.name.rsplit(".", 1)[-1]

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The name as a regular expression; a placeholder matches any non-empty text."""
        parts = re.split(r"(<[a-z_]+>)", self.name)
        return re.compile("".join(".+" if p.startswith("<") else re.escape(p) for p in parts))

    def matches(self, name: str) -> bool:
        return self.pattern.fullmatch(name) is not None


def _has_references(case: Case) -> bool:
    return bool(case.references)


def _has_options(case: Case) -> bool:
    return bool(case.options)


def _mcqa_accuracy(case: Case) -> float:
    return mcqa.accuracy([case.chosen], [case.gold_letters])


def _mcqa_iou(case: Case) -> float:
    return mcqa.iou(case.chosen, case.gold_letters)


def _hallucinated(case: Case) -> float | None:
    verdict = classification.parse_binary_verdict(case.answer)
    return None if verdict is None else float(verdict)


# Standings per group of raters (`standings.py`); the pool keeps the names from before the split.
_ONE_JUDGE = ".judge.<judge>"
_RATER_GROUPS = (
    (".judges", " (judges)", "; from the judges' verdicts"),
    (".people", " (people)", "; from people's verdicts"),
    (_ONE_JUDGE, ": <judge>", "; from one judge's verdicts"),
    ("", " (pooled)", "; POOLED, only with --pool-raters: people's and judges' verdicts together"),
)


def _per_rater(name: str, label: str, text: str, *, style: str = SCORE) -> tuple[Metric, ...]:
    """A standings metric once per group of raters; each judge's stays out of the summaries."""
    return tuple(
        Metric(name + tail, label + shown, text + whose, style=style, summary=tail != _ONE_JUDGE)
        for tail, shown, whose in _RATER_GROUPS
    )


_S = "systems.<system>"
SYSTEM_METRICS: tuple[Metric, ...] = (
    Metric(f"{_S}.n_responses", "responses", "number of responses (a count)", None, COUNT),
    Metric(
        f"{_S}.judge.<judge>",
        "judge: <judge>",
        "a judge's mean rating, normalized to 0–1: (value − low) / (high − low)",
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
    *_per_rater(
        f"{_S}.win_rate",
        "win rate",
        "pairwise win rate against every opponent, a tie counting half: each evaluator's, then "
        "the mean over the evaluators (EVE); `n` counts verdicts",
    ),
    *_per_rater(
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
        reference=ReferenceMetric("em", QA_TASKS, qa_rules.em, _has_references),
    ),
    Metric(
        f"{_S}.f1",
        "F1",
        "token F1 against the reference answers, combined over several by the dataset's rule",
        reference=ReferenceMetric("f1", QA_TASKS, qa_rules.f1, _has_references),
    ),
    Metric(
        f"{_S}.mcqa_accuracy",
        "MCQA accuracy",
        "multiple-choice accuracy: the letters read from the answer equal the gold letters",
        reference=ReferenceMetric("mcqa_accuracy", MCQA_TASKS, _mcqa_accuracy, _has_options),
    ),
    Metric(
        f"{_S}.mcqa_iou",
        "MCQA IoU",
        "the IoU of the chosen letters with the gold letters",
        reference=ReferenceMetric("mcqa_iou", MCQA_TASKS, _mcqa_iou, _has_options),
    ),
    Metric(
        f"{_S}.hallucination_f1",
        "hallucination F1",
        'F1 of the class "hallucinated" for a hallucination detector',
        reference=ReferenceMetric("halluc_pred", HALLUCINATION_TASKS, _hallucinated),
        aggregate="f1",
    ),
)

_H = "pairwise.<system>.<opponent>"
HEAD_TO_HEAD_METRICS: tuple[Metric, ...] = _per_rater(
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

_P = "calibration.pairwise.<judge>"
# Each judge (and the panel) against the label of a pair: people's strict majority (or gold).
# The conventions and their sources are described in docs/metrics.md and
# `scoring/pairwise_agreement.py`.
PREFERENCE_AGREEMENT_METRICS: tuple[Metric, ...] = (
    Metric(
        f"{_P}.accuracy",
        "accuracy (per order)",
        "per-order accuracy: the mean over the two presentation orders of the share of "
        "verdicts equal to the label (LLMBar's Acc, `correct_average`; judged in one order "
        "only, Auto-J's single-order accuracy)",
        n_label="labelled pairs",
    ),
    Metric(
        f"{_P}.accuracy_both_orders",
        "accuracy (both orders)",
        "share of the labelled pairs judged in both orders whose two verdicts both equal the "
        "label (LLMBar's `correct_both`, Auto-J's agreement)",
        n_label="labelled pairs in both orders",
    ),
    Metric(
        f"{_P}.agreement",
        "agreement (with ties)",
        "the judge's verdict, both orders reconciled (an order-inconsistent pair is a tie), "
        "against the label, ties included (FastChat's MT-Bench agreement); it rewards "
        "inconsistency wherever the label is a tie",
    ),
    Metric(
        f"{_P}.accuracy_vote",
        "accuracy (vote)",
        "the two orders vote (the same verdict stands, A or B with a tie leans to it, A "
        "against B is a tie) and the vote is compared with the label (JudgeBench)",
    ),
    Metric(
        f"{_P}.kappa",
        "kappa",
        "Cohen's kappa (unweighted; classes A, B and tie) of the reconciled verdict against "
        "the label",
    ),
    Metric(
        f"{_P}.agreement_without_ties",
        "agreement (without ties)",
        "the reconciled verdict against the label on the pairs where neither is a tie; gate "
        "it together with coverage_without_ties",
        n_label="pairs without ties",
    ),
    Metric(
        f"{_P}.coverage_without_ties",
        "coverage without ties",
        "share of the scored labelled pairs that agreement_without_ties covers",
    ),
    Metric(
        f"{_P}.consistency",
        "consistency",
        "share of the pairs judged in both orders, labelled or not, whose two verdicts agree "
        "(LLMBar's positional agreement, `equal`)",
        n_label="pairs in both orders",
    ),
    Metric(
        f"{_P}.flip_rate",
        "flip rate",
        "1 − consistency: share of the pairs judged in both orders whose verdict changed "
        "when the order was swapped",
        LOWER,
    ),
    Metric(
        f"{_P}.position_bias",
        "position bias",
        "among the non-tie verdicts of pairs judged in both orders, the share that chose the "
        "answer shown first (0.5 is none); `n` counts those verdicts",
        None,
        n_label="non-tie verdicts",
    ),
    Metric(
        f"{_P}.unscored_verdicts",
        "unscored verdicts",
        "the judge's verdicts on the selection's pairs that did not parse (a count)",
        LOWER,
        COUNT,
    ),
    Metric(
        f"{_P}.unscored_pairs",
        "unscored pairs",
        "pairs with at least one verdict that did not parse: unscored under every "
        "convention, never a disagreement (a count)",
        LOWER,
        COUNT,
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

ALL_METRICS: tuple[Metric, ...] = (
    *SYSTEM_METRICS,
    *HEAD_TO_HEAD_METRICS,
    *JUDGE_AGREEMENT_METRICS,
    *CALIBRATION_TOTALS,
    *PEOPLE_METRICS,
    *PREFERENCE_AGREEMENT_METRICS,
    *PEOPLE_PREFERENCE_METRICS,
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


def row_key(metric: Metric) -> str:
    """A system metric's name after "systems.<system>." ("win_rate.judges"): its row's key."""
    return metric.name.removeprefix(f"{_S}.")


def fill(text: str, **values: str) -> str:
    """A pattern (or a label) with its <placeholders> filled."""
    for placeholder, value in values.items():
        text = text.replace(f"<{placeholder}>", value)
    return text


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


if __name__ == "__main__":
    sys.stdout.write(docs_table())
