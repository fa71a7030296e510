"""Item and response ids in Python: the tests' twin of the importer's SQL
(`dashboard/ingest/ids_sql.py`).

An item's id covers its dataset, external id and content, so the same question in two datasets
is two items, and one file imported twice adds nothing. A response's id covers its item, system
and answer. History enters the id as "role:content" turns; True/False gold as "true"/"false".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dashboard.ids import content_id


def item_id(
    *,
    dataset: str,
    task_type: str,
    question: str,
    external_id: str | None = None,
    history: Sequence[Mapping[str, str]] = (),
    reference_answers: Sequence[str] = (),
    reference_context: str | None = None,
    document: str | None = None,
    candidate_answer: str | None = None,
    options: Sequence[str] = (),
    gold_letters: Sequence[str] = (),
    hallucination_gold: bool | None = None,
) -> str:
    gold = None if hallucination_gold is None else ("true" if hallucination_gold else "false")
    turns = [f"{turn['role']}:{turn['content']}" for turn in history]
    return content_id(
        dataset,
        external_id,
        task_type,
        question,
        turns,
        reference_answers,
        reference_context,
        document,
        candidate_answer,
        options,
        gold_letters,
        gold,
    )


def response_id(item_id: str, system: str, answer: str) -> str:
    return content_id(item_id, system, answer)
