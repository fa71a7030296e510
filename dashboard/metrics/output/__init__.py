"""The numbers of a selection as one flat, JSON-ready dict, as `judgeboard metrics --json`
prints it and the report holds it (`metrics_json.py`, each metric's entry in `entries.py`),
what they are asked for (`request.py`), and the gates on them (`--fail-under`, `--fail-over`:
`gates.py`).
"""

from dashboard.metrics.output.gates import (
    OVER,
    PARTS,
    UNDER,
    Gate,
    GateError,
    failures,
    parse_gate,
)
from dashboard.metrics.output.metrics_json import (
    Numbers,
    SliceNumbers,
    compute,
    compute_all,
    numbers,
)
from dashboard.metrics.output.request import MetricsRequest

__all__ = [
    "OVER",
    "PARTS",
    "UNDER",
    "Gate",
    "GateError",
    "MetricsRequest",
    "Numbers",
    "SliceNumbers",
    "compute",
    "compute_all",
    "failures",
    "numbers",
    "parse_gate",
]
