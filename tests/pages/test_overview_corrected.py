"""The Overview's judge-corrected section: the panel named, judge-only, human-only and
corrected estimates side by side (the numbers `metrics.corrected` computes), the labels
needed, the paired comparisons, and the note when no valid human sample exists."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.metrics import corrected, panels
from dashboard.metrics.corrected import compare, corrected_tables
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.ui import md_escape
from tests.pages.helpers import open_page, page_path, texts

PAGE = page_path("overview")


def _mark_random(store: Store) -> None:
    """The sample's human labels on eo-rag, recorded as a uniform random sample."""
    with store.connection() as con:
        con.execute("UPDATE ratings SET selection = 'random' WHERE rater_kind = 'human'")


def _frames(app: AppTest) -> list:
    return [frame.value for frame in app.dataframe]


def test_judge_only_human_only_and_corrected_side_by_side(
    app: AppTest, sample_store: Store
) -> None:
    _mark_random(sample_store)
    open_page(app, PAGE, dataset="eo-rag")
    captions = " ".join(texts(app, "caption"))
    chosen = panels.with_panel(sample_store, Selection("eo-rag"))
    assert panels.panel_text(chosen) == "offline (baseline; likert-rag v1, the default)"
    assert f"Panel: **{md_escape(panels.panel_text(chosen))}**" in captions
    computed = corrected.corrected(sample_store, Selection("eo-rag"))
    expected = corrected_tables.corrected_rows(computed)
    # Two tables, so that each fits a 1400-px window: the scores, then the pass rates.
    found = next(f for f in _frames(app) if "corrected" in f.columns)
    assert list(found.columns[:4]) == ["system", "judge-only", "human-only", "corrected"]
    assert found.to_dict("records") == corrected_tables.score_rows(computed)
    rates = next(f for f in _frames(app) if "pass rate corrected" in f.columns)
    assert rates.to_dict("records") == corrected_tables.pass_rate_rows(computed)
    joined = [{**s, **r} for s, r in zip(found.to_dict("records"), rates.to_dict("records"))]
    assert [{k: row[k] for k in expected[0]} for row in joined] == expected
    assert all(row["valid labels"] == 10 for row in expected)
    assert all(row["corrected"] != "—" for row in expected)
    comparisons = compare.comparisons(sample_store, Selection("eo-rag"))
    shown = next(f for f in _frames(app) if "b − a" in f.columns)
    assert shown.to_dict("records") == corrected_tables.compare_rows(comparisons)
    assert set(shown["kind"]) == {"panel", "human", "corrected"}
    assert "survives Holm" in shown.columns  # three systems


def test_the_target_half_width_moves_the_labels_needed(app: AppTest, sample_store: Store) -> None:
    _mark_random(sample_store)
    open_page(app, PAGE, dataset="eo-rag")
    app.number_input(key="jb_overview_corrected_target").set_value(0.5).run()
    found = next(f for f in _frames(app) if "corrected" in f.columns)
    assert list(found["labels needed (±0.5)"]) == ["0", "0", "0"]


def test_without_a_valid_sample_the_page_says_so(app: AppTest) -> None:
    open_page(app, PAGE, dataset="eo-rag")  # the sample's labels record no selection
    notes = " ".join(texts(app, "info"))
    assert "No valid human sample" in notes
    found = next(f for f in _frames(app) if "corrected" in f.columns)
    assert set(found["corrected"]) == {"—"}
    assert set(found["judge-only"]) != {"—"}


def test_another_panel_is_named_and_used(app: AppTest, sample_store: Store) -> None:
    open_page(app, PAGE, dataset="eo-rag")
    app.selectbox(key="jb_panel_overview").set_value("all-judges").run()
    assert not app.exception
    shown = md_escape("all-judges (every judge; likert-rag v1)")
    assert f"Panel: **{shown}**" in " ".join(texts(app, "caption"))
