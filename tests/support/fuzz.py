"""Bad input files for the import fuzzer (tests/ingest/test_fuzz.py): every format judgeboard
reads, in every file kind, damaged in ways a person or a broken tool damages them.

A case starts from a few good records of one format (the published sets' records are taken
from the real files in ../shared/data), changes some of their values, names or structure,
writes them as JSONL, a JSON array, CSV or Parquet, and may then damage the bytes. All of it
comes from one `random.Random`, so a seed and a case number rebuild the same file.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tests.ingest.conftest import write_csv
from tests.paths import SHARED_DATA

Record = dict[str, Any]

_ITEM = {"question": "What is the capital of France?", "id": "q1"}
_RATING = {
    **_ITEM,
    "system": "sys-a",
    "answer": "Paris.",
    "rater_kind": "human",
    "rater": "ana",
    "rubric": "fuzz-likert",
    "value": 4,
    "scale_low": 1,
    "scale_high": 5,
}
_PAIR = {
    "question": "Which answer is better?",
    "answer_a": "Paris.",
    "answer_b": "Lyon.",
    "system_a": "sys-a",
    "system_b": "sys-b",
}
# A good record of each of the known formats (docs/formats.md).
GENERIC: dict[str, list[Record]] = {
    "rag": [
        {**_ITEM, "answer": "Paris.", "gt_answer": ["Paris"], "contexts": ["Paris is..."]},
        {"question": "Who wrote Hamlet?", "answer": "Shakespeare.", "gt_context": "Hamlet is"},
    ],
    "mcqa": [{"question": "2+2?", "options": ["3", "4", "5"], "gold": "B", "answer": "B"}],
    "hallucination": [
        {"question": "q", "context": "c", "candidate": "x", "label": "yes", "prediction": "no"}
    ],
    "conversational": [
        {"history": ["hi", "hello"], "question": "and then?", "answer": "then", "gold_answers": "t"}
    ],
    "pairwise": [{**_PAIR, "winner": "A", "rater": "bob"}],
    "ratings": [
        _RATING,
        {**_RATING, "rater": "bo", "value": None, "unscored_reason": "could not tell"},
    ],
    "preferences": [
        {
            **_PAIR,
            "rater_kind": "llm",
            "rater": "judge-1",
            "rubric": "fuzz-preference",
            "verdict": "tie",
        }
    ],
}
# A published set's file: where its first records come from, and its file kind.
PUBLISHED = {
    "mt_bench": ("mt_bench/instructlab_granite-7b-lab__gpt-4_single.jsonl", "jsonl"),
    "nq_open": ("nq_open/NQ-open.efficientqa.test.1.1.jsonl", "jsonl"),
    "llmbar": ("llmbar/natural_gpt-4_vanilla_result.json", "json"),
    "alpaca_eval": ("alpaca_eval/alpaca-7b__alpaca_eval_gpt4__annotations.json", "json"),
    "pandalm": ("pandalm/testset-v1.json", "json"),
}
KINDS = ("jsonl", "json", "csv", "parquet")


def published_records(name: str, n: int = 3) -> list[Record]:
    relative, kind = PUBLISHED[name]
    path = SHARED_DATA / relative
    if kind == "jsonl":
        with open(path, encoding="utf-8") as handle:
            return [json.loads(next(handle)) for _ in range(n)]
    return list(json.loads(path.read_text(encoding="utf-8"))[:n])


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


# Values a field should not hold, and some it may: the importer must refuse each clearly or
# import it; never crash, never store a number that poisons a metric.
def _odd_values(rng: random.Random) -> list[Any]:
    return [
        None,
        "",
        " ",
        0,
        -1,
        1e308,
        -1e308,
        2**63,
        -(2**70),
        math.nan,
        math.inf,
        -math.inf,
        "NaN",
        "Infinity",
        "-inf",
        "1e999",
        True,
        False,
        [],
        {},
        [1, "two", None],
        {"a": {"b": [1]}},
        '=HYPERLINK("http://x")',
        "\x00nul",
        "é✓😀",
        "\ud800" if rng.random() < 0.5 else "\u202e",
        "x" * rng.choice((300, 70_000)),
        "2024-13-45T99:99:99",
        "A, Z",
        "tie",
        "llm",
        _deep(rng.choice((20, 127, 129, 400))),
        "\n".join(["a,b", '"c'] * 3),
    ]


def _typo(name: str, rng: random.Random) -> str:
    if len(name) < 2:
        return name + "_"
    i = rng.randrange(len(name) - 1)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def _mutate_records(records: list[Record], rng: random.Random) -> tuple[list[Any], list[str]]:
    """Some changes to the records' values, names or structure; what was done, in words."""
    out: list[Any] = [dict(r) for r in records]
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        objects = [r for r in out if isinstance(r, dict) and r]
        if not objects:
            break
        record = rng.choice(objects)
        key = rng.choice(sorted(record))
        what = rng.random()
        if what < 0.55:
            value = rng.choice(_odd_values(rng))
            record[key] = value
            done.append(f"{key}={_short(value)}")
        elif what < 0.65:
            del record[key]
            done.append(f"drop {key}")
        elif what < 0.75:
            for r in out:
                if isinstance(r, dict) and key in r:
                    r[_typo(key, rng)] = r.pop(key)
            done.append(f"rename {key}")
        elif what < 0.82:
            record[rng.choice(("extra", "", "x" * 300, "question "))] = rng.choice(_odd_values(rng))
            done.append("extra column")
        elif what < 0.9:
            out.append(json.loads(json.dumps(record, allow_nan=True)))
            out[-1][key] = rng.choice(_odd_values(rng))
            done.append(f"duplicate with {key} changed")
        else:
            out[out.index(record)] = rng.choice(([1, 2], "text", None, 3.5))
            done.append("a record that is not an object")
    return out, done


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


