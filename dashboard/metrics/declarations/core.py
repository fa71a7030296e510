"""The shape of a metric's declaration (`Metric`; `ReferenceMetric` for one computed per
response against its gold, from what it sees of the response, `Case`) and the MCQA and
hallucination scorers the declarations name. The declarations themselves are `registry.py`;
the QA metrics (EM, F1) are computed by the dataset's rule, `qa_rules`."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scoring import classification, mcqa

HIGHER, LOWER = "higher", "lower"
# How a metric's number is written: a 0-1 score, a whole count, an Elo rating, a signed
# difference in scale points.
SCORE, COUNT, ELO, SIGNED = "score", "count", "elo", "signed"

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


def has_references(case: Case) -> bool:
    return bool(case.references)


def has_options(case: Case) -> bool:
    return bool(case.options)


def mcqa_accuracy(case: Case) -> float:
    return mcqa.accuracy([case.chosen], [case.gold_letters])


def mcqa_iou(case: Case) -> float:
    return mcqa.iou(case.chosen, case.gold_letters)


def hallucinated(case: Case) -> float | None:
    verdict = classification.parse_binary_verdict(case.answer)
    return None if verdict is None else float(verdict)


# Standings per group of raters (`standings.py`); the pool keeps the names from before the split.
_ONE_JUDGE = ".judge.<judge>"
_JUDGE_GROUP = "judge."  # one judge's group of raters: "judge.<name>" (`standings.JUDGE_PREFIX`)
_RATER_GROUPS = (
    (".judges", " (judges)", "; from the judges' verdicts"),
    (".people", " (people)", "; from people's verdicts"),
    (_ONE_JUDGE, ": <judge>", "; from one judge's verdicts"),
    ("", " (pooled)", "; POOLED, only with --pool-raters: people's and judges' verdicts together"),
)


def per_rater(name: str, label: str, text: str, *, style: str = SCORE) -> tuple[Metric, ...]:
    """A standings metric once per group of raters; each judge's stays out of the summaries."""
    return tuple(
        Metric(name + tail, label + shown, text + whose, style=style, summary=tail != _ONE_JUDGE)
        for tail, shown, whose in _RATER_GROUPS
    )


def declared_name(metrics: Iterable[Metric], ending: str, **values: str) -> str:
    """The one name among `metrics` that ends with `ending` ("win_rate.corrected"), with its
    placeholders filled: a computed name comes from its declaration, never spelled by hand."""
    (found,) = (m for m in metrics if m.name.endswith(f".{ending}"))
    return fill(found.name, **values)


def rater_name(metrics: Iterable[Metric], statistic: str, raters: str, **values: str) -> str:
    """The name of `statistic` ("win_rate", "bradley_terry") for one group of raters (the
    judges, the people, one judge: "judge.<name>", or the pool: "pooled"), from its
    `per_rater` declaration among `metrics`."""
    tail = {"judges": ".judges", "people": ".people", "pooled": ""}.get(raters)
    if tail is None:
        tail, values = _ONE_JUDGE, {**values, "judge": raters.removeprefix(_JUDGE_GROUP)}
    return declared_name(metrics, statistic + tail, **values)


# A judge-corrected estimate (`corrected/`) beside its judge-only and human-only twins.
_THREE = (
    ("judge_only", "judge-only", "the panel's mean over every unit it scored"),
    ("human_only", "human-only", "the weighted mean of the valid (random, census) labels"),
    ("corrected", "corrected", "PPI++: the panel on every unit plus the valid human labels"),
)


def corrected_triple(prefix: str, label: str, what: str, *, name: str = "") -> tuple[Metric, ...]:
    return tuple(
        Metric(f"{prefix}.{name}{tail}", label + shown, f"{what}; {text}", summary=False)
        for tail, shown, text in _THREE
    )


def fill(text: str, **values: str) -> str:
    """A pattern (or a label) with its <placeholders> filled."""
    for placeholder, value in values.items():
        text = text.replace(f"<{placeholder}>", value)
    return text


# Rubric versions side by side (`versions.py`): one judge under one rubric version it ran with,
# on the responses people rated (a few-shot version's examples left out).
_VERSIONS = (
    ("agreement", "exact agreement", HIGHER, SCORE, "share of ratings equal to the person's"),
    ("kappa", "kappa (quadratic)", HIGHER, SCORE, "quadratic-weighted Cohen's kappa"),
    ("alpha", "alpha (ordinal)", HIGHER, SCORE, "Krippendorff's alpha, the version and people"),
    ("bias", "bias (normalized)", None, SIGNED, "mean (judge − person) / (high − low); 0 is none"),
)


def rubric_version_metrics() -> tuple[Metric, ...]:
    where = "a judge's rubric version against people on the labelled responses: "
    return tuple(
        Metric(f"versions.<judge>.<version>.{k}", label, where + text, better, style, summary=False)
        for k, label, better, style, text in _VERSIONS
    )


# The judge card (`dashboard/workbench/cards.py`): the adopted rubric version's agreement with
# people on the test split, bound to the judge's model, the version and its prompt hash.
_CARD = (
    ("exact", "exact agreement", HIGHER, SCORE, "share of ratings equal to the person's"),
    ("within_one", "within one", HIGHER, SCORE, "share of ratings within one scale point"),
    ("kappa_quadratic", "kappa (quadratic)", HIGHER, SCORE, "quadratic-weighted Cohen's kappa"),
    ("alpha_ordinal", "alpha (ordinal)", HIGHER, SCORE, "Krippendorff's alpha, judge and people"),
    ("spearman", "Spearman", HIGHER, SCORE, "Spearman against the people's mean per response"),
    ("tpr", "TPR", HIGHER, SCORE, "true positive rate of the pass reading (>= 0.5)"),
    ("tnr", "TNR", HIGHER, SCORE, "true negative rate of the pass reading (>= 0.5)"),
    (
        "fresh",
        "fresh",
        HIGHER,
        COUNT,
        "1 while the card holds, 0 once stale (model, prompt or labels changed since adoption)",
    ),
)


def judge_card_metrics() -> tuple[Metric, ...]:
    where = "the judge card, the adopted rubric version on the test split of people's labels: "
    return tuple(
        Metric(
            f"judge_cards.<judge>.<rubric>.{k}", label, where + text, better, style, summary=False
        )
        for k, label, better, style, text in _CARD
    )
