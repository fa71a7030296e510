"""The Calibration page names the labels a few-shot rubric version showed as examples (they
are left out of its agreement there): a caption with the count, and an expander listing them.
Without a few-shot version, neither shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import ui
from dashboard.auth.users import User
from dashboard.judging import BackgroundLoop, load_rubric, run_judges
from dashboard.judging.few_shot import few_shot_rubric, record_examples
from dashboard.metrics.judge_qa import versions
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.ui import links
from tests.pages.helpers import open_page, page_path

PAGE = page_path("calibration")
N_EXAMPLES = 3
ADMIN = User("ada", "admin")
LABELLER = User("lee", "labeller")
CAPTION = "of people's labels as few-shot examples"


@pytest.fixture
def few_shot_store(sample_store: Store) -> Store:
    """The sample judged again by the offline baseline under a few-shot version of likert-rag
    (3 of people's eo-rag labels as examples, seed 1): the judge's current ratings."""
    rubric = few_shot_rubric(
        sample_store, load_rubric("likert-rag"), n=N_EXAMPLES, seed=1, dataset="eo-rag"
    )
    record_examples(sample_store, rubric)
    loop = BackgroundLoop(name="page-test-few-shot")
    try:
        run_judges(sample_store, "offline", rubric, dataset="eo-rag", loop=loop)
    finally:
        loop.close()
    return sample_store


def _recorded(store: Store) -> list[dict[str, Any]]:
    with store.connection() as con:
        cursor = con.execute(
            "SELECT rubric_version, position, response_id, rater, value FROM few_shot_examples "
            "ORDER BY position"
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_calibration_names_the_few_shot_examples(
    few_shot_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    recorded = _recorded(few_shot_store)
    assert len(recorded) == N_EXAMPLES
    version = recorded[0]["rubric_version"]
    assert version.startswith("1+fewshot-3-seed1-")
    app = open_page(app_for(few_shot_store), PAGE, dataset="eo-rag")

    captions = [c.value for c in app.caption if CAPTION in c.value]
    assert captions == [
        f"Rubric version {ui.md_escape(version)} showed {N_EXAMPLES:,} of people's labels "
        "as few-shot examples; its numbers are on the other (held-out) labels only."
    ]
    label = f"The {N_EXAMPLES} labels used as examples ({version})"
    (listed,) = [e for e in app.expander if e.label == label]
    shown = listed.dataframe[0].value
    assert list(shown["#"]) == [r["position"] for r in recorded]
    assert list(shown["person"]) == [r["rater"] for r in recorded]
    assert list(shown["rating"]) == [r["value"] for r in recorded]
    assert list(shown["detail"]) == [
        links.detail_url(r["response_id"], rubric="likert-rag", dataset="eo-rag") for r in recorded
    ]


def test_no_few_shot_version_no_examples_named(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    assert not [c.value for c in app.caption if CAPTION in c.value]
    assert not [e for e in app.expander if "used as examples" in e.label]
    assert app.dataframe, "the agreement table is drawn"


def test_only_the_compared_versions_examples(few_shot_store: Store) -> None:
    """eo-rag's current judge ratings are the few-shot version's; eo-conversational's are
    the plain version 1's, so it names no example though the rubric has a few-shot version."""
    recorded = _recorded(few_shot_store)
    found = versions.calibration_examples(few_shot_store, Selection("eo-rag"))
    assert [(e.rubric_version, e.position, e.response_id) for e in found] == [
        (r["rubric_version"], r["position"], r["response_id"]) for r in recorded
    ]
    assert versions.calibration_examples(few_shot_store, Selection("eo-conversational")) == ()
    # who gave each label is an admin's to see: a signed-in labeller gets the labels unnamed
    admin = versions.calibration_examples(few_shot_store, Selection("eo-rag"), actor=ADMIN)
    assert admin == found and all(e.rater for e in admin)
    hidden = versions.calibration_examples(few_shot_store, Selection("eo-rag"), actor=LABELLER)
    assert [e.rater for e in hidden] == [""] * len(found)
    assert [e.response_id for e in hidden] == [e.response_id for e in found]
