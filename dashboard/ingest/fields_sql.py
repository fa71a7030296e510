"""SQL for one field of an imported file: its normalized value, and what is wrong with it.

For each kind of value (see `dashboard/ingest/formats.py`) and each type DuckDB's reader gave
the column, `field_sql` returns two expressions over the raw column: the normalized value, and
a problem that is NULL when the value is fine and otherwise says what is wrong ("expected a
string, got a list"). The common case — a string column read as VARCHAR, a list as VARCHAR[] —
is the column itself with no check, so a million clean records cost nothing extra. Anything
else goes through DuckDB's JSON functions, which see each value's own type.

The kinds whose value is one of a few words are `choices_sql.py`; the ids of what a record
holds are `ids_sql.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.ingest import choices_sql
from dashboard.ingest.formats import (
    FLAG,
    HISTORY,
    KEY,
    LABEL,
    LETTERS,
    NUMBER,
    OBJECT,
    OPTIONS,
    PASSAGE,
    PROBABILITY,
    RATER_KIND,
    RATING_RATER_KIND,
    SCALAR_TEXT,
    SELECTION,
    SIDE,
    SOURCE,
    STRINGS,
    TASK,
    TEXT,
    TEXTS,
    TIMESTAMP,
    VERDICT,
)
from dashboard.types import SELECTIONS, SOURCES

PARAGRAPH = "chr(10) || chr(10)"
NUMERIC_TYPES = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
)
_WHOLE = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
)
_STRUCTURED = {TEXTS, PASSAGE, STRINGS, OPTIONS, LETTERS, HISTORY}
_TEXT_KINDS = {TEXT, KEY, SCALAR_TEXT, PASSAGE}
# DuckDB's type for a column that held only nulls where its reader looked. The functions
# that take lists cannot bind to it (a lambda over it is a Binder Error).
_NULL_TYPES = ("NULL", '"NULL"')
HISTORY_TYPE = "STRUCT(role VARCHAR, content VARCHAR)[]"
_HISTORY_JSON = '[{"role": "VARCHAR", "content": "VARCHAR"}]'
_LETTERS_TEXT = r"^\s*[A-Za-z](\s*[,;/ ]\s*[A-Za-z])*\s*$"


def non_blank(expr: str) -> str:
    """SQL: the text holds a character `trim` keeps (NULL counts as blank). DuckDB's `trim`
    copies the whole text, so its first 64 characters are looked at first: a long context
    almost always has one there."""
    text = f"coalesce({expr}, '')"
    return (
        f"(CASE WHEN length(trim(left({text}, 64))) > 0 THEN true "
        f"ELSE length(trim({text})) > 0 END)"
    )


def quote(identifier: str) -> str:
    """A column name from a file as a SQL identifier: quoted, never interpreted."""
    return '"' + identifier.replace('"', '""') + '"'


def _json_kind(j: str) -> str:
    """A readable name of a JSON value's type, for messages."""
    return (
        f"(CASE json_type({j}) WHEN 'VARCHAR' THEN 'a string' WHEN 'ARRAY' THEN 'a list' "
        f"WHEN 'OBJECT' THEN 'an object' WHEN 'BOOLEAN' THEN 'a boolean' "
        f"ELSE 'a number' END)"
    )


def _got(expected: str, j: str) -> str:
    return f"'expected {expected}, got ' || {_json_kind(j)}"


def _strings(j: str) -> str:
    """True when the JSON value is a list whose elements are all strings."""
    return (
        f"(json_type({j}) = 'ARRAY' AND "
        f"len(list_filter(json_type({j}, '$[*]'), lambda t: t <> 'VARCHAR')) = 0)"
    )


@dataclass(frozen=True)
class FieldSql:
    value: str
    problem: str  # SQL text expression, NULL when the value is fine


def _base(raw_type: str) -> str:
    return raw_type.split("(")[0]


def is_null_type(raw_type: str) -> bool:
    return raw_type in _NULL_TYPES


def raw_column(col: str, kind: str, *, csv: bool) -> str:
    """The raw column as the importer reads it. CSV is read keeping a quoted empty string
    apart from an empty cell (null), because an empty answer is a real answer; but a number,
    list, label or choice that is an empty string can only mean "none"."""
    return f"nullif({col}, '')" if csv and kind not in _TEXT_KINDS else col


