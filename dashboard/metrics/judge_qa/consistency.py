"""Each judge's self-consistency from repeated judging (`judge --epochs N`): how much its N
ratings of the same answer vary (`scoring.workbench.self_consistency`), over the selected
responses. A judge never run with epochs has none."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from dashboard.metrics.judge_qa.consistency_sql import epoch_values
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring.workbench import SelfConsistency, self_consistency


@dataclass(frozen=True)
class JudgeConsistency:
    judge: str
    consistency: SelfConsistency
    rubric_version: str | None = None  # the judge's latest rubric version run with epochs


def consistencies(store: Store, sel: Selection) -> tuple[JudgeConsistency, ...]:
    """The self-consistency of every judge with epochs on the selection (answers with fewer
    than two epochs do not count; a judge with no such answer is left out)."""
    with store.connection() as con:
        rows = epoch_values(con, sel)
    by_judge: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    versions = {row.judge: row.rubric_version for row in rows}  # one per judge (the read's)
    for row in rows:
        value = math.nan if row.value is None else row.value
        by_judge[row.judge][row.response_id][row.epoch] = value
    found = []
    for judge, answers in sorted(by_judge.items()):
        width = 1 + max(e for epochs in answers.values() for e in epochs)
        matrix = [[epochs.get(e, math.nan) for e in range(width)] for epochs in answers.values()]
        result = self_consistency(matrix)
        if result.n_answers:
            found.append(JudgeConsistency(judge, result, versions[judge]))
    return tuple(found)
