"""`judgeboard import PATH`: import a file or a folder of eval data (see docs on formats)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dashboard.cli.common import CommandError, open_store
from dashboard.ingest import ALL_FORMATS, IngestError, import_path
from dashboard.ingest.mapping import MappingSyntaxError, parse_mapping
from dashboard.ingest.runner import ON_ERROR, SCORING

# Files smaller than this import in about a second: no progress bar.
PROGRESS_MIN_BYTES = 4 * 1024 * 1024
BAD_INPUT_STATUS = 1


EPILOG = """\
--map, one option per field (quote it for the shell):
  --map question=prompt                        read column prompt as field question
  --map 'system_a="gpt-4o"'                    every record's system_a is gpt-4o
  --map 'winner=label{A>B:A,B>A:B,A=B:tie}'    read column label, mapping its values
  A FROM or TO may be double-quoted to hold , : { } or spaces ("a, b":A); an empty TO
  maps the value to nothing (error:). A value the mapping does not name is an error.

The dataset is --dataset, else the file's name (for a folder: the folder's name), for the
published sets too; a file with a name many files share (dataset.json, result.json) takes its
folder's name. See docs/formats.md for every format and field.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import a file or folder (JSON, JSONL, CSV, Parquet)",
        description="Import eval data. The format is detected from the columns; the real\n"
        "public sets (PandaLM, AlpacaEval, LLMBar, NQ-open, MT-Bench) are known by their\n"
        "keys. A failed import changes nothing.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        help="a file, or a folder (its subfolders too: every file in a known format)",
    )
    parser.add_argument(
        "--dataset",
        metavar="NAME",
        help="dataset to import into (default: the file's or folder's name)",
    )
    parser.add_argument(
        "--system",
        metavar="NAME",
        help="system that wrote the answers, when the file has no `system` "
        "column (default: the file's name)",
    )
    parser.add_argument(
        "--format",
        dest="fmt",
        choices=ALL_FORMATS,
        metavar="F",
        help=f"skip detection: one of {', '.join(ALL_FORMATS)}",
    )
    parser.add_argument(
        "--map",
        dest="mapping",
        action="append",
        default=[],
        metavar="TARGET=SOURCE",
        help='read column SOURCE as field TARGET (--map question=prompt); TARGET="TEXT" '
        "sets a constant (--map 'system_a=\"gpt-4o\"'); TARGET=SOURCE{FROM:TO,...} maps "
        "the column's values (--map 'winner=label{A>B:A,B>A:B,A=B:tie}'); see below",
    )
    parser.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="fail",
        help="fail (default): a bad record stops the import and nothing is written; skip: "
        "import the good records and write the bad ones, with what is wrong, to "
        "FILE.rejects.jsonl beside the file",
    )
    parser.add_argument(
        "--reference-rule",
        choices=("max", "leave-one-out"),
        help="how EM and F1 combine several references for the datasets imported into: max "
        "(SQuAD, NQ-open) or leave-one-out (CoQA, TopiOCQA); default: max for open QA, "
        "leave-one-out for conversational QA",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="when this file's content was imported into the dataset before and gave other "
        "items or responses (another --map), remove what that import brought instead of "
        "refusing to hold the file twice",
    )
    parser.add_argument(
        "--max-record-mb",
        type=float,
        metavar="MB",
        help="refuse a record (a JSONL or CSV line, a JSON array element) longer than this, "
        "before reading the file (default: $JUDGEBOARD_MAX_RECORD_MB, else 64)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument(
        "--no-score",
        action="store_true",
        help="do not score the answers against their references now (EM/F1, "
        "MCQA, hallucination verdicts); `judgeboard score` does it later",
    )
    parser.set_defaults(handler=run)


class _Bars:
    """One tqdm bar on stderr per stage of a long import."""

    def __init__(self) -> None:
        self._stage: str | None = None
        self._bar: Any = None

    def __call__(self, stage: str, fraction: float | None) -> None:
        from tqdm import tqdm

        if not stage.startswith(("reading", SCORING)):  # the others take a moment each
            self.close()
            return
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = tqdm(
                total=100,
                desc=stage,
                unit="%",
                file=sys.stderr,
                leave=False,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}",
            )
        if fraction is not None and self._bar is not None:
            self._bar.n = round(fraction * 100)
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


def run(args: argparse.Namespace) -> int:
    try:
        mapping = parse_mapping(args.mapping)
    except MappingSyntaxError as error:
        raise CommandError(str(error)) from None
    path = Path(args.path)
    bars = None if args.no_progress or _size(path) < PROGRESS_MIN_BYTES else _Bars()
    store = open_store(args)
    try:
        report = import_path(
            store,
            path,
            dataset=args.dataset,
            system=args.system,
            fmt=args.fmt,
            mapping=mapping,
            on_error=args.on_error,
            on_progress=bars,
            score=not args.no_score,
            reference_rule=args.reference_rule,
            replace=args.replace,
            max_record_mb=args.max_record_mb,
        )
    except IngestError as error:
        raise CommandError(f"{error} (nothing was imported)", status=BAD_INPUT_STATUS) from None
    finally:
        if bars is not None:
            bars.close()
    for line in report.lines():
        print(line)
    return 0
