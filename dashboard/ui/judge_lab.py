"""The Judge lab page's glue: each section reads its widgets, calls the workbench
(`dashboard/workbench/lab.py`) and renders the result. Dev reads are cached reads; every
scoring of the test split is a button press that records a look."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.judging import plan_lines, summary_lines
from dashboard.judging.rubrics import RubricError
from dashboard.ui import disagreements as listed, pickers
from dashboard.ui.runs import background_loop
from dashboard.workbench import lab, run, versions
from dashboard.workbench.agreement import Comparison, VersionScore
from dashboard.workbench.lab import LabState
from dashboard.workbench.split import TEST

KEY = "jb_lab"
SCORES, COMPARED, RUN_OUT = f"{KEY}_scores", f"{KEY}_compared", f"{KEY}_run_out"
SAVED, ADOPTED = f"{KEY}_saved", f"{KEY}_adopted"
NUMBERS = ("exact", "within_one", "kappa_quadratic", "alpha_ordinal", "spearman", "tpr", "tnr")


def _ci(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return "—"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]" if not math.isnan(low) else f"{value:.3f}"


def header(state: LabState) -> None:
    split = state.split
    made = "recorded" if split.recorded else "the default, recorded on the first look"
    st.caption(
        f"Split of people's labels: seed {split.seed}, test fraction {split.test_fraction:g}, "
        f"{split.counts} ({made}). Dev labels are for looking and examples; test labels "
        "only give a number."
    )


def looks(state: LabState, judge: str) -> None:
    """The judge's count of looks at the test split: its own, since its own adoption."""
    name = ui.md_escape(judge)
    st.metric(
        "Looks at the test split since the last adoption",
        state.looks_of(judge),
        help=(
            f"Scorings of {name}'s versions on the test split since {name}'s latest "
            "adoption on this dataset (ever, when never adopted). Counted per judge: another "
            "judge's looks and adoptions leave this count alone."
        ),
    )


def _card_value(numbers: Mapping[str, float | None]) -> str:
    value, low, high = (numbers[p] for p in ("value", "low", "high"))
    return _ci(*(math.nan if x is None else x for x in (value, low, high)))


def card(state: LabState, judge: str) -> None:
    """The judge's card: its adopted version's test-split numbers and what they are bound
    to (another judge's adoption is not this judge's: its version is a draft here)."""
    found = state.card_of(judge)
    if found is None:
        st.caption(
            ui.md_escape(
                f"No version adopted for {judge} on {state.dataset}: its version in force is "
                f"the rubric file's, {state.versions[0].version}."
            )
        )
        return
    status = "stale: " + "; ".join(found.stale_reasons) if found.stale else "fresh"
    st.info(
        ui.md_escape(
            f"Judge card: {found.judge} with {found.rubric} {found.version} (model "
            f"{found.model}, model version {found.model_version or 'not reported'}, prompt "
            f"{found.prompt_hash}, {found.n_labels} labelled responses), adopted by "
            f"{found.adopted_by or '?'}: {found.reason or ''} — {status}."
        )
    )
    pickers.table(
        [{"metric": k, "value": _card_value(n), "n": n["n"]} for k, n in found.numbers.items()]
    )


def version_label(state: LabState, judge: str) -> Callable[[str], str]:
    """How a version is named in the lab's pickers for this judge: the one in force (its
    adoption, else the rubric file's), the file's, or a draft (never adopted for this judge;
    another judge's adoption included)."""
    in_force = state.in_force(judge)
    files = {v.version for v in state.versions if v.from_file}

    def label(version: str) -> str:
        if version == in_force:
            return f"{version} (in force for this judge)"
        return f"{version} (the rubric file's)" if version in files else f"{version} (draft)"

    return label


def _score_rows(found: Sequence[VersionScore]) -> list[dict[str, Any]]:
    return [
        {
            "version": s.version,
            "responses": s.n_responses,
            **{
                name: _ci(getattr(s, name).value, getattr(s, name).low, getattr(s, name).high)
                for name in NUMBERS
            },
            **{f"n ({name})": getattr(s, name).n for name in NUMBERS},
        }
        for s in found
    ]


