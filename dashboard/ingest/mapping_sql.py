"""SQL of a value mapping (`--map TARGET=SOURCE{FROM:TO,...}`): a column's values as text,
and each mapped to its TO through bound lists; the mapping's own syntax is `mapping.py`."""

from __future__ import annotations

from dashboard.ingest.fields_sql import NUMERIC_TYPES, FieldSql, is_null_type

# What a value mapping's problem starts with; the unmapped value follows after chr(30).
UNMAPPED = "has no mapping"


def value_text_sql(col: str, raw_type: str) -> str:
    """A raw column's value as the text a value mapping matches: a string as itself, a
    number or boolean as DuckDB writes it, a list or object as its JSON text."""
    if is_null_type(raw_type):
        return "NULL::VARCHAR"
    if raw_type == "VARCHAR":
        return col
    if raw_type == "JSON":
        return (
            f"(CASE json_type({col}) WHEN 'VARCHAR' THEN {col} ->> '$' WHEN 'NULL' THEN NULL "
            f"ELSE {col}::VARCHAR END)"
        )
    if raw_type.split("(")[0] in NUMERIC_TYPES or raw_type == "BOOLEAN":
        return f"CAST({col} AS VARCHAR)"
    return f"CAST(to_json({col}) AS VARCHAR)"


def mapped_sql(col: str, raw_type: str, param: str) -> FieldSql:
    """A column's values mapped by the bound lists `$<param>_from` and `$<param>_to`: the
    value a FROM names becomes its TO (a number also matches a FROM of equal value, so 1.0
    matches "1"); a value no FROM names is a problem ("has no mapping", chr(30), the value)."""
    text = value_text_sql(col, raw_type)
    sources, targets = f"${param}_from::VARCHAR[]", f"${param}_to::VARCHAR[]"
    number = f"TRY_CAST({text} AS DOUBLE)"
    position = (
        f"coalesce(list_position({sources}, {text}), CASE WHEN {number} IS NOT NULL THEN "
        f"list_position(list_transform({sources}, lambda x: TRY_CAST(x AS DOUBLE)), {number}) "
        "END)"
    )
    return FieldSql(
        f"({targets})[{position}]",
        f"(CASE WHEN {text} IS NOT NULL AND {position} IS NULL "
        f"THEN '{UNMAPPED}' || chr(30) || {text} END)",
    )
