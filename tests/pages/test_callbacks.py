"""A new run asked for while a callback runs (a second click, a key press, a timer) must not
stop the callback half-way: Streamlit stops a run at any session-state step once a new run
is asked for, and a save's callback stopped after it had spent its form's token lost the
label. The app below asks for a new run from inside its button's callback, as a second
click does, spends its token and then takes two session-state steps."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _app(guarded: bool) -> None:
    import streamlit as st
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    from dashboard.ui import callbacks

    def save() -> None:
        ctx = get_script_run_ctx()
        assert ctx is not None and ctx.script_requests is not None
        spent: set[str] = st.session_state.setdefault("spent", set())
        ctx.script_requests.request_rerun(RerunData())  # what a second click does
        spent.add("token")  # the form's token, spent in place as the save does
        st.session_state["written"] = True
        st.session_state["saves"] = st.session_state.get("saves", 0) + 1

    st.button("Save", on_click=callbacks.whole(save) if guarded else save)
    st.write(f"saves: {st.session_state.get('saves', 0)}")


def _click(guarded: bool) -> AppTest:
    app = AppTest.from_function(_app, args=(guarded,), default_timeout=30)
    app.run()
    app.button[0].click().run()
    assert not app.exception
    return app


def test_an_unguarded_callback_is_stopped_half_way() -> None:
    """The defect itself, in real Streamlit: the claim is made, the write never is."""
    app = _click(guarded=False)
    assert app.session_state["spent"] == {"token"}
    assert "written" not in app.session_state
    assert "saves" not in app.session_state


def test_a_whole_callback_runs_to_its_end_and_the_run_asked_for_follows() -> None:
    app = _click(guarded=True)
    assert app.session_state["written"] is True
    assert app.session_state["saves"] == 1  # once: the new run does not call it again
    assert "saves: 1" in [m.value for m in app.markdown]
