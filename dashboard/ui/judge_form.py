"""Run judges: define a self-hosted judge (model, api_base, concurrency, max tokens, prices)
and save it as a panel file; and show the chosen rubric's prompt. Each a function, so that the
page calls it in a line."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboard import ui
from dashboard.auth.roles import RoleError
from dashboard.judging import PanelError, Rubric
from dashboard.judging.panel_files import SelfHostedJudge, save_panel

FORM_KEY = "jb_judge_form"
SAVED_KEY = "jb_judge_form_saved"


def _price(column: DeltaGenerator, label: str, key: str) -> float:
    return float(
        column.number_input(label, min_value=0.0, value=0.0, step=0.0001, format="%.4f", key=key)
    )


def _key_note(api_base: str, key_env: str) -> str:
    """Which key (by variable name, never its value) goes to which endpoint."""
    where = ui.md_escape(api_base.strip() or "the api_base")
    if key_env.strip():
        return f"Key: the value of {ui.md_escape(key_env.strip())} is sent to {where}."
    return f"Key: none is sent to {where} (no key variable named)."


def _inputs() -> SelfHostedJudge:
    left, right = st.columns(2)
    model = left.text_input(
        "Model (LiteLLM model string)",
        placeholder="hosted_vllm/llama-3.1-8b-instruct (vLLM, llama.cpp, TGI: no key needed)",
        key=f"{FORM_KEY}_model",
    )
    api_base = right.text_input(
        "api_base", placeholder="http://127.0.0.1:8000/v1", key=f"{FORM_KEY}_api_base"
    )
    name = left.text_input("Judge name (default: the model)", key=f"{FORM_KEY}_name")
    panel = right.text_input("Panel file name", placeholder="my-vllm", key=f"{FORM_KEY}_panel")
    a, b, c, d = st.columns(4)
    concurrency = a.number_input(
        "Concurrency", min_value=1, max_value=512, value=4, key=f"{FORM_KEY}_concurrency"
    )
    max_tokens = b.number_input(
        "Max tokens", min_value=1, max_value=65536, value=512, key=f"{FORM_KEY}_max_tokens"
    )
    usd_in = _price(c, "USD per 1k tokens in", f"{FORM_KEY}_usd_in")
    usd_out = _price(d, "USD per 1k tokens out", f"{FORM_KEY}_usd_out")
    key_env = st.text_input(
        "Key variable (optional: the NAME of an environment variable, never the key)",
        key=f"{FORM_KEY}_key_env",
        help=(
            "The api_base above receives only this variable's value. Left empty, no key is "
            "sent to it: never OPENAI_API_KEY or another provider's key from the environment."
        ),
    )
    st.caption(_key_note(api_base, key_env))
    return SelfHostedJudge(
        panel=panel.strip(),
        model=model,
        api_base=api_base,
        name=name,
        concurrency=int(concurrency),
        max_tokens=int(max_tokens),
        usd_per_1k_in=usd_in,
        usd_per_1k_out=usd_out,
        api_key_env=key_env,
    )


def self_hosted_form(*, panel_key: str, source_key: str, source_value: str) -> None:
    """An expander with the form; a saved panel becomes the page's chosen panel file (the
    page's `source_key` radio set to `source_value`, its `panel_key` selectbox to the name).
    Call it before those widgets are drawn."""
    with st.expander("Define a self-hosted judge", expanded=False):
        with st.form(FORM_KEY, clear_on_submit=False):
            judge = _inputs()
            submitted = st.form_submit_button("Save as a panel file", key=f"{FORM_KEY}_save")
        if submitted:
            try:
                path, _ = save_panel(judge, actor=ui.actor())
            except (PanelError, RoleError) as error:
                st.error(ui.md_escape(error))
            else:
                st.session_state[SAVED_KEY] = str(path)
                st.session_state[source_key] = source_value
                st.session_state[panel_key] = path.stem
        if saved := st.session_state.get(SAVED_KEY):
            st.success(f"Saved {ui.md_escape(saved)}; it is chosen below.")


def rubric_prompt(rubric: Rubric) -> None:
    """The rubric's prompt as the judge receives it, its {placeholders} unfilled."""
    with st.expander(f"The prompt of {rubric.name} v{rubric.version}", expanded=False):
        if rubric.system:
            ui.show_text(rubric.system, label="system message")
        ui.show_text(rubric.template, label="user message")
