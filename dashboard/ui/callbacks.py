"""Callbacks that run to their end.

Streamlit stops a run at its next yield point once a new run is asked for (a second click,
a key press, a fragment's timer), and every read or write of `st.session_state` is such a
point, in a widget's callback too. A save's callback stopped after it had spent its form's
token but before its write lost the label: the page showed the form again, still filled in,
and the click that stopped it found the token spent. Under `whole`, the callback's
session-state steps do not stop it; the run asked for starts right after the callback, at
Streamlit's own check that follows the callbacks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from streamlit.runtime.state.session_state_proxy import get_session_state

P = ParamSpec("P")
T = TypeVar("T")


def _no_yield() -> None:
    return None


def whole(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn`, run without stopping at its session-state steps (see the module's text)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        state = get_session_state()
        before = state.__dict__.get("_yield_callback")
        if before is None:  # not a script run's state (nothing can stop it)
            return fn(*args, **kwargs)
        object.__setattr__(state, "_yield_callback", _no_yield)
        try:
            return fn(*args, **kwargs)
        finally:
            object.__setattr__(state, "_yield_callback", before)

    return run