def test_scores(state: LabState, judge: str, by: str) -> None:
    st.subheader("Versions on the test split")
    if st.button("Score every version on test (one look each)", key=f"{KEY}_score"):
        st.session_state[SCORES] = ui.write(
            lab.score_on,
            rubric=state.rubric.name,
            dataset=state.dataset,
            judge=judge,
            side=TEST,
            by=by,
            actor=ui.actor(),
        )
        st.rerun()  # the count of looks above includes this one
    if found := st.session_state.get(SCORES):
        pickers.table(_score_rows(found))


def disagreements(state: LabState, judge: str, version: str) -> None:
    st.subheader("Dev disagreements, worst first")
    found = ui.cached(
        lab.dev_disagreements,
        rubric=state.rubric.name,
        dataset=state.dataset,
        judge=judge,
        version=version,
        actor=ui.actor(),
    )
    st.caption(
        ui.md_escape(
            f"{len(found)} disagreements of {judge} at version {version} on the dev split."
        )
    )
    listed.table(found, rubric=state.rubric.name, dataset=state.dataset, key=f"{KEY}_disagreements")


def _labels_text(labels: dict[str, str]) -> str:
    return "\n".join(f"{k} = {v}" for k, v in labels.items())


def _labels_of(text: str) -> dict[str, str]:
    pairs = [line.split("=", 1) for line in text.splitlines() if "=" in line]
    return {k.strip(): v.strip() for k, v in pairs}


def editor(state: LabState, by: str) -> None:
    st.subheader("Edit a version")
    names = [v.version for v in state.versions]
    parent = versions.get_version(
        ui.get_store(),
        state.rubric.name,
        st.selectbox("Parent version", names, index=len(names) - 1, key=f"{KEY}_parent"),
    )
    rubric = parent.rubric
    exported = versions.to_toml(rubric, parent=parent.parent)
    with st.expander(f"Version {parent.version} as a rubric file (TOML)"):
        st.code(exported, language="toml")
        st.download_button(
            "Download the TOML",
            exported,
            file_name=f"{rubric.name}-{parent.version}.toml",
            mime="application/toml",
            key=f"{KEY}_export",
        )
    description = st.text_area(
        "Criteria (the description people read)",
        rubric.description,
        key=f"{KEY}_description_{parent.version}",
    )
    template = st.text_area(
        "Prompt template", rubric.template, height=240, key=f"{KEY}_template_{parent.version}"
    )
    system = st.text_area(
        "System message", rubric.system or "", key=f"{KEY}_system_{parent.version}"
    )
    labels = st.text_area(
        "Scale descriptions (point = text)",
        _labels_text(dict(rubric.labels)),
        key=f"{KEY}_labels_{parent.version}",
    )
    dev = ui.cached(lab.dev_labels, rubric=state.rubric.name, dataset=state.dataset)
    by_id = {e.rating_id: e for e in dev}
    picked = st.multiselect(
        "Few-shot examples (dev labels only)",
        list(by_id),
        default=[e.rating_id for e in rubric.examples if e.rating_id in by_id],
        format_func=lambda i: ui.md_escape(
            f"{by_id[i].value:g} by {by_id[i].rater}: {by_id[i].question[:60]}"
        ),
        key=f"{KEY}_examples_{parent.version}",
    )
    note = st.text_input("Why this edit", key=f"{KEY}_note")
    changes = {
        "template": template,
        "system": system or None,
        "labels": _labels_of(labels),
        "description": description,
    }
    draft = lab.draft(parent, changes, [by_id[i] for i in picked])
    if draft.rubric.examples:
        with st.expander("The examples as the judge will see them"):
            st.code(draft.rubric.render({"answer": "…", "question": "…"})[-1]["content"][:3000])
    diff = versions.diff_text(parent, draft)
    st.code(diff or "(no change to the parent)", language="diff")
    if st.button("Save as a new version", key=f"{KEY}_save", disabled=not diff):
        try:
            saved = ui.write(
                versions.save_version,
                state.rubric.name,
                parent=parent.version,
                changes=changes,
                example_ids=picked,
                allowed_examples=list(by_id),
                author=by,
                note=note or None,
                actor=ui.actor(),
            )
        except RubricError as error:
            st.error(ui.md_escape(str(error)))
            return
        for name in ("run_version", "candidate", "adopt_v"):
            st.session_state[f"{KEY}_{name}"] = saved.version
        st.session_state[SAVED] = ui.md_escape(
            f"Saved version {saved.version} (prompt {saved.prompt_hash})."
        )
        st.rerun()
    if text := st.session_state.pop(SAVED, None):
        st.success(text)


