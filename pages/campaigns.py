"""Campaigns: create a labelling campaign, follow its progress, and see how people agree."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import ui
from dashboard.campaigns import agreement, campaigns
from dashboard.campaigns.campaigns import CampaignError
from dashboard.campaigns.rules import RuleError, filter_of
from dashboard.metrics import choices
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.ui import campaign_team, instructions


def _estimate(e: Estimate) -> str:
    if e.value != e.value:  # nan: too few shared labels
        return "n/a"
    return f"{e.value:.2f} [{e.low:.2f}, {e.high:.2f}]"


def _create(dataset: str | None, creator: str) -> None:
    rubrics = {r.name: r for r in ui.labelling_rubrics()}
    # The rubric the dataset is rated with comes first (likert-rag on eo-rag), not the first
    # rubric by name.
    used = ui.cached(choices.default_rubric, Selection(dataset))
    offered = annotation.default_rubric_name(list(rubrics), used.name if used else None)
    with st.form("campaign_new"):
        st.subheader("New campaign")
        first, second, third = st.columns(3)
        name = first.text_input("Name", key="campaign_name")
        rubric = second.selectbox(
            "Rubric",
            list(rubrics),
            key="campaign_rubric",
            index=list(rubrics).index(offered) if offered in rubrics else 0,
        )
        rules = {**campaigns.RULES, campaign_team.FROM_RULE: campaign_team.FROM_RULE_TEXT}
        rule = third.selectbox("Which answers", list(rules), format_func=lambda r: rules[r])
        size_col, seed_col, k_col, hold_col, spread_col = st.columns(5)
        size = size_col.number_input("How many answers", min_value=1, value=50, step=1)
        seed = seed_col.number_input("Seed", min_value=0, value=0, step=1)
        overlap = k_col.number_input("People per answer (k)", min_value=1, value=2, step=1)
        hold = hold_col.number_input("Hold (minutes)", min_value=1, value=30, step=1)
        spread = spread_col.number_input(
            "Review when labels differ by more than",
            min_value=0.0,
            value=0.0,
            step=1.0,
            help="Answers whose highest and lowest labels differ by more than this go to the "
            "Review page (0: any disagreement, as for pass/fail).",
        )
        guide = st.text_area(
            "Instructions (Markdown; shown beside every answer of the campaign)",
            key="campaign_instructions",
        )
        points = st.text_area(
            "What each point means here (optional; one line a point, e.g. 4: one small gap)",
            key="campaign_points",
        )
        more = st.multiselect(
            "Further questions about each answer (rubrics; a 0–1 one is a pass/fail check)",
            list(rubrics),
            key="campaign_questions",
        )
        tags = st.text_area(
            "Tags people may tick (optional; one line a tag, e.g. hallucination: a fact not "
            "in the context)",
            key="campaign_tags",
        )
        saved_filter = campaign_team.rule_fields(ui.dataset_systems(dataset))
        st.caption(f"From the dataset chosen in the sidebar: {ui.md_escape(dataset or 'all')}.")
        if not st.form_submit_button("Create", type="primary") or rubric is None:
            return
    by_rule = rule == campaign_team.FROM_RULE
    try:
        made = ui.write(
            campaigns.create_campaign,
            name,
            rubrics[rubric],
            dataset=dataset,
            # a rule-filled campaign adds its answers lowest judge score first
            rule="worst" if by_rule else rule or "random",
            size=int(size),
            seed=int(seed),
            overlap=int(overlap),
            hold_minutes=float(hold),
            created_by=creator or None,
            actor=ui.actor(),
            instructions=guide,
            point_notes=campaigns.parse_point_notes(points or ""),
            tags=campaigns.parse_tags(tags or ""),
            review_spread=float(spread),
            rule_filter=saved_filter if by_rule else None,
            questions=[rubrics[m] for m in more],
        )
    except (CampaignError, RuleError) as error:
        st.error(ui.md_escape(error))
        return
    st.success(f"Created {ui.md_escape(made.campaign.name)} with {made.n_items} answers.")


def _show(found: campaigns.Campaign, person: str) -> None:
    progress = ui.cached(campaigns.progress, found.name)
    if found.instructions:
        with st.container(border=True):
            st.markdown(found.instructions)  # the admin's Markdown (raw HTML stays text)
    saved = filter_of(found)
    how = f"kept filled by a rule: {saved.describe()}" if saved else campaigns.RULES[found.rule]
    asked = " + ".join(campaigns.rubric_names(found))
    st.text(
        f"{asked} · {found.dataset or 'all datasets'} · {how} · "
        f"k = {found.overlap} · {progress.n_items} of {found.population} answers · "
        f"review when labels differ by more than {found.review_spread:g}"
    )
    wanted = max(progress.n_wanted, 1)
    st.progress(
        min(progress.n_labels / wanted, 1.0),
        text=f"{progress.n_labels} of {progress.n_wanted} labels; "
        f"{progress.n_done} of {progress.n_items} answers done",
    )
    if progress.people:
        st.dataframe(pd.DataFrame([p.__dict__ for p in progress.people]), hide_index=True)
    campaign_team.assign_section(found, by=person or None)
    rubric = next((r for r in ui.labelling_rubrics() if r.name == found.rubric), None)
    if rubric is None or rubric.scale_low is None or rubric.scale_high is None:
        return
    instructions.edit_form(found, rubric)
    agreed = ui.cached(
        agreement.people_agreement, found.name, scale=(rubric.scale_low, rubric.scale_high)
    )
    st.text(
        f"Krippendorff's alpha (ordinal), 95% interval: {_estimate(agreed.alpha_ordinal)} "
        f"over {agreed.alpha_ordinal.n} answers with two or more labels"
    )
    rows = [
        {
            "person a": p.a,
            "person b": p.b,
            "n": p.exact.n,
            "exact [95%]": _estimate(p.exact),
            "kappa (quadratic) [95%]": _estimate(p.kappa_quadratic),
        }
        for p in agreed.pairs
    ]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    if agreed.disagreed:
        st.caption("Most disagreed answers (highest minus lowest label):")
        st.dataframe(
            pd.DataFrame(
                [
                    {"answer": d.response_id, "people": d.n_people, "low": d.low, "high": d.high}
                    for d in agreed.disagreed
                ]
            ),
            hide_index=True,
        )


st.title("Campaigns")
st.caption(
    "A campaign is a set of answers, each labelled by k different people: each person "
    "gets their own queue on the Annotate page (pick the campaign there), and an answer "
    "being labelled is held for that person for a while."
)
chosen = ui.filters()
if ui.may_administer("create campaigns"):
    _create(chosen.dataset, chosen.annotator)
found = ui.cached(campaigns.list_campaigns)
if not found:
    st.info("No campaign yet.")
for campaign in found:
    # a name is a person's text: a label is Markdown, so it is escaped
    with st.expander(ui.md_escape(campaign.name), expanded=campaign is found[0]):
        _show(campaign, chosen.annotator)
