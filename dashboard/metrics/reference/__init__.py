"""The reference-based metrics of each response (EM and F1 against several references, MCQA
accuracy and IoU, hallucination F1), computed once and stored (`auto_scores.py`, fast EM and
F1 in `reference_qa.py`), and the rule each dataset's EM and F1 follow over several references
(`dataset_rules.py`). Their reads and writes are in `reference_sql.py`.
"""

from dashboard.metrics.reference.auto_scores import (
    VERSION,
    refresh_auto_scores,
    score_datasets,
    score_response,
    unscored_count,
)
from dashboard.metrics.reference.dataset_rules import (
    DEFAULT,
    DatasetRule,
    RuleError,
    check_rule,
    describe,
    notes,
    record_rule,
    reference_rules,
    rules_of,
    set_reference_rule,
)

__all__ = [
    "DEFAULT",
    "VERSION",
    "DatasetRule",
    "RuleError",
    "check_rule",
    "describe",
    "notes",
    "record_rule",
    "reference_rules",
    "refresh_auto_scores",
    "rules_of",
    "score_datasets",
    "score_response",
    "set_reference_rule",
    "unscored_count",
]
