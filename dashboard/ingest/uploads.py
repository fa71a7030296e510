"""Importing a file uploaded on the Data page, through the CLI's importer, with its errors.

The upload is written under its own name into a private temporary folder, so the importer
sees the same extension (which picks the reader) and the same name (the default dataset and
system) as `judgeboard import NAME` would, and an error names the file as the user knows it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from dashboard.ingest import ImportReport, IngestError, ProgressCallback, import_path
from dashboard.ingest.detect import parse_mapping
from dashboard.store import Store

EXTENSIONS = ("json", "jsonl", "csv", "parquet")
NOTHING_IMPORTED = " (nothing was imported)"  # what the CLI adds to an IngestError


class UploadError(ValueError):
    """An upload that was not imported; the message is the one `judgeboard import` prints."""


def parse_mapping_lines(text: str) -> dict[str, str]:
    """`--map`-style lines (TARGET=SOURCE, one a line; blank lines and # comments skipped)."""
    lines = [line.strip() for line in text.splitlines()]
    try:
        return parse_mapping([line for line in lines if line and not line.startswith("#")])
    except ValueError as error:
        raise UploadError(str(error)) from None


# A file name may take 255 bytes on most file systems; the upload's is cut to fit, keeping its
# extension (which picks the reader).
MAX_NAME_BYTES = 255


def _safe_name(name: str) -> str:
    """The file's own name, without any folder a browser might send or a NUL byte, cut to a
    length the file system takes."""
    base = Path(name.replace("\\", "/").replace("\x00", "")).name.strip()
    if base in ("", ".", ".."):
        return "upload"
    suffix = Path(base).suffix if len(Path(base).suffix.encode()) < 32 else ""
    stem = base[: len(base) - len(suffix)] if suffix else base
    room = MAX_NAME_BYTES - len(suffix.encode())
    return stem.encode()[:room].decode("utf-8", errors="ignore").rstrip() + suffix


def import_upload(
    store: Store,
    name: str,
    data: BinaryIO,
    *,
    dataset: str | None = None,
    system: str | None = None,
    fmt: str | None = None,
    mapping: str = "",
    on_progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import one uploaded file in one transaction; raises UploadError and writes nothing
    when the file is bad."""
    options = parse_mapping_lines(mapping)
    with tempfile.TemporaryDirectory(prefix="judgeboard-upload-") as folder:
        path = Path(folder) / _safe_name(name)
        with open(path, "wb") as handle:
            shutil.copyfileobj(data, handle, length=1024 * 1024)
        try:
            report = import_path(
                store,
                path,
                dataset=(dataset or "").strip() or None,
                system=(system or "").strip() or None,
                fmt=fmt or None,
                mapping=options,
                on_progress=on_progress,
            )
        except IngestError as error:
            message = str(error).replace(f"{folder}/", "")
            raise UploadError(message + NOTHING_IMPORTED) from error
    return report