def as_json(col: str, raw_type: str, kind: str, *, csv: bool) -> str:
    """The raw column as a JSON value. CSV cells holding lists are JSON-encoded strings, and
    metadata read as text is JSON text in any kind of file (an export writes it so)."""
    if raw_type == "JSON":
        return col
    if (csv and kind in _STRUCTURED) or (kind == OBJECT and raw_type == "VARCHAR"):
        return (
            f"(CASE WHEN left(ltrim({col}), 1) IN ('[', '{{') AND json_valid({col}) "
            f"THEN {col}::JSON ELSE to_json({col}) END)"
        )
    return f"to_json({col})"


def field_sql(kind: str, col: str, raw_type: str, *, csv: bool) -> FieldSql:
    """Normalized value and problem of one raw column for a field of this kind."""
    if is_null_type(raw_type):
        # Null in every record: the typed null of the kind's value, and nothing to check.
        # (NULL::JSON is not enough: the list functions over `json_type(NULL::JSON, '$[*]')`
        # still fail to bind.)
        return FieldSql(f"NULL::{VALUE_TYPES[kind]}", "NULL")
    fast = _fast_path(kind, col, raw_type, csv=csv)
    if fast is not None:
        return fast
    j = as_json(col, raw_type, kind, csv=csv)
    builder = _JSON_BUILDERS[kind]
    value, problem = builder(j)
    return FieldSql(
        value, f"(CASE WHEN {j} IS NOT NULL AND json_type({j}) <> 'NULL' THEN {problem} END)"
    )


def _fast_path(kind: str, col: str, raw_type: str, *, csv: bool) -> FieldSql | None:
    base = _base(raw_type)
    if kind in (TEXT, KEY, SCALAR_TEXT) and raw_type == "VARCHAR":
        return FieldSql(col, "NULL")
    if kind == PASSAGE and raw_type == "VARCHAR" and not csv:
        return FieldSql(col, "NULL")
    if kind in (KEY, SCALAR_TEXT) and base in _WHOLE:
        return FieldSql(f"CAST({col} AS VARCHAR)", "NULL")
    if kind == TEXT and base in ("DATE", "TIMESTAMP"):  # the reader took the text for a date
        return FieldSql(f"CAST({col} AS VARCHAR)", "NULL")
    if kind in (TEXTS, STRINGS, OPTIONS) and raw_type == "VARCHAR[]":
        return FieldSql(col, "NULL")
    if kind == PASSAGE and raw_type == "VARCHAR[]":
        return FieldSql(f"array_to_string({col}, {PARAGRAPH})", "NULL")
    if kind == TEXTS and raw_type == "VARCHAR" and not csv:
        return FieldSql(f"(CASE WHEN {col} IS NOT NULL THEN [{col}] END)", "NULL")
    if kind == NUMBER and base in NUMERIC_TYPES:
        value = f"CAST({col} AS DOUBLE)"
        return FieldSql(value, f"(CASE WHEN NOT isfinite({value}) THEN {_not_finite(value)} END)")
    if kind in (LABEL, FLAG) and raw_type == "BOOLEAN":
        return FieldSql(col, "NULL")
    if kind == TIMESTAMP and base == "TIMESTAMP":
        return FieldSql(f"CAST({col} AS TIMESTAMP)", "NULL")
    return None


def _text(j: str) -> tuple[str, str]:
    return (
        f"(CASE WHEN json_type({j}) = 'VARCHAR' THEN {j} ->> '$' END)",
        f"(CASE WHEN json_type({j}) <> 'VARCHAR' THEN {_got('a string', j)} END)",
    )


def _key(j: str) -> tuple[str, str]:
    ok = f"json_type({j}) IN ('VARCHAR', 'BIGINT', 'UBIGINT')"
    return (
        f"(CASE WHEN {ok} THEN {j} ->> '$' END)",
        f"(CASE WHEN NOT {ok} THEN {_got('a string or a whole number', j)} END)",
    )


def _scalar_text(j: str) -> tuple[str, str]:
    ok = f"json_type({j}) NOT IN ('ARRAY', 'OBJECT')"
    return (
        f"(CASE WHEN {ok} THEN {j} ->> '$' END)",
        f"(CASE WHEN NOT {ok} THEN {_got('a string', j)} END)",
    )


