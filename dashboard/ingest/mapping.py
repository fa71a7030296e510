"""What `--map` (and the Data page's column pickers) say about a field: read it from a column,
set it to a constant, or read a column and map its values.

The text syntax, one `--map` option per field:

- `TARGET=SOURCE` reads column SOURCE as field TARGET (`question=prompt`);
- `TARGET="TEXT"` (or `'TEXT'`) sets field TARGET to the constant TEXT in every record
  (`system_a="gpt-4o"`); a backslash escapes a quote or a backslash inside;
- `TARGET=SOURCE{FROM:TO,...}` reads column SOURCE and maps each of its values FROM to TO
  (`winner=label{A>B:A,B>A:B,A=B:tie}`). FROM or TO may be double-quoted to hold a comma,
  colon, brace or space; an empty TO maps FROM to nothing (null). A value the mapping does
  not name is an error naming the file, the record and the column.

The staging layer turns a `FieldMap` into SQL over bound values (`stage_sql.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

EXAMPLES = 'e.g. question=prompt, system_a="gpt-4o" or winner=label{A>B:A,B>A:B,A=B:tie}'
_QUOTES = ('"', "'")
_SPECIAL = set(',:{}"')


class MappingSyntaxError(ValueError):
    """A `--map` option that does not parse; the message says what was expected."""


@dataclass(frozen=True)
class FieldMap:
    """Where a field's values come from: a column (maybe with its values mapped) or a
    constant. `values` pairs each value of the column with the value it stands for (None:
    nothing)."""

    target: str
    source: str | None = None
    constant: str | None = None
    values: tuple[tuple[str, str | None], ...] | None = None

    def __post_init__(self) -> None:
        if (self.source is None) == (self.constant is None):
            raise ValueError("a FieldMap reads a column or holds a constant, not both")
        if self.values is not None and self.source is None:
            raise ValueError("a value mapping needs a column")

    @property
    def mapped_from(self) -> tuple[str, ...]:
        return tuple(raw for raw, _ in self.values or ())

    def spec(self) -> str:
        """The `--map` text of this mapping (parse_field_map's inverse)."""
        if self.constant is not None:
            return f"{self.target}={_quoted(self.constant)}"
        if self.values is None:
            return f"{self.target}={self.source}"
        pairs = ",".join(f"{_bare(raw)}:{_bare(to or '')}" for raw, to in self.values)
        return f"{self.target}={self.source}{{{pairs}}}"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bare(text: str) -> str:
    """A value as the mapping syntax writes it: quoted only when it must be."""
    if text and text == text.strip() and not (_SPECIAL & set(text)) and "\\" not in text:
        return text
    return _quoted(text) if text else ""


def _unquote(text: str, *, option: str) -> str:
    """The text of a quoted literal (the quotes included in `text`)."""
    quote, body = text[0], text[1:]
    out, escaped = [], False
    for position, char in enumerate(body):
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == quote:
            if body[position + 1 :].strip():
                raise MappingSyntaxError(f"--map {option!r}: text after the closing quote")
            return "".join(out)
        else:
            out.append(char)
    raise MappingSyntaxError(f"--map {option!r}: the quote is not closed")


def _quoted_value(body: str, start: int, *, option: str) -> tuple[str, int]:
    """The quoted value starting at body[start] == '"', and the index after its quote."""
    out, i = [], start + 1
    while i < len(body) and body[i] != '"':
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        out.append(body[i])
        i += 1
    if i >= len(body):
        raise MappingSyntaxError(f"--map {option!r}: a quote in the mapping is not closed")
    return "".join(out), i + 1


def _entries(body: str, *, option: str) -> list[list[str]]:
    """The FROM:TO entries of a mapping body, each as its parts (bare parts trimmed)."""
    entries: list[list[str]] = [[]]
    part: list[str] = []
    quoted: str | None = None
    i = 0
    while i < len(body):
        char = body[i]
        if char == '"' and quoted is None and not "".join(part).strip():
            quoted, i = _quoted_value(body, i, option=option)
            continue
        if char in ",:":
            entries[-1].append(quoted if quoted is not None else "".join(part).strip())
            part, quoted = [], None
            if char == ",":
                entries.append([])
        elif quoted is not None and not char.isspace():
            raise MappingSyntaxError(f"--map {option!r}: text after a quoted value")
        elif char in '{}"':
            raise MappingSyntaxError(
                f'--map {option!r}: quote a value holding {char!r}, e.g. "A{char}B":A'
            )
        elif quoted is None:
            part.append(char)
        i += 1
    entries[-1].append(quoted if quoted is not None else "".join(part).strip())
    return [entry for entry in entries if entry != [""]]


def _pairs(body: str, *, option: str) -> tuple[tuple[str, str | None], ...]:
    pairs: list[tuple[str, str | None]] = []
    for entry in _entries(body, option=option):
        if len(entry) != 2:
            raise MappingSyntaxError(
                f"--map {option!r}: expected FROM:TO pairs separated by commas, {EXAMPLES}"
            )
        raw, to = entry
        if any(raw == seen for seen, _ in pairs):
            raise MappingSyntaxError(f"--map {option!r}: the value {raw!r} is mapped twice")
        pairs.append((raw, to or None))
    if not pairs:
        raise MappingSyntaxError(f"--map {option!r}: the mapping names no value, {EXAMPLES}")
    return tuple(pairs)


def parse_field_map(option: str) -> FieldMap:
    """One `--map` option (see the module's docstring)."""
    target, sep, rest = option.partition("=")
    target, rest = target.strip(), rest.strip()
    if not sep or not target or not rest:
        raise MappingSyntaxError(f"--map {option!r}: expected TARGET=SOURCE, {EXAMPLES}")
    if rest[0] in _QUOTES:
        return FieldMap(target, constant=_unquote(rest, option=option))
    if "{" not in rest:
        if "}" in rest:
            raise MappingSyntaxError(f"--map {option!r}: a '}}' without its '{{'")
        return FieldMap(target, source=rest)
    source, _, body = rest.partition("{")
    source = source.strip()
    if not source:
        raise MappingSyntaxError(f"--map {option!r}: name the column before '{{', {EXAMPLES}")
    if not body.endswith("}"):
        raise MappingSyntaxError(f"--map {option!r}: the mapping must end with '}}'")
    return FieldMap(target, source=source, values=_pairs(body[:-1], option=option))


def parse_mapping(options: Iterable[str]) -> dict[str, FieldMap]:
    """`--map` options as {target: FieldMap}; a target given twice is an error."""
    mapping: dict[str, FieldMap] = {}
    for option in options:
        found = parse_field_map(option)
        if found.target in mapping:
            raise MappingSyntaxError(f"--map: field {found.target!r} is mapped twice")
        mapping[found.target] = found
    return mapping


def as_field_maps(mapping: Mapping[str, str | FieldMap] | None) -> dict[str, FieldMap]:
    """A mapping given as {target: source} (renames) or {target: FieldMap}."""
    return {
        target: value if isinstance(value, FieldMap) else FieldMap(target, source=value)
        for target, value in (mapping or {}).items()
    }
