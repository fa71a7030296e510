"""Judge-corrected estimates (PPI++): each system's score and pass rate and each head-to-head
win rate beside their judge-only and human-only twins (`systems.py`), and the paired
comparisons of two systems with Holm's correction (`compare.py`), with their display rows
(`corrected_tables.py`). Their reads are in `corrected_sql.py` (and `corrected_items.py`).
"""

from dashboard.metrics.corrected.compare import (
    ALPHA,
    Comparisons,
    comparisons,
    corrected_and_compared,
)
from dashboard.metrics.corrected.corrected_tables import (
    compare_rows,
    corrected_rows,
    pass_rate_rows,
    score_rows,
    win_rate_rows,
)
from dashboard.metrics.corrected.systems import (
    METHOD,
    TARGET_HALF_WIDTH,
    Corrected,
    LabelsNeeded,
    Triple,
    corrected,
    labels_needed,
)
from dashboard.metrics.estimates import PASS_AT

__all__ = [
    "ALPHA",
    "METHOD",
    "PASS_AT",
    "TARGET_HALF_WIDTH",
    "Comparisons",
    "Corrected",
    "LabelsNeeded",
    "Triple",
    "compare_rows",
    "comparisons",
    "corrected",
    "corrected_and_compared",
    "corrected_rows",
    "labels_needed",
    "pass_rate_rows",
    "score_rows",
    "win_rate_rows",
]
