"""The judges' own quality: each judge's biases (`judge_bias.py`), its drift on anchor items
(`judge_drift.py`), its rubric versions side by side (`versions.py`) and its self-consistency
when asked several times (`consistency.py`), with their display rows
(`judge_qa_tables.py`). Each reads through its own `*_sql.py`.
"""

from dashboard.metrics.judge_qa.consistency import JudgeConsistency, consistencies
from dashboard.metrics.judge_qa.judge_bias import Bias, Families, bias
from dashboard.metrics.judge_qa.judge_drift import Drift, add_anchors, anchor_ids, drift
from dashboard.metrics.judge_qa.judge_qa_tables import (
    EPOCHS_COMMAND,
    bias_rows,
    consistency_convention,
    consistency_rows,
    disagreement_rows,
    drift_rows,
    version_rows,
)
from dashboard.metrics.judge_qa.versions import (
    RubricVersions,
    calibration_examples,
    rubric_versions,
)
from dashboard.metrics.judge_qa.versions_sql import UsedExample

__all__ = [
    "EPOCHS_COMMAND",
    "Bias",
    "Drift",
    "Families",
    "JudgeConsistency",
    "RubricVersions",
    "UsedExample",
    "add_anchors",
    "anchor_ids",
    "bias",
    "bias_rows",
    "calibration_examples",
    "consistencies",
    "consistency_convention",
    "consistency_rows",
    "disagreement_rows",
    "drift",
    "drift_rows",
    "rubric_versions",
    "version_rows",
]