def _json_text(value: Any) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=False)


def _parquet_safe(records: list[Any]) -> list[Record]:
    """Records pyarrow can write: a column of mixed types becomes its values' JSON text."""
    rows = [r if isinstance(r, dict) else {"value": r} for r in records]
    columns = list(dict.fromkeys(k for r in rows for k in r))
    for column in columns:
        kinds = {type(r[column]) for r in rows if r.get(column) is not None}
        nested = any(isinstance(r.get(column), (list, dict)) for r in rows)
        if (
            len(kinds) > 1
            or nested
            or str in kinds
            and any(isinstance(r.get(column), str) and "\ud800" in r[column] for r in rows)
        ):
            for r in rows:
                if column in r and r[column] is not None:
                    r[column] = _json_text(r[column])
        elif kinds == {int} and any(abs(r[column]) >= 2**63 for r in rows if r.get(column)):
            for r in rows:
                if r.get(column) is not None:
                    r[column] = float(r[column])
    return rows


def write_file(path: Path, kind: str, records: list[Any]) -> None:
    if kind == "jsonl":
        text = "".join(_json_text(r) + "\n" for r in records)
        path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    elif kind == "json":
        path.write_bytes(_json_text(records).encode("utf-8", errors="surrogatepass"))
    elif kind == "csv":
        rows = [r if isinstance(r, dict) else {"value": _json_text(r)} for r in records]
        rows = [{k: _csv_cell(v) for k, v in r.items()} for r in rows]
        try:
            write_csv(path, rows)
        except UnicodeEncodeError:
            path.write_text(
                "question,answer\nq,\ud800".encode(errors="surrogatepass").decode(
                    "utf-8", errors="replace"
                )
            )
    else:
        try:
            pq.write_table(pa.Table.from_pylist(_parquet_safe(records)), path)
        except (pa.ArrowException, UnicodeEncodeError, OverflowError):
            rows = [{k: _json_text(v) for k, v in r.items()} for r in _parquet_safe(records)]
            try:
                pq.write_table(pa.Table.from_pylist(rows), path)
            except (pa.ArrowException, UnicodeEncodeError):
                pq.write_table(pa.table({"question": ["q"], "answer": ["a"]}), path)


def _csv_cell(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # nan, inf, -inf: as a spreadsheet or pandas writes them
    if isinstance(value, str) and "\ud800" in value:
        return value.replace("\ud800", "?")
    return value


def _damage_bytes(path: Path, rng: random.Random) -> str | None:
    """Maybe damage the file's bytes; what was done, in words."""
    data = path.read_bytes()
    what = rng.random()
    if what < 0.7 or not data:
        return None
    if what < 0.78:
        cut = rng.randrange(len(data))
        path.write_bytes(data[:cut])
        return f"truncated at byte {cut}"
    if what < 0.86:
        at = rng.randrange(len(data))
        path.write_bytes(data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :])
        return f"byte {at} changed"
    if what < 0.9:
        at = rng.randrange(len(data))
        path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
        return f"invalid UTF-8 at byte {at}"
    if what < 0.94:
        path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
        return "BOM and CRLF"
    if what < 0.97:
        path.write_bytes(data + data[: rng.randrange(len(data))])
        return "a partial copy appended"
    path.write_bytes(b"")
    return "empty"


@dataclass(frozen=True)
class Case:
    number: int
    fmt: str
    kind: str
    path: Path
    changes: tuple[str, ...]
    options: dict[str, Any]

    def describe(self, seed: int) -> str:
        return (
            f"seed {seed} case {self.number}: {self.fmt} as {self.kind}, "
            f"{'; '.join(self.changes) or 'unchanged'}, options {self.options}"
        )


def make_case(
    number: int, folder: Path, rng: random.Random, seeds: Callable[[str], list[Record]]
) -> Case:
    fmt = rng.choice((*GENERIC, *PUBLISHED))
    if fmt in PUBLISHED:
        kind = PUBLISHED[fmt][1]
        if fmt == "pandalm" and rng.random() < 0.5:
            kind = rng.choice(("jsonl", "csv", "parquet"))  # the wrong kind for its adapter
    else:
        kind = rng.choice(KINDS)
    records, changes = _mutate_records(seeds(fmt), rng)
    stem = rng.choice(("case", "case with spaces", "ça-✓", "x" * 200))
    path = folder / f"{number}-{stem}.{kind}"
    write_file(path, kind, records)
    damage = _damage_bytes(path, rng)
    options: dict[str, Any] = {}
    if rng.random() < 0.15:
        options["fmt"] = rng.choice((*GENERIC, *PUBLISHED))
    if rng.random() < 0.1:
        options["mapping"] = {
            rng.choice(("question", "answer", "value")): rng.choice(
                sorted({k for r in records if isinstance(r, dict) for k in r}) or ["question"]
            )
        }
    return Case(number, fmt, kind, path, (*changes, *([damage] if damage else [])), options)


def seed_records(fmt: str) -> list[Record]:
    if fmt in GENERIC:
        return [dict(r) for r in GENERIC[fmt]]
    return published_records(fmt)
