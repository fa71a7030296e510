"""The metrics' declarations, in one front door: the kinds of metric and the helpers that
declare them (core.py), and the calibration metrics' declarations (calibration.py).
`registry.py` gathers every declaration."""

from dashboard.metrics.declarations.calibration import (
    JUDGE_LEVEL_METRICS as JUDGE_LEVEL_METRICS,
    PEOPLE_ALPHA_METRICS as PEOPLE_ALPHA_METRICS,
    PREFERENCE_AGREEMENT_METRICS as PREFERENCE_AGREEMENT_METRICS,
    ROGAN_GLADEN_METRIC as ROGAN_GLADEN_METRIC,
)
from dashboard.metrics.declarations.core import (
    COUNT as COUNT,
    ELO as ELO,
    HALLUCINATION_TASKS as HALLUCINATION_TASKS,
    HIGHER as HIGHER,
    LOWER as LOWER,
    MCQA_TASKS as MCQA_TASKS,
    QA_TASKS as QA_TASKS,
    SCORE as SCORE,
    SIGNED as SIGNED,
    Case as Case,
    Metric as Metric,
    ReferenceMetric as ReferenceMetric,
    corrected_triple as corrected_triple,
    declared_name as declared_name,
    fill as fill,
    hallucinated as hallucinated,
    has_options as has_options,
    has_references as has_references,
    judge_card_metrics as judge_card_metrics,
    mcqa_accuracy as mcqa_accuracy,
    mcqa_iou as mcqa_iou,
    per_rater as per_rater,
    rater_name as rater_name,
    rubric_version_metrics as rubric_version_metrics,
)
