"""`judgeboard export`: every item, response, rating and preference (CSV, JSONL, Parquet).

judgeboard export --out results.parquet
-> results.ratings.parquet and results.preferences.parquet, which `judgeboard import`
   reads back with no options, one file at a time in either order, or as a folder.
judgeboard export --golden gold.jsonl
-> the items with their corrected references, in the format they came in
   (`dashboard/export/golden.py`).
judgeboard export --to inspect LOG.eval
-> people's labels on the log's imported samples, written into the log as score edits.
judgeboard export --format hf OUT
-> OUT/README.md (a dataset card) and OUT/data/*.parquet, which `datasets.load_dataset`
   loads (`dashboard/export/hf.py`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dashboard.cli.common import CommandError, open_store, require_dataset, require_rubric

EPILOG = (
    "Two files go beside FILE, named FILE's name with .ratings and .preferences before the "
    "suffix. The ratings file holds every item and response: a row per rating (current and "
    "superseded), a row with the rating fields empty per response nobody rated, and a row "
    "with the response fields empty too per item without responses. The preferences file "
    "holds a row per preference. Each row has is_current (false once superseded), "
    "created_utc, rubric_version, rater_kind, rater and the ids; ratings carry the "
    "response's effective_score (0-1). `judgeboard import` reads either file back with no "
    "options (or the folder holding both) and rebuilds the same items, responses, ratings, "
    "preferences and metrics; judge calls are not exported. People's tag labels, when "
    "there are any, go to a third file (.tags before the suffix), which `judgeboard import` "
    "reads back after the ratings file (or with the folder). With --to inspect LOG, "
    "people's current labels of the responses imported from that Inspect log are written "
    "into it as score edits (author: the person; reason: their comment, or 'judgeboard "
    "label'; value on 0-1), which Inspect's viewer and reader show with their history."
)
TARGETS = ("inspect",)
FOLDER_FORMATS = ("hf",)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write every item, response, rating and preference, with provenance, "
        "to CSV, JSONL or Parquet",
        description=__doc__.split("\n\n")[0],
        epilog=EPILOG,
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--out",
        metavar="FILE.{csv,jsonl,parquet}",
        help="the format follows the suffix (required unless --to is given)",
    )
    target.add_argument(
        "--golden",
        metavar="FILE.{csv,jsonl,parquet}",
        help="write instead the items with their current references (people's corrections "
        "where there are, else the imported ones), a row per response, in the format they "
        "came in (rag, conversational, mcqa, hallucination; other items in the ratings "
        "format); several formats go to FILE's name with the format before the suffix",
    )
    parser.add_argument(
        "--to",
        choices=TARGETS,
        help="write people's labels back into a tool's file: inspect (an Inspect AI log "
        "imported earlier, named by LOG)",
    )
    target.add_argument(
        "--format",
        choices=FOLDER_FORMATS,
        help="write a folder OUT instead: hf (a Hugging Face dataset: Parquet files and a "
        "dataset card that datasets.load_dataset loads)",
    )
    parser.add_argument(
        "log",
        nargs="?",
        metavar="LOG|OUT",
        help="the Inspect log, with --to; the folder, with --format",
    )
    parser.add_argument("--dataset", metavar="D", help="one dataset (default: all)")
    parser.add_argument(
        "--rubric",
        metavar="NAME",
        help="only this rubric's ratings and preferences (default: every rubric's); every "
        "item and response is still written",
    )
    parser.add_argument(
        "--rated-only",
        action="store_true",
        help="leave out the rows of responses and items nobody rated (the files then do not "
        "import back to every item)",
    )
    parser.add_argument(
        "--per-response",
        action="store_true",
        help="also write FILE's name with .responses: one row per response, its scores side "
        "by side (RUBRIC:RATER on the rubric's scale, RUBRIC:effective on 0-1)",
    )
    parser.set_defaults(handler=run)


def _golden(args: argparse.Namespace) -> int:
    from dashboard.export.files import ExportError
    from dashboard.export.golden import export_golden

    store = open_store(args)
    require_dataset(store, args.dataset)
    try:
        result = export_golden(store, args.golden, dataset=args.dataset)
    except ExportError as error:
        raise CommandError(str(error)) from None
    for f in result.files:
        mapped = f" (columns named as {f.mapping})" if f.mapping else ""
        print(
            f"{f.format}: {f.n_items} items, {f.n_corrected} with corrected references, "
            f"{f.rows} rows{mapped} -> {f.path}"
        )
    return 0


def _to_inspect(args: argparse.Namespace) -> int:
    from dashboard.export.inspect import InspectExportError, export_to_inspect

    if args.log is None:
        raise CommandError("--to inspect needs the log to write to: export --to inspect LOG")
    if (
        args.out
        or args.golden
        or args.format
        or args.dataset
        or args.rubric
        or args.rated_only
        or args.per_response
    ):
        raise CommandError("--to inspect LOG takes no other option")
    try:
        result = export_to_inspect(open_store(args), Path(args.log))
    except InspectExportError as error:
        raise CommandError(str(error)) from None
    other = (
        f"; {result.other_rubric} labels of rubrics that are no score of the log left out"
        if result.other_rubric
        else ""
    )
    print(f"{args.log}: {result.written} score edits written{other}")
    return 0


def _to_hf(args: argparse.Namespace) -> int:
    from dashboard.export.files import ExportError
    from dashboard.export.hf import export_hf

    if args.log is None:
        raise CommandError("--format hf needs the folder to write: export --format hf OUT")
    if args.per_response:
        raise CommandError("--format hf OUT takes no --per-response")
    store = open_store(args)
    require_dataset(store, args.dataset)
    require_rubric(store, args.rubric)
    try:
        written = export_hf(
            store, args.log, dataset=args.dataset, rubric=args.rubric, unrated=not args.rated_only
        )
    except ExportError as error:
        raise CommandError(str(error)) from None
    for kind, path in written.result.files.items():
        print(f"{kind}: {written.result.rows[kind]} rows -> {path}")
    print(f"dataset card -> {written.folder / 'README.md'}")
    return 0


def run(args: argparse.Namespace) -> int:
    from dashboard.export.files import ExportError, export

    if args.golden:
        return _golden(args)
    if args.to is not None:
        return _to_inspect(args)
    if args.format is not None:
        return _to_hf(args)
    if args.out is None or args.log is not None:
        raise CommandError("export needs --out FILE (or --golden FILE, or --to inspect LOG)")
    store = open_store(args)
    require_dataset(store, args.dataset)
    require_rubric(store, args.rubric)
    try:
        result = export(
            store,
            args.out,
            dataset=args.dataset,
            rubric=args.rubric,
            unrated=not args.rated_only,
            per_response=args.per_response,
        )
    except ExportError as error:
        raise CommandError(str(error)) from None
    for kind, n in result.rows.items():
        where = result.files.get(kind)
        unrated = (
            f" ({result.without_rating} of them items or responses nobody rated)"
            if kind == "ratings" and result.without_rating
            else ""
        )
        print(f"{kind}: {n} rows{unrated}" + (f" -> {where}" if where else " (no file written)"))
    return 0
