"""SQL for the fields whose value is one of a few words: verdicts, sides, rater kinds, label
selections, task types, true/false labels and flags, and date-times (`fields_sql.py` has the
other kinds). Each builder takes a JSON value and returns its normalized value and the
problem, NULL when the value is fine."""

from __future__ import annotations

from collections.abc import Callable


def _boolean(true: tuple[str, ...], false: tuple[str, ...]) -> Callable[[str], tuple[str, str]]:
    """A builder of a true/false field spelled as one of `true` or `false` (any case)."""
    true_sql = "(" + ", ".join(f"'{w}'" for w in true) + ")"
    false_sql = "(" + ", ".join(f"'{w}'" for w in false) + ")"
    expected = f"expected {'/'.join(true)} or {'/'.join(false)}, got "

    def build(j: str) -> tuple[str, str]:
        s = f"lower(trim({j} ->> '$'))"
        return (
            f"(CASE WHEN {s} IN {true_sql} THEN true WHEN {s} IN {false_sql} THEN false END)",
            f"(CASE WHEN json_type({j}) IN ('ARRAY', 'OBJECT') OR NOT ({s} IN {true_sql} "
            f"OR {s} IN {false_sql}) THEN '{expected}' || ({j})::VARCHAR END)",
        )

    return build


label = _boolean(("true", "yes", "hallucinated", "1"), ("false", "no", "faithful", "0"))
flag = _boolean(("true", "yes", "1"), ("false", "no", "0"))


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
