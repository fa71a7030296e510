"""What the two labelling pages share (Annotate: `labelling.py`, Pairwise: `pair_labelling.py`).

Each page names its state and its buttons by its prefix ("annotate", "pairwise"): the item on
the page (`<prefix>_open`), the person's saves this session, newest last, for Undo
(`<prefix>_undo`; a page that shows one campaign at a time keeps one list per campaign, under
`<prefix>_undo` and its `scope`, so Undo last takes back a save of the campaign shown), the
tokens of the forms already saved (`<prefix>_done`), the line a save leaves for the page
drawn after it (`<prefix>_saved`), a refused save's message
(`<prefix>_error`), and the buttons Skip, Undo last and Withdraw (`<prefix>_skip`,
`<prefix>_undo_button`, `<prefix>_withdraw`), which the keys s and u click as Enter clicks
the form's save (`<prefix>_save_<token>`).

No race: a page's form is keyed by a token of the item and of the person's label it was drawn
on, and its save runs in the submit button's callback with that token bound to it. So a save
applies only to the item it was made on, and a second click on the same form (a double click,
or a click on a form left on the screen while the next one draws) finds its token spent.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st

from dashboard import ui
from dashboard.ui import callbacks, keys, widgets

T = TypeVar("T")


@st.cache_resource(show_spinner=False)
def _claims_lock() -> threading.Lock:
    return threading.Lock()


@dataclass(frozen=True)
class LabellingKit:
    """One labelling page's state and its shared steps; `what` is what a person gives there
    ("label", "vote")."""

    prefix: str
    what: str

    @property
    def open_key(self) -> str:
        return f"{self.prefix}_open"

    @property
    def undo_key(self) -> str:
        return f"{self.prefix}_undo"

    @property
    def done_key(self) -> str:
        return f"{self.prefix}_done"

    @property
    def flash_key(self) -> str:
        return f"{self.prefix}_saved"

    @property
    def error_key(self) -> str:
        return f"{self.prefix}_error"

    def token(self, *parts: str) -> str:
        """A form's token: the item on the page and the person's current label of it."""
        return hashlib.md5("\x1f".join(parts).encode()).hexdigest()[:12]

    def claim(self, token: str) -> bool:
        """True for the first save of a form. A second click can start a new run while the
        first still saves (Streamlit stops the old run and starts the next one at once), so
        the check and the claim are one step, under a lock, before the write."""
        with _claims_lock():
            done: set[str] = st.session_state.setdefault(self.done_key, set())
            if token in done:
                return False
            done.add(token)
            return True

    def refuse(self, token: str, markdown: str) -> None:
        """The form's save refused; `markdown` (escaped where it quotes anything) says why."""
        st.session_state.setdefault(self.done_key, set()).discard(token)  # fixed, it may save
        st.session_state[self.error_key] = (token, markdown)

    def show_refusal(self, token: str) -> None:
        """Under the form: why its last save was refused, if it was."""
        error = st.session_state.get(self.error_key)
        if error and error[0] == token:
            st.error(error[1])

    def flash(self, text: str, pending: bool) -> None:
        """The line the page drawn next shows (`widgets.show_confirmation`)."""
        st.session_state[self.flash_key] = text + (widgets.PENDING_NOTE if pending else "")

    def scoped_key(self, scope: str | None) -> str:
        """Where the saves of `scope` (the campaign shown; None: outside any) are kept."""
        return self.undo_key if scope is None else f"{self.undo_key}\x1f{scope}"

    def saves(self, scope: str | None = None) -> list[Any]:
        """The person's saves this session in `scope`, newest last: what Undo last takes back
        while that scope is shown."""
        found: list[Any] = st.session_state.setdefault(self.scoped_key(scope), [])
        return found

    def has_saves(self, scope: str | None = None) -> bool:
        return bool(st.session_state.get(self.scoped_key(scope)))

    def undone(self) -> set[str]:
        """The ids of the rows this session's undos wrote: a later Undo last reaching back to
        the store passes over them (else a second `u` would take the first one back)."""
        found: set[str] = st.session_state.setdefault(f"{self.prefix}_undone", set())
        return found

    def undo_last(
        self,
        undo: Callable[..., Any],
        *,
        refused: type[Exception],
        stored: Callable[[], Any | None] | None = None,
        scope: str | None = None,
    ) -> Any | None:
        """Undo the newest save of `scope` with `undo(store, record)` (`ui.write`): its result,
        or None when there is nothing to undo or the undo is refused (the page then says why).
        With no save of `scope` in this session, the newest one in the store (`stored()`, say
        a label saved yesterday) is undone."""
        stack: list[Any] = st.session_state.get(self.scoped_key(scope), [])
        last = stack.pop() if stack else (stored() if stored is not None else None)
        if last is None:
            return None
        try:
            return ui.write(undo, last)
        except refused as error:
            st.session_state[self.flash_key] = ui.md_escape(error)
            return None

    @callbacks.whole
    def withdraw(self, fn: Callable[..., Any], mine: Any, scope: str | None = None) -> None:
        """Withdraw's callback: `fn(store, mine)` (`ui.write`), which Undo last can take back
        while `scope` is shown."""
        saved = ui.write(fn, mine)
        self.saves(scope).append(saved.record)
        st.session_state[self.open_key] = None
        self.flash(f"Withdrew your {self.what}.", saved.pending)

    def actions(
        self,
        where: str | None,
        *,
        skip: Callable[[], None] | None,
        withdraw: Callable[[], None] | None,
        undo: Callable[[], None],
        stored_undo: bool = False,
        scope: str | None = None,
    ) -> None:
        """Skip, Undo last and Withdraw, in one row with where the person is; None: that
        button is off. `stored_undo`: the store holds a save Undo last can take back, though
        this session saved nothing in `scope`."""
        skip_column, undo_column, withdraw_column, where_column = st.columns([1, 1, 1, 5])
        button: Callable[..., bool] = st.button
        with skip_column:
            button("Skip", key=f"{self.prefix}_skip", disabled=skip is None, on_click=skip)
        with undo_column:
            button(
                "Undo last",
                key=f"{self.prefix}_undo_button",
                disabled=not (self.has_saves(scope) or stored_undo),
                on_click=undo,
            )
        with withdraw_column:
            button(
                "Withdraw",
                key=f"{self.prefix}_withdraw",
                disabled=withdraw is None,
                on_click=withdraw,
            )
        if where is not None:
            where_column.text(where)

    def your_own(
        self,
        found: Mapping[str, T],
        *,
        describe: Callable[[T], str],
        on_open: Callable[[T | None], None],
    ) -> None:
        """The person's labels (or votes) on the rubric, newest first; one opens to change or
        withdraw it."""
        with st.expander(f"Your {self.what}s on this rubric ({len(found)} shown, newest first)"):
            if not found:
                st.caption("None yet.")
                return
            chosen = st.selectbox(
                "Open one to change or withdraw it",
                list(found),
                index=None,
                key=f"{self.prefix}_mine_pick",
                format_func=lambda key: describe(found[key]),
            )
            st.button(
                "Open",
                key=f"{self.prefix}_mine_open",
                disabled=chosen is None,
                on_click=on_open,
                args=(found.get(chosen) if chosen is not None else None,),
            )

    def listen(
        self,
        bindings: Mapping[str, Mapping[str, str]],
        *,
        questions: Sequence[Mapping[str, str]] = (),
        form: str = "",
    ) -> None:
        """The page's keys: `bindings` (the form's choices), then Enter saves, s skips and u
        undoes the last save; `questions` and `form` as in `keys.listen`."""
        keys.listen(
            {
                **bindings,
                "Enter": keys.click(f"{self.prefix}_save_"),
                "s": keys.click(f"{self.prefix}_skip"),
                "u": keys.click(f"{self.prefix}_undo_button"),
            },
            questions=questions,
            form=form,
        )