def _texts(j: str) -> tuple[str, str]:
    return (
        f"(CASE WHEN json_type({j}) = 'VARCHAR' THEN [{j} ->> '$'] "
        f"WHEN {_strings(j)} THEN {j} ->> '$[*]' END)",
        f"(CASE WHEN NOT (json_type({j}) = 'VARCHAR' OR {_strings(j)}) "
        f"THEN {_got('a string or a list of strings', j)} END)",
    )


def _passage(j: str) -> tuple[str, str]:
    return (
        f"(CASE WHEN json_type({j}) = 'VARCHAR' THEN {j} ->> '$' "
        f"WHEN {_strings(j)} THEN array_to_string({j} ->> '$[*]', {PARAGRAPH}) END)",
        f"(CASE WHEN NOT (json_type({j}) = 'VARCHAR' OR {_strings(j)}) "
        f"THEN {_got('a string or a list of strings', j)} END)",
    )


def _list_of_strings(j: str) -> tuple[str, str]:
    return (
        f"(CASE WHEN {_strings(j)} THEN {j} ->> '$[*]' END)",
        f"(CASE WHEN NOT {_strings(j)} THEN {_got('a list of strings', j)} END)",
    )


def _options(j: str) -> tuple[str, str]:
    # An object {"A": text, ...}: a reader that unifies objects adds absent keys as nulls.
    keys = (
        f"list_filter(list_sort(json_keys({j})), lambda key: ({j} ->> ('$.' || key)) IS NOT NULL)"
    )
    letters = f"list_transform(range(len({keys})), lambda i: chr(65 + i::INTEGER))"
    is_object = (
        f"(json_type({j}) = 'OBJECT' AND {keys} = {letters} AND len(list_filter({keys}, "
        f"lambda key: json_type({j}, '$.' || key) <> 'VARCHAR')) = 0)"
    )
    return (
        f"(CASE WHEN {_strings(j)} THEN {j} ->> '$[*]' WHEN {is_object} "
        f"THEN list_transform({keys}, lambda key: {j} ->> ('$.' || key)) END)",
        f"(CASE WHEN NOT ({_strings(j)} OR {is_object}) THEN 'expected a list of option "
        f'texts or an object {{"A": text, "B": text, ...}}, got \' || {_json_kind(j)} END)',
    )


def _letters(j: str) -> tuple[str, str]:
    text_ok = f"(json_type({j}) = 'VARCHAR' AND regexp_matches({j} ->> '$', '{_LETTERS_TEXT}'))"
    list_ok = (
        f"({_strings(j)} AND len(list_filter({j} ->> '$[*]', "
        f"lambda x: NOT regexp_matches(x, '^\\s*[A-Za-z]\\s*$'))) = 0)"
    )
    return (
        f"(CASE WHEN {text_ok} THEN regexp_extract_all(upper({j} ->> '$'), '[A-Z]') "
        f"WHEN {list_ok} THEN list_transform({j} ->> '$[*]', lambda x: upper(trim(x))) END)",
        f"(CASE WHEN NOT ({text_ok} OR {list_ok}) THEN 'expected option letters such as "
        f'"B", "A, C" or ["A", "C"], got \' || ({j})::VARCHAR END)',
    )


def _probability(j: str) -> tuple[str, str]:
    number, _ = _number(j)
    value = f"(CASE WHEN {number} > 0 AND {number} <= 1 THEN {number} END)"
    return value, (
        f"(CASE WHEN {value} IS NULL THEN 'expected a probability in (0, 1], got ' "
        f"|| ({j})::VARCHAR END)"
    )


def _number(j: str) -> tuple[str, str]:
    value = (
        f"(CASE WHEN json_type({j}) NOT IN ('ARRAY', 'OBJECT', 'BOOLEAN') "
        f"THEN TRY_CAST({j} ->> '$' AS DOUBLE) END)"
    )
    return value, (
        f"(CASE WHEN {value} IS NULL THEN 'expected a number, got ' || ({j})::VARCHAR "
        f"WHEN NOT isfinite({value}) THEN {_not_finite(value)} END)"
    )


def _not_finite(value: str) -> str:
    """The message for NaN or an infinity: a number every metric can use is finite."""
    return (
        f"'expected a finite number, got ' || CASE WHEN isnan({value}) THEN 'NaN' "
        f"WHEN {value} > 0 THEN 'Infinity' ELSE '-Infinity' END"
    )


