"""Tests of the judge panel: rubrics, panels, the runner against the loopback server."""
