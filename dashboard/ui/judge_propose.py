"""The Judge lab's Propose section: an optimizer model reads the dev disagreements and proposes
revised instructions, each saved as a draft version and scored on dev (no look at test); the
person picks one and compares it on test with the version in force (one recorded look)."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.judging import PanelError
from dashboard.judging.rubrics import RubricError
from dashboard.ui import pickers
from dashboard.ui.judge_lab import COMPARED, KEY
from dashboard.ui.runs import background_loop
from dashboard.workbench import lab, propose, run, shots, versions
from dashboard.workbench.agreement import VersionScore
from dashboard.workbench.lab import LabState

PROPOSED = f"{KEY}_proposed"
SEARCHED = f"{KEY}_shots_found"
DEV_NUMBERS = ("exact", "within_one", "kappa_quadratic")


def _ci(score: VersionScore | None, name: str) -> str:
    if score is None:
        return "—"
    e = getattr(score, name)
    if math.isnan(e.value):
        return f"— (n = {e.n})"
    return f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}] (n = {e.n})"


def _row(version: str, note: str, score: VersionScore | None) -> dict[str, Any]:
    return {
        "version": version,
        "why": note,
        **{f"{name} on dev": _ci(score, name) for name in DEV_NUMBERS},
    }


def _run(state: LabState, judge: str, version: str) -> None:
    optimizer = st.session_state[f"{KEY}_optimizer"].strip()
    loop = background_loop()
    result = ui.write(
        propose.propose_instructions,
        rubric=state.rubric.name,
        dataset=state.dataset,
        judge=judge,
        version=version,
        optimizer_model=optimizer,
        n_proposals=int(st.session_state[f"{KEY}_n_proposals"]),
        api_base=st.session_state[f"{KEY}_opt_base"].strip() or None,
        api_key_env=st.session_state[f"{KEY}_opt_key"].strip() or None,
        actor=ui.actor(),
        loop=loop,
    )
    names = [p.version.version for p in result.proposals]
    scores = (
        ui.write(
            propose.score_on_dev,
            rubric=state.rubric.name,
            dataset=state.dataset,
            judge=judge,
            judges=st.session_state[f"{KEY}_opt_judges"],
            version_names=[version, *names],
            loop=loop,
            actor=ui.actor(),
        )
        if names
        else []
    )
    st.session_state[PROPOSED] = (result, {s.version: s for s in scores})


def proposer(state: LabState, judge: str, version: str, by: str) -> None:
    st.subheader("Propose (an optimizer model, on dev only)")
    st.caption(
        "An optimizer model reads the worst dev disagreements of this judge at the version "
        "above and proposes revised instructions. Each proposal is saved as a draft version, "
        "and the judges below run it on the dev answers only: one paid optimizer call plus "
        "one judge call per dev answer and proposal (cached calls are free). No look at the "
        "test split is spent until you compare the one you pick."
    )
    st.text_input("Optimizer model (a LiteLLM model string)", key=f"{KEY}_optimizer")
    st.text_input("Optimizer endpoint (api_base, optional)", key=f"{KEY}_opt_base")
    st.text_input("Variable holding its key (optional)", key=f"{KEY}_opt_key")
    st.number_input("Proposals", 1, 10, 3, key=f"{KEY}_n_proposals")
    st.text_input("Judges that score the proposals on dev", "offline", key=f"{KEY}_opt_judges")
    ready = bool(st.session_state[f"{KEY}_optimizer"].strip())
    if st.button("Propose and score on dev", key=f"{KEY}_propose", disabled=not ready):
        try:
            _run(state, judge, version)
        except (RubricError, PanelError, ValueError) as error:
            st.error(ui.md_escape(str(error)))
            return
        st.rerun()
    found = st.session_state.get(PROPOSED)
    if found is None:
        return
    result, scores = found
    reply = result.reply
    cost = (
        "cached, no cost"
        if reply.cached
        else ("cost unknown" if reply.cost_usd is None else f"cost ${reply.cost_usd:.4f}")
    )
    st.caption(
        ui.md_escape(
            f"{result.optimizer} read {min(result.n_disagreements, propose.MAX_DISAGREEMENTS)} "
            f"of {result.n_disagreements} dev disagreements at {result.parent} ({cost})."
        )
    )
    for u in result.unparsed:
        st.warning("Unparsed: " + ui.md_escape(u.reason))
    if not result.proposals:
        return
    rows = [_row(result.parent, "the parent", scores.get(result.parent))]
    rows += [
        _row(p.version.version, p.rationale, scores.get(p.version.version))
        for p in result.proposals
    ]
    pickers.table(rows, key=f"{KEY}_proposals_table")
    parent = versions.get_version(ui.get_store(), state.rubric.name, result.parent)
    for p in result.proposals:
        with st.expander(f"Diff of {p.version.version} to {result.parent}"):
            st.code(versions.diff_text(parent, p.version), language="diff")
    names = [p.version.version for p in result.proposals]
    picked = st.selectbox("Proposal to compare on test", names, key=f"{KEY}_picked")
    if st.button("Run it on the test answers and compare (one look)", key=f"{KEY}_pick"):
        chosen = versions.get_version(ui.get_store(), state.rubric.name, picked).rubric
        judges = st.session_state[f"{KEY}_opt_judges"]
        plan = run.plan_version(ui.get_store(), judges=judges, rubric=chosen, dataset=state.dataset)
        ui.write(
            lambda store: run.run_version(store, plan, loop=background_loop(), actor=ui.actor())
        )
        st.session_state[COMPARED] = ui.write(
            lab.compare,
            rubric=state.rubric.name,
            dataset=state.dataset,
            judge=judge,
            candidate=picked,
            by=by,
            actor=ui.actor(),
        )
        # Compare and Adopt below show the version compared (not the newest draft)
        for name in ("candidate", "adopt_v"):
            st.session_state[f"{KEY}_{name}"] = picked
        st.rerun()


def shot_search(state: LabState, judge: str, version: str) -> None:
    """A search over few-shot sets of dev labels for the version, each scored on dev (no
    look at the test split); compare the one you pick with the Compare section."""
    st.markdown("**Search few-shot sets (on dev only)**")
    st.caption(
        "Seeded sets of people's dev labels (one per answer), each saved as a draft version "
        "of the version above with those examples and run by the judges below on the dev "
        "answers it does not show: one judge call per dev answer and set (cached calls are "
        "free). Best dev kappa first; no look at the test split."
    )
    a, b, c = st.columns(3)
    n_sets = a.number_input("Sets", 1, 10, 3, key=f"{KEY}_shot_sets")
    k = b.number_input("Examples per set", 1, versions.MAX_EXAMPLES, 2, key=f"{KEY}_shot_k")
    seed = c.number_input("Seed of the draw", 0, value=0, key=f"{KEY}_shot_seed")
    if st.button("Search on dev", key=f"{KEY}_shot_search"):
        try:
            st.session_state[SEARCHED] = ui.write(
                shots.search_few_shot,
                rubric=state.rubric.name,
                dataset=state.dataset,
                judge=judge,
                judges=st.session_state[f"{KEY}_opt_judges"],
                version=version,
                n_sets=int(n_sets),
                k=int(k),
                seed=int(seed),
                loop=background_loop(),
                actor=ui.actor(),
            )
        except (RubricError, PanelError, ValueError) as error:
            st.error(ui.md_escape(str(error)))
            return
        st.rerun()
    if found := st.session_state.get(SEARCHED):
        rows = [
            {
                **_row(s.version.version, ", ".join(s.example_ids), s.dev),
                "examples": len(s.example_ids),
            }
            for s in found
        ]
        pickers.table(rows, key=f"{KEY}_shots_table")
