"""`python -m dashboard.metrics` prints the names table of docs/metrics.md, from the
declarations (`registry.py`); a test keeps the docs true."""

import sys

from dashboard.metrics import registry

sys.stdout.write(registry.docs_table())
