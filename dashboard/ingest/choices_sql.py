"""SQL for the fields whose value is one of a few words: verdicts, sides, rater kinds, label
selections, task types, true/false labels and flags, and date-times (`fields_sql.py` has the
other kinds). Each builder takes a JSON value and returns its normalized value and the
problem, NULL when the value is fine."""

from __future__ import annotations

from collections.abc import Callable

_LABEL_TRUE = "('true', 'yes', 'hallucinated', '1')"
_LABEL_FALSE = "('false', 'no', 'faithful', '0')"
_FLAG_TRUE = "('true', 'yes', '1')"
_FLAG_FALSE = "('false', 'no', '0')"


def label(j: str) -> tuple[str, str]:
    s = f"lower(trim({j} ->> '$'))"
    return (
        f"(CASE WHEN {s} IN {_LABEL_TRUE} THEN true WHEN {s} IN {_LABEL_FALSE} THEN false END)",
        f"(CASE WHEN json_type({j}) IN ('ARRAY', 'OBJECT') OR NOT ({s} IN {_LABEL_TRUE} "
        f"OR {s} IN {_LABEL_FALSE}) THEN 'expected true/yes/hallucinated/1 or "
        f"false/no/faithful/0, got ' || ({j})::VARCHAR END)",
    )


def flag(j: str) -> tuple[str, str]:
    s = f"lower(trim({j} ->> '$'))"
    return (
        f"(CASE WHEN {s} IN {_FLAG_TRUE} THEN true WHEN {s} IN {_FLAG_FALSE} THEN false END)",
        f"(CASE WHEN json_type({j}) IN ('ARRAY', 'OBJECT') OR NOT ({s} IN {_FLAG_TRUE} "
        f"OR {s} IN {_FLAG_FALSE}) THEN 'expected true/yes/1 or false/no/0, got ' "
        f"|| ({j})::VARCHAR END)",
    )


def choice(upper_map: dict[str, str], expected: str) -> Callable[[str], tuple[str, str]]:
    def build(j: str) -> tuple[str, str]:
        s = f"upper(trim({j} ->> '$'))"
        cases = " ".join(f"WHEN '{raw}' THEN '{canonical}'" for raw, canonical in upper_map.items())
        value = (
            f"(CASE WHEN json_type({j}) NOT IN ('ARRAY', 'OBJECT') THEN CASE {s} {cases} END END)"
        )
        return value, (
            f"(CASE WHEN {value} IS NULL THEN 'expected {expected}, got ' || ({j})::VARCHAR END)"
        )

    return build


def task(j: str) -> tuple[str, str]:
    value = f"({j} ->> '$')"
    return (
        f"(CASE WHEN list_contains($task_types, {value}) THEN {value} END)",
        f"(CASE WHEN NOT list_contains($task_types, coalesce({value}, '')) THEN "
        f"'unknown task type ''' || coalesce({value}, ({j})::VARCHAR) || ''' (known: ' || "
        f"array_to_string($task_types, ', ') || ')' END)",
    )


def timestamp(j: str) -> tuple[str, str]:
    value = f"(TRY_CAST({j} ->> '$' AS TIMESTAMPTZ) AT TIME ZONE 'UTC')"
    return value, (
        f"(CASE WHEN {value} IS NULL THEN 'expected an ISO date-time, got ' || ({j})::VARCHAR END)"
    )
