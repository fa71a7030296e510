"""Annotate: rate answers on the rubric's scale, blind by default, from a queue or a campaign."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.campaigns import campaigns
from dashboard.metrics import choices
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.review.annotation import QueueRequest
from dashboard.review.detail import response_detail
from dashboard.ui import (
    annotate_url,
    corrected,
    gold,
    instructions,
    keys,
    labelling,
    pickers,
    questions,
    widgets,
)


def _setup(annotator: str, dataset: str | None) -> labelling.Setup | None:
    rubrics = {r.name: r for r in ui.labelling_rubrics()}
    if not rubrics:
        return None
    # The rubric picked on another page comes first, then the most used one. Counting the
    # ratings of each rubric is only needed while the picker has no rubric yet: after every
    # save it would count them again (0.8 s on 4,000,000 ratings).
    # (The picker's default stays its value: a changed default would make it a new widget.)
    picked = st.session_state.get("annotate_rubric")
    used = None if picked in rubrics else ui.cached(choices.default_rubric, Selection(dataset))
    first = annotation.default_rubric_name(
        list(rubrics),
        picked,
        st.session_state.get(pickers.RUBRIC_KEY),
        used.name if used else None,
    )
    widgets.keep_valid("annotate_rubric", list(rubrics))
    rubric_col, campaign_col, order_col, seed_col = st.columns([2, 2, 2, 1])
    name = rubric_col.selectbox(
        "Rubric",
        list(rubrics),
        key="annotate_rubric",
        index=widgets.choice_index(list(rubrics), first),
    )
    found = [c.name for c in ui.cached(campaigns.list_campaigns, name)]
    widgets.keep_valid("annotate_campaign", [None, *found])
    campaign = campaign_col.selectbox(
        "Campaign",
        [None, *found],
        key="annotate_campaign",
        format_func=lambda c: "none: my own queue" if c is None else c,
    )
    orders = list(annotation.QUEUE_ORDERS)
    widgets.keep_valid("annotate_order", orders)
    order = order_col.selectbox(
        "Order",
        orders,
        key="annotate_order",
        format_func=lambda o: annotation.QUEUE_ORDERS[o],
        disabled=campaign is not None,
        help="A random order is a random sample; the others are a targeted pick (recorded).",
    )
    seed = seed_col.number_input(
        "Seed", min_value=0, value=0, step=1, key="annotate_seed", disabled=order != "random"
    )
    if campaign is None and order == "random":
        st.caption(corrected.labels_needed_line(dataset, name))
    # On by default; set through the state (a link may have set it), never also as `value`.
    st.session_state.setdefault("annotate_blind", True)
    blind = st.toggle(
        "Blind: hide the judges' ratings and other people's labels until I have saved",
        key="annotate_blind",
    )
    rubric = rubrics[name]
    request = QueueRequest(
        rubric=name,
        annotator=annotator,
        order=order or orders[0],
        dataset=dataset,
        task_types=rubric.task_types,
        seed=int(seed),
    )
    return labelling.Setup(request, rubric, campaign, bool(blind))


def _answer(setup: labelling.Setup) -> labelling.OpenItem | None:
    item = labelling.open_item(setup)
    detail = ui.cached(response_detail, item.response_id) if item else None
    if item is not None and detail is None:
        st.session_state[labelling.OPEN_KEY] = None
        st.warning("That answer is no longer in the database; the next one is below.")
        item = labelling.open_item(setup)
        detail = ui.cached(response_detail, item.response_id) if item else None
    mine = (
        labelling.my_label(detail, setup.request.annotator, setup.rubric.name) if detail else None
    )
    labelling.actions(item, setup, mine)
    if item is None or detail is None:
        st.info(
            "Nothing left to label here: pick another order, rubric or campaign, or another "
            "dataset in the sidebar."
        )
        return None
    reveal = labelling.shows_ratings(setup, item, mine)
    answer, label = st.columns([3, 2], gap="large")
    with answer:
        widgets.show_detail(detail, ratings=reveal)
        if not reveal:
            st.caption(
                "Blind: the judges' ratings and other people's labels are hidden until "
                "you have saved your own."
            )
    with label:
        instructions.show(setup.campaign)
        labelling.reveal_toggle(setup, item, mine)
        labelling.label_form(item, setup, detail, mine, reveal=reveal)
        gold.reference_box(detail, author=setup.request.annotator, campaign=setup.campaign)
    return item


st.title("Annotate")
st.caption(labelling.KEY_HELP)
annotate_url.restore()
chosen = ui.filters()
widgets.show_confirmation(labelling.FLASH_KEY)
widgets.show_refusal(labelling.REFUSED_KEY)
if not chosen.annotator:
    st.warning("Type your name in the sidebar's Annotator box: ratings are saved with it.")
setup = _setup(chosen.annotator, chosen.dataset)
if setup is None:
    st.info("No rating rubric can be used: see the rubric files on the Run judges page.")
else:
    labelling.reset_on_change(setup)
    if setup.campaign and not chosen.annotator:
        item = None
        st.info("Sign in (or type your name) to get your share of the campaign.")
    else:
        labelling.assigned_line(setup)
        item = _answer(setup)
    labelling.your_labels(setup)
    annotate_url.save(item)
    scale = annotation.scale_points(*annotation.rating_scale(setup.rubric))
    bindings = {f"{v:g}": keys.pick("annotate_value_", f"{v:g}") for v in scale if v < 10}
    form, asked = questions.drawn()
    labelling.KIT.listen(bindings, questions=asked, form=form)

widgets.confirmation_shown(labelling.FLASH_KEY)  # reached only when the run ended
widgets.confirmation_shown(labelling.REFUSED_KEY)