def _history(j: str) -> tuple[str, str]:
    alternating = (
        f"list_transform({j} ->> '$[*]', lambda x, i: {{'role': CASE WHEN i % 2 = 1 "
        f"THEN 'user' ELSE 'assistant' END, 'content': x}})"
    )
    objects = f"json_transform({j}, '{_HISTORY_JSON}')"
    turns_ok = (
        f"(json_type({j}) = 'ARRAY' AND len(list_filter(json_type({j}, '$[*]'), "
        f"lambda t: t <> 'OBJECT')) = 0 AND len(list_filter({objects}, lambda h: h IS NULL "
        f"OR h.content IS NULL OR h.role NOT IN ('user', 'assistant', 'system'))) = 0)"
    )
    return (
        f"(CASE WHEN {_strings(j)} THEN {alternating} WHEN {turns_ok} THEN {objects} END)",
        f"(CASE WHEN NOT ({_strings(j)} OR {turns_ok}) THEN 'expected a list of turns "
        f'{{"role": "user"|"assistant", "content": text}} or of strings\' END)',
    )


def _object(j: str) -> tuple[str, str]:
    return (
        f"(CASE WHEN json_type({j}) = 'OBJECT' THEN {j} END)",
        f"(CASE WHEN json_type({j}) <> 'OBJECT' THEN {_got('a JSON object', j)} END)",
    )


_JSON_BUILDERS = {
    TEXT: _text,
    KEY: _key,
    SCALAR_TEXT: _scalar_text,
    TEXTS: _texts,
    PASSAGE: _passage,
    STRINGS: _list_of_strings,
    OPTIONS: _options,
    LETTERS: _letters,
    LABEL: choices_sql.label,
    NUMBER: _number,
    HISTORY: _history,
    TASK: choices_sql.task,
    TIMESTAMP: choices_sql.timestamp,
    OBJECT: _object,
    VERDICT: choices_sql.choice({"A": "A", "B": "B", "TIE": "tie"}, "A, B or tie"),
    SIDE: choices_sql.choice({"A": "A", "B": "B"}, "A or B"),
    RATER_KIND: choices_sql.choice({"LLM": "llm", "HUMAN": "human"}, "llm or human"),
    RATING_RATER_KIND: choices_sql.choice(
        {"LLM": "llm", "HUMAN": "human", "REFERENCE": "reference"}, "llm, human or reference"
    ),
    SELECTION: choices_sql.choice(
        {s.upper(): s for s in SELECTIONS}, ", ".join(SELECTIONS[:-1]) + " or " + SELECTIONS[-1]
    ),
    SOURCE: choices_sql.choice(
        {s.upper(): s for s in SOURCES}, ", ".join(SOURCES[:-1]) + " or " + SOURCES[-1]
    ),
    PROBABILITY: _probability,
    FLAG: choices_sql.flag,
}

# The SQL type of each kind's normalized value, for a field the file does not have.
VALUE_TYPES = {
    TEXT: "VARCHAR",
    KEY: "VARCHAR",
    SCALAR_TEXT: "VARCHAR",
    TEXTS: "VARCHAR[]",
    PASSAGE: "VARCHAR",
    STRINGS: "VARCHAR[]",
    OPTIONS: "VARCHAR[]",
    LETTERS: "VARCHAR[]",
    LABEL: "BOOLEAN",
    NUMBER: "DOUBLE",
    HISTORY: HISTORY_TYPE,
    TASK: "VARCHAR",
    TIMESTAMP: "TIMESTAMP",
    VERDICT: "VARCHAR",
    SIDE: "VARCHAR",
    RATER_KIND: "VARCHAR",
    RATING_RATER_KIND: "VARCHAR",
    SELECTION: "VARCHAR",
    SOURCE: "VARCHAR",
    PROBABILITY: "DOUBLE",
    FLAG: "BOOLEAN",
    OBJECT: "JSON",
}


def first_problem(problems: Sequence[tuple[int, str]]) -> str:
    """One SQL expression: "<field index>\\x1f<message>" for the first failing field, or NULL."""
    if not problems:
        return "NULL::VARCHAR"
    return "coalesce(" + ", ".join(f"'{i}' || chr(31) || {p}" for i, p in problems) + ")"
