"""The calibration metrics' declarations (registry.py gathers every declaration): each pairwise
convention of a judge against people, each judge against the mean of people at the item and
system level and as a pass/fail judge, people's agreement among themselves, and the pass rate
corrected for a pass/fail panel's error rates."""

from __future__ import annotations

from dashboard.metrics.declarations.core import COUNT, LOWER, Metric

_P = "calibration.pairwise.<judge>"
# Each judge (and the panel) against the label of a pair: people's strict majority (or gold).
# The conventions and their sources are described in docs/metrics.md and
# `scoring/pairwise_agreement.py`.
PREFERENCE_AGREEMENT_METRICS: tuple[Metric, ...] = (
    Metric(
        f"{_P}.accuracy",
        "accuracy (per order)",
        "per-order accuracy: the mean over the two presentation orders of the share of "
        "verdicts equal to the label, over every labelled pair, a verdict that did not parse "
        "counting as wrong (LLMBar's Acc, `correct_average`; judged in one order only, "
        "Auto-J's single-order accuracy)",
        n_label="labelled pairs",
    ),
    Metric(
        f"{_P}.accuracy_scored",
        "accuracy (per order, scored pairs)",
        "per-order accuracy as `accuracy`, over the scored labelled pairs only: a pair with a "
        "verdict that did not parse is left out (judgeboard's rule for the other conventions)",
        n_label="scored labelled pairs",
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


_C = "calibration.<judge>"
_AGAINST_MEAN = "the judge's rating of each response people rated against the mean of their ratings"
_BY_SYSTEM = (
    "each system's mean judge rating against its mean human rating over the same responses "
    "(at least 3 systems); `n` counts systems; the interval resamples responses within systems"
)
_STATISTICS = (
    ("pearson", "Pearson", "Pearson's r"),
    ("spearman", "Spearman", "Spearman's rho"),
    ("kendall", "Kendall tau-b", "Kendall's tau-b"),
)
# A judge against the mean of people (`calibration_levels`), as the summarization and G-Eval
# literature reports it, beside the pooled (judge, person) pairs of `calibration.<judge>.*`.
JUDGE_LEVEL_METRICS: tuple[Metric, ...] = (
    *(
        Metric(f"{_C}.item_{key}", f"{label}, item level", f"{what}, item level: {_AGAINST_MEAN}")
        for key, label, what in _STATISTICS
    ),
    *(
        Metric(
            f"{_C}.system_{key}", f"{label}, system level", f"{what}, system level: {_BY_SYSTEM}"
        )
        for key, label, what in _STATISTICS
    ),
    Metric(
        f"{_C}.tpr",
        "TPR (pass)",
        "true positive rate as a pass/fail judge: share of the responses people passed (their "
        "mean >= 0.5 normalized) that the judge passed; `n` counts those responses",
    ),
    Metric(
        f"{_C}.tnr",
        "TNR (fail)",
        "true negative rate as a pass/fail judge: share of the responses people failed that "
        "the judge failed; `n` counts those responses",
    ),
)
# People among themselves, in a campaign or not, no judge among the raters.
PEOPLE_ALPHA_METRICS: tuple[Metric, ...] = tuple(
    Metric(
        f"calibration.people_alpha.{level}",
        f"people's alpha ({level})",
        f"Krippendorff's alpha ({level}) among the people who rated the rubric on the "
        "selection, no judge among them; `n` counts the responses two or more people rated",
    )
    for level in ("ordinal", "interval")
)
ROGAN_GLADEN_METRIC = Metric(
    "systems.<system>.pass_rate.rogan_gladen",
    "pass rate Rogan–Gladen",
    "share of responses scored >= 0.5; Rogan–Gladen: the panel's pass rate p corrected by "
    "its TPR and TNR against the valid labels, (p + TNR − 1) / (TPR + TNR − 1) clipped to "
    "[0, 1]; bootstrap interval over the labelled and the unlabelled responses apart",
    summary=False,
)
