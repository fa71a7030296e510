"""Exports: every item, response, rating and preference, with provenance, as CSV, JSONL or
Parquet, in the formats `judgeboard import` reads back (see `files.py`)."""

from dashboard.export.files import (
    FORMATS,
    KINDS,
    MIME_TYPES,
    ExportCounts,
    ExportError,
    ExportResult,
    download_name,
    export,
    export_bytes,
    export_counts,
    export_paths,
    format_of,
)

__all__ = [
    "FORMATS",
    "KINDS",
    "MIME_TYPES",
    "ExportCounts",
    "ExportError",
    "ExportResult",
    "download_name",
    "export",
    "export_bytes",
    "export_counts",
    "export_paths",
    "format_of",
]
