"""Links that keep their place (AppTest): each page's filters and open item are in the URL's
query, a fresh session (a reload, a shared link) opened on that URL shows the same, and a
page left and come back to keeps its choices."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from dashboard.review import failures
from dashboard.review.failures import FailureFilter
from dashboard.store import Store
from dashboard.ui import failure_list
from tests.pages.helpers import page_path

RUBRIC = "likert-rag"


def _fresh(make: Callable[[Store], AppTest], store: Store, name: str, **query) -> AppTest:
    """A new session opened on page `name` with this URL query, as a reload or a shared
    link opens it."""
    app = make(store)
    app.query_params.update(query)
    app.switch_page(page_path(name)).run()
    assert not app.exception, app.exception
    return app


def _worst(
    store: Store, *, dataset: str | None = None, system: str | None = None, page: int = 1
) -> failures.FailurePage:
    selection = FailureFilter(rubric=RUBRIC, dataset=dataset, system=system)
    return failures.failures(store, selection, page=page)


def test_a_click_on_a_failure_row_opens_it_and_the_link_reopens_it(
    app_for, sample_store: Store
) -> None:
    app = _fresh(app_for, sample_store, "failures")
    listed = _worst(sample_store)
    # A click on a row's third line, as the browser reports it.
    app.session_state[failure_list.table_key(listed)] = {
        "selection": {"rows": [], "columns": [], "cells": [(2, "question")]}
    }
    app.run()
    assert not app.exception
    opened = listed.rows[2]
    assert app.query_params["item"] == opened.response_id
    assert app.selectbox(key="failures_open").value == (opened.response_id)
    assert opened.question in [c.value for c in app.code]

    again = _fresh(app_for, sample_store, "failures", **app.query_params)
    assert again.selectbox(key="failures_open").value == opened.response_id
    assert opened.question in [c.value for c in again.code]


def test_the_failures_filters_and_page_come_back_from_the_url(app_for, sample_store: Store) -> None:
    second = _worst(sample_store, dataset="eo-rag", system="eo-rag-small", page=2)
    item = second.rows[0].response_id
    app = _fresh(
        app_for,
        sample_store,
        "failures",
        dataset="eo-rag",
        system="eo-rag-small",
        page="2",
        search="",
        item=item,
    )
    assert app.selectbox(key="jb_dataset").value == "eo-rag"
    assert app.selectbox(key="failures_system").value == "eo-rag-small"
    assert app.number_input(key="failures_page").value == 2
    assert app.selectbox(key="failures_open").value == item
    app.selectbox(key="failures_task").set_value("open_qa_context").run()
    assert app.query_params["task"] == "open_qa_context"
    # a value the page does not offer is ignored, not an error
    bad = _fresh(app_for, sample_store, "failures", page="many", system="nobody")
    assert bad.selectbox(key="failures_system").value == "(any)"


def test_the_overview_keeps_its_filters_in_the_url(app_for, sample_store: Store) -> None:
    app = _fresh(
        app_for,
        sample_store,
        "overview",
        dataset="eo-rag",
        rubric=RUBRIC,
        system=["eo-rag-large", "keyword-baseline"],
        by="task_type",
    )
    assert app.selectbox(key="jb_metric_rubric_overview").value == RUBRIC
    assert app.multiselect(key="jb_overview_systems").value == ["eo-rag-large", "keyword-baseline"]
    assert app.selectbox(key="jb_overview_by").value == "task_type"
    app.checkbox(key="jb_overview_pool").check().run()
    assert app.query_params["pool"] == "1" and app.query_params["dataset"] == "eo-rag"
    assert app.query_params["system"] == ["eo-rag-large", "keyword-baseline"]


def test_calibration_pairwise_and_data_keep_theirs(app_for, sample_store: Store) -> None:
    calibration = _fresh(app_for, sample_store, "calibration", rubric=RUBRIC, by="dataset")
    assert calibration.selectbox(key="jb_metric_rubric_calibration").value == RUBRIC
    assert calibration.selectbox(key="jb_calibration_by").value == "dataset"

    pairwise = _fresh(
        app_for,
        sample_store,
        "pairwise",
        dataset="eo-rag",
        system="eo-rag-small",
        against="keyword-baseline",
        seed="3",
        pair="1",
    )
    assert pairwise.selectbox(key="pairwise_system_a").value == "eo-rag-small"
    assert pairwise.selectbox(key="pairwise_system_b").value == "keyword-baseline"
    assert pairwise.number_input(key="pairwise_seed").value == 3
    assert any(t.value.startswith("Pair 2 of ") for t in pairwise.text)

    data = _fresh(app_for, sample_store, "data", dataset="eo-mcqa")
    assert data.selectbox(key="jb_dataset").value == "eo-mcqa"
    data.selectbox(key="jb_dataset").set_value("eo-rag").run()
    assert data.query_params["dataset"] == "eo-rag"


def test_run_judges_proposes_the_rubric_and_remembers_the_choice(
    app_for, sample_store: Store
) -> None:
    app = _fresh(app_for, sample_store, "run_judges", dataset="eo-rag")
    assert app.selectbox(key="jb_run_rubric").value == RUBRIC  # RAG data with contexts
    assert any("Proposed for this data" in c.value for c in app.caption)
    conversational = _fresh(app_for, sample_store, "run_judges", dataset="eo-conversational")
    assert conversational.selectbox(key="jb_run_rubric").value == "eve-0-5"  # no context

    app.selectbox(key="jb_run_rubric").set_value("pass-fail").run()
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input("judgeboard/baseline").run()
    assert app.query_params["rubric"] == "pass-fail"
    # Away and back: the page's widgets were dropped by Streamlit, the choice is not.
    app.switch_page(page_path("overview")).run()
    app.switch_page(page_path("run_judges")).run()
    assert not app.exception
    assert app.selectbox(key="jb_run_rubric").value == "pass-fail"
    assert app.radio(key="jb_run_source").value == "Model strings"
    assert app.text_input(key="jb_run_models").value == "judgeboard/baseline"
    # and a reload of its URL too
    reloaded = _fresh(app_for, sample_store, "run_judges", **app.query_params)
    assert reloaded.selectbox(key="jb_run_rubric").value == "pass-fail"
    assert reloaded.text_input(key="jb_run_models").value == "judgeboard/baseline"
