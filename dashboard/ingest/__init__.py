"""Importing files: format detection, mapping, the real-set adapters, errors and progress.

`import_path(store, path, ...)` is the one entry point (the CLI's `judgeboard import` and the
Data page call it). DuckDB's own readers do the reading and all SQL lives in
`dashboard/store/importing*.py`; this package decides what a file is and what to call things,
and turns bad input into an `IngestError` naming the file, the record and the field.
"""

from dashboard.ingest.detect import ALL_FORMATS
from dashboard.ingest.errors import IngestError
from dashboard.ingest.runner import (
    FileReport,
    ImportReport,
    ImportRequest,
    ProgressCallback,
    import_path,
    import_requests,
)

__all__ = [
    "ALL_FORMATS",
    "FileReport",
    "ImportReport",
    "ImportRequest",
    "IngestError",
    "ProgressCallback",
    "import_path",
    "import_requests",
]
