"""Item and response ids in SQL; tests/ingest/identity.py is their twin in Python.

The id rule is `dashboard.ids.content_id`, repeated here in SQL: 16 hex digits of md5 over the
parts joined by U+001F, a missing part as "", a list part as its elements joined by U+001E.
"""

from __future__ import annotations


def content_id_sql(*parts: str) -> str:
    """SQL for `content_id` over SQL expressions; wrap list parts in `list_part`."""
    joined = ", ".join(f"coalesce({p}, '')" for p in parts)
    return f"substr(md5(concat_ws(chr(31), {joined})), 1, 16)"


def list_part(expr: str) -> str:
    return f"array_to_string({expr}, chr(30))"


def history_part(expr: str) -> str:
    """History enters an id as its turns, each "role:content" (as tests/ingest/identity.py)."""
    return list_part(f"list_transform({expr}, lambda h: h.role || ':' || h.content)")


def item_id_sql(p: str = "") -> str:
    """The item id over stage columns (prefix `p`); tests/ingest/identity.py has its twin."""
    gold = (
        f"CASE WHEN {p}hallucination_gold THEN 'true' "
        f"WHEN NOT {p}hallucination_gold THEN 'false' END"
    )
    return content_id_sql(
        f"{p}dataset",
        f"{p}external_id",
        f"{p}task_type",
        f"{p}question",
        history_part(f"{p}history"),
        list_part(f"{p}reference_answers"),
        f"{p}reference_context",
        f"{p}document",
        f"{p}candidate_answer",
        list_part(f"{p}options"),
        list_part(f"{p}gold_letters"),
        gold,
    )


def response_id_sql(item_id: str, system: str, answer: str) -> str:
    """The response id; tests/ingest/identity.py has its twin."""
    return content_id_sql(item_id, system, answer)