def runner(state: LabState) -> None:
    st.subheader("Run on the labelled answers")
    names = [v.version for v in state.versions]
    version = st.selectbox("Version", names, index=len(names) - 1, key=f"{KEY}_run_version")
    judges = st.text_input(
        "Judges (a panel file's name or model strings)", "offline", key=f"{KEY}_panel"
    )
    chosen = versions.get_version(ui.get_store(), state.rubric.name, version).rubric
    try:
        plan = run.plan_version(ui.get_store(), judges=judges, rubric=chosen, dataset=state.dataset)
    except Exception as error:  # noqa: BLE001  # a bad panel or rubric: shown, not raised
        st.error(ui.md_escape(str(error)))
        return
    st.code("\n".join(plan_lines(plan)))
    if st.button(f"Run ({plan.calls_needed} calls)", key=f"{KEY}_run"):
        summary = ui.write(
            lambda store: run.run_version(store, plan, loop=background_loop(), actor=ui.actor())
        )
        st.session_state[RUN_OUT] = "\n".join(summary_lines(summary))
        st.rerun()
    if text := st.session_state.get(RUN_OUT):
        st.code(text)


def comparer(state: LabState, judge: str, by: str) -> None:
    st.subheader("Compare with the version in force (on test, paired)")
    st.caption(ui.md_escape(f"In force for {judge}: {state.in_force(judge)}."))
    names = [v.version for v in state.versions]
    candidate = st.selectbox(
        "Candidate",
        names,
        index=len(names) - 1,
        format_func=version_label(state, judge),
        key=f"{KEY}_candidate",
    )
    if st.button("Compare (one look at the test split)", key=f"{KEY}_compare"):
        st.session_state[COMPARED] = ui.write(
            lab.compare,
            rubric=state.rubric.name,
            dataset=state.dataset,
            judge=judge,
            candidate=candidate,
            by=by,
            actor=ui.actor(),
        )
        st.rerun()
    found: Comparison | None = st.session_state.get(COMPARED)
    if found is not None:
        d, m = found.difference, found.mcnemar
        k, e = d.kappa_quadratic, d.exact
        st.markdown(
            f"**{ui.md_escape(found.candidate)}** against **{ui.md_escape(found.baseline)}** "
            f"on {d.n_units} test responses "
            f"({d.n_pairs} labels): kappa difference {_ci(k.estimate, k.low, k.high)}, "
            f"exact agreement difference {_ci(e.estimate, e.low, e.high)}; McNemar "
            f"{m.only_a} vs {m.only_b}, p = {m.p_value:.3g}. Verdict: **{found.verdict}**."
        )


def adopter(state: LabState, judge: str, by: str) -> None:
    st.subheader("Adopt for the panel")
    names = [v.version for v in state.versions]
    version = st.selectbox(
        "Version to adopt",
        names,
        index=len(names) - 1,
        format_func=version_label(state, judge),
        key=f"{KEY}_adopt_v",
    )
    reason = st.text_input("Why", key=f"{KEY}_reason")
    if st.button("Adopt", key=f"{KEY}_adopt", disabled=not reason.strip()):
        try:
            card = ui.write(
                lab.adopt,
                rubric=state.rubric.name,
                dataset=state.dataset,
                judge=judge,
                version=version,
                by=by,
                reason=reason,
                actor=ui.actor(),
            )
        except RubricError as error:
            st.error(ui.md_escape(str(error)))
            return
        st.session_state[ADOPTED] = ui.md_escape(
            f"Adopted {card.version} for {card.judge} on {card.dataset}."
        )
        st.rerun()
    if text := st.session_state.pop(ADOPTED, None):
        st.success(text)
