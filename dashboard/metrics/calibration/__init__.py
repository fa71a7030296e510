"""How far to trust each judge: agreement with people, per judge and for the panel, for
ratings (`agreement.py`) and for pairwise verdicts under every published convention
(`pairwise_calibration.py`), and the pairs behind one cell of a confusion table
(`calibration_cells.py`), and each judge mapped onto people's scale (`isotonic.py`). Their
reads are in `calibration_sql.py`.
"""

from dashboard.metrics.calibration.agreement import (
    ADJUDICATED,
    ALL_LABELS,
    HUMAN_REFERENCES,
    PANEL,
    Calibration,
    Confusion,
    RaterPair,
    calibration,
    rating_agreements,
    with_adjudicated,
)
from dashboard.metrics.calibration.calibration_cells import (
    CellPair,
    cell_pairs,
    compared_pairs,
    disagreements,
)
from dashboard.metrics.calibration.calibration_sql import AdjudicatedLabel, LabelledRating
from dashboard.metrics.calibration.isotonic import (
    CalibratedRating,
    JudgeMap,
    isotonic_calibration,
)
from dashboard.metrics.calibration.levels import JudgeLevels, judge_levels
from dashboard.metrics.calibration.pairwise_calibration import PreferenceAgreement

__all__ = [
    "ADJUDICATED",
    "AdjudicatedLabel",
    "ALL_LABELS",
    "HUMAN_REFERENCES",
    "PANEL",
    "Calibration",
    "CalibratedRating",
    "CellPair",
    "Confusion",
    "JudgeMap",
    "JudgeLevels",
    "LabelledRating",
    "PreferenceAgreement",
    "RaterPair",
    "calibration",
    "cell_pairs",
    "compared_pairs",
    "disagreements",
    "isotonic_calibration",
    "judge_levels",
    "rating_agreements",
    "with_adjudicated",
]
