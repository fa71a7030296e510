"""Rough edges of reopening one's own labels and votes, through AppTest on the sample
database: the Pairwise URL names the pair on the page (its answers as shown), a reopened vote
or label is picked in its form, and Undo last (`u`) takes back a save made in an earlier
session (read from the store)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.review import annotation, votes
from dashboard.review.votes import PairRequest
from tests.pages.helpers import open_page, page_path, texts
from tests.pages.test_annotate_rough_edges import RUBRIC
from tests.pages.test_pairwise_edits import DATASET, SYSTEMS, _button, _rows, _vote

PAIRWISE = page_path("pairwise")
ANNOTATE = page_path("annotate")


def _reload(
    app: AppTest, params: dict[str, str], *, page: str = PAIRWISE, annotator: str | None = None
) -> AppTest:
    """A new session on the same address: what a reload, a shared link or tomorrow gives."""
    again = AppTest.from_file(str(app._script_path), default_timeout=60)
    for key, value in params.items():
        again.query_params[key] = value
    again.run()
    again.switch_page(page).run()
    if annotator is not None:  # typed in on the page the link opened
        again.text_input(key="jb_annotator").set_value(annotator).run()
    assert not again.exception, again.exception
    return again


def _choice(app: AppTest):
    return next(w for w in app.radio if (w.key or "").startswith("pairwise_choice_"))


def _shown(app: AppTest) -> tuple[str, str]:
    left, right = app.query_params["pair"].split(",")
    return left, right


def test_the_pairwise_url_names_the_pair_and_a_reload_opens_it(app, sample_store):
    open_page(app, PAIRWISE, dataset=DATASET, annotator="zoe")
    first = votes.next_pair(sample_store, PairRequest(*SYSTEMS, "zoe", DATASET)).pair
    assert _shown(app) == (first.left.response_id, first.right.response_id)
    _button(app, "pairwise_skip").click().run()
    second = votes.next_pair(sample_store, PairRequest(*SYSTEMS, "zoe", DATASET), offset=1).pair
    assert _shown(app) == (second.left.response_id, second.right.response_id)
    _vote(app, "right")  # the queue moves on: a position would now name another pair
    params = {k: app.query_params[k] for k in app.query_params}
    params["pair"] = f"{second.left.response_id},{second.right.response_id}"
    again = _reload(app, params)
    shown = texts(again, "code")
    assert shown.index(second.left.answer) < shown.index(second.right.answer)
    assert "Opened from the link" in texts(again, "text")
    assert _choice(again).value == "right"  # the vote, on the side it was given
    # a link without the name, the name typed in after: the pair stays
    unnamed = {k: v for k, v in params.items() if k != "annotator"}
    again = _reload(app, unnamed, annotator="zoe")
    assert _shown(again) == (second.left.response_id, second.right.response_id)
    assert _choice(again).value == "right"
    # an older link's number still names a place in the queue
    again = _reload(app, {**unnamed, "pair": "1", "annotator": "kim"})
    assert any(t.startswith("Pair 2 of ") for t in texts(again, "text"))


def test_a_reopened_vote_is_picked_and_enter_keeps_it(app, sample_store):
    open_page(app, PAIRWISE, dataset=DATASET, annotator="zoe")
    _vote(app, "tie")
    (vote,) = _rows(sample_store, "zoe")
    app.selectbox(key="pairwise_mine_pick").set_value(vote[0]).run()
    _button(app, "pairwise_mine_open").click().run()
    assert _choice(app).value == "tie"
    _button(app, "pairwise_save_").click().run()  # saved as picked: a new row, the same verdict
    rows = _rows(sample_store, "zoe")
    assert [(r[2], r[4]) for r in rows] == [("tie", None), ("tie", vote[0])]


def test_u_undoes_a_vote_saved_in_an_earlier_session(app, sample_store):
    open_page(app, PAIRWISE, dataset=DATASET, annotator="zoe")
    _vote(app, "left")
    _vote(app, "right")
    params = {k: app.query_params[k] for k in app.query_params}
    later = _reload(app, params)
    assert not _button(later, "pairwise_undo_button").disabled
    _button(later, "pairwise_undo_button").click().run()
    assert any("Undid your last vote" in s for s in texts(later, "success"))
    rows = _rows(sample_store, "zoe")
    assert (rows[-1][2], rows[-1][3], rows[-1][4]) == (None, "withdrawn", rows[1][0])
    _button(later, "pairwise_undo_button").click().run()  # further back, not the undo again
    rows = _rows(sample_store, "zoe")
    assert (rows[-1][2], rows[-1][4]) == (None, rows[0][0]) and len(rows) == 4
    assert _button(later, "pairwise_undo_button").disabled  # nothing left to take back


def _labels(store, person):
    with store.connection() as con:
        return con.execute(
            "SELECT rating_id, value, unscored_reason, supersedes FROM ratings "
            "WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def test_u_undoes_a_label_saved_in_an_earlier_session(app, sample_store):
    open_page(app, ANNOTATE, dataset=DATASET, annotator="carol")
    assert _button(app, "annotate_undo_button").disabled  # carol has saved nothing
    next(w for w in app.radio if (w.key or "").startswith("annotate_value_")).set_value(4.0)
    _button(app, "annotate_save_").click().run()
    (saved,) = _labels(sample_store, "carol")
    params = {k: app.query_params[k] for k in app.query_params if k != "item"}
    later = _reload(app, {**params, "annotator": "carol", "rubric": RUBRIC.name}, page=ANNOTATE)
    _button(later, "annotate_undo_button").click().run()
    assert any("Undid your last label" in s for s in texts(later, "success"))
    undone = _labels(sample_store, "carol")[-1]
    assert (undone[1], undone[2], undone[3]) == (None, annotation.WITHDRAWN, saved[0])
    assert _button(later, "annotate_undo_button").disabled
