"""The Overview's numbers: per-system scores with 95% intervals, histograms, and the pairwise
standings (win rates and Bradley–Terry ratings per group of raters).

`systems.py` computes them from the count tables of `overview_sql.py`; `standings.py` fits
the standings from each rater's verdict on a pair (`verdicts.py`, which calibration uses too).
"""

from dashboard.metrics.overview.standings import (
    JUDGE_PREFIX,
    HeadToHead,
    Pairwise,
    Standing,
    Standings,
    group_label,
    pairwise_standings,
)
from dashboard.metrics.overview.systems import Histogram, Overview, SystemRow, overview
from dashboard.metrics.overview.verdicts import order_states

__all__ = [
    "JUDGE_PREFIX",
    "HeadToHead",
    "Histogram",
    "Overview",
    "Pairwise",
    "Standing",
    "Standings",
    "SystemRow",
    "group_label",
    "order_states",
    "overview",
    "pairwise_standings",
]
