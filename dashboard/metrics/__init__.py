"""Every number judgeboard shows: the metrics of the pages, `judgeboard metrics`, the report
and the notebook, each declared once (`registry.py`).

The root holds the vocabulary the families share: what a metric is computed over
(`selection.py`, its SQL in `selection_sql.py`), the declarations (`registry.py` over
`declarations.py` and the EM/F1 rules of `qa_rules.py`), an estimate with its interval
(`estimates.py`), the panel (`panels.py`), the choices a page or command offers
(`choices.py`), a response's scores in SQL (`scores_sql.py`), the numbers per slice
(`slices.py`) and as display rows (`tables.py`); `python -m dashboard.metrics` prints the names
table of docs/metrics.md (`__main__.py`).
Each family is a folder that owns its SQL: `overview/`, `calibration/`, `corrected/` (with the
paired comparisons), `reference/`, `judge_qa/` (bias, drift, rubric versions) and `output/`
(the JSON of `judgeboard metrics` and its gates).

Outside this folder, import from here: the names below, or the modules and families they
name (`from dashboard.metrics import overview`, `from dashboard.metrics.selection import
Selection`); never a family's inner modules or any `*_sql.py` (tests/test_boundaries.py;
`scores_sql.py` is the one shared with the other features' SQL).
"""

from dashboard.metrics import (
    calibration,
    choices,
    corrected,
    estimates,
    judge_qa,
    output,
    overview,
    panels,
    qa_rules,
    reference,
    registry,
    selection,
    slices,
    tables,
)
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.selection import Selection, Slice

__all__ = [
    "Estimate",
    "Selection",
    "Slice",
    "calibration",
    "choices",
    "corrected",
    "estimates",
    "judge_qa",
    "output",
    "overview",
    "panels",
    "qa_rules",
    "reference",
    "registry",
    "selection",
    "slices",
    "tables",
]
