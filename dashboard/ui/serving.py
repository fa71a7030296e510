"""How the Streamlit server process runs the dashboard, set once per process (`app.py`).

No long pauses of Python's collector. Streamlit's own collection after every run is off
(`judgeboard serve`: it took ~180 ms of each run), so Python's generational collector is the
only one; its full collections went through every object of every imported library, and one
held the server for 2.6 s while 20 labellers' sessions started (`bench/bench_labelling.py`,
docs/benchmarks.md). The modules the pages use are imported once and moved out of the
collector's way (`gc.freeze`): a full collection then walks only what the sessions made
(0.30 s at most in the next such run). Frozen objects are still freed when nothing refers
to them; only a reference cycle among them would stay, and they are the libraries' own
modules, classes and functions (and what the first run had made by then), which live as
long as the process.
"""

from __future__ import annotations

import gc
import importlib
import logging
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import streamlit as st

from dashboard.settings import package_dir

log = logging.getLogger(__name__)

# The packages the server never runs (the command line, the notebook API) and the script
# Streamlit runs itself.
_NOT_SERVED = ("dashboard.cli", "dashboard.notebook", "dashboard.app")


@st.cache_resource(show_spinner=False)
def tune() -> int:
    """Once per server process: import what the pages use, and freeze it out of the
    collector's way. Returns how many objects were frozen."""
    for name in _served_modules(package_dir(), "dashboard."):
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info("%d objects moved out of the collector's way", frozen)
    return frozen


def _served_modules(folder: Path, prefix: str) -> Iterator[str]:
    """The package's modules the server may run, found without importing any other."""
    for found in pkgutil.iter_modules([str(folder)], prefix):
        if found.name.startswith(_NOT_SERVED):
            continue
        yield found.name
        if found.ispkg:
            yield from _served_modules(folder / found.name.rsplit(".", 1)[1], found.name + ".")
