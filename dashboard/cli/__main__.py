"""`python -m dashboard.cli`: the `judgeboard` command."""

import sys

from dashboard.cli import main

sys.exit(main())
