"""Where tests find the repository's sample data and the real public data beside it."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO_ROOT / "data"
# Real public data lives beside the project, never inside it (see ../shared/data/README.md).
SHARED_DATA = (REPO_ROOT / ".." / "shared" / "data").resolve()
TEST_DATA = REPO_ROOT / "tests" / "data"  # small files made by the tools whose formats are read
