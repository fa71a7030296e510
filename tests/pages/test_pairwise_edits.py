"""Pairwise votes like Annotate's labels, through AppTest on the sample database: a save is
bound to its pair's token (a second save of the same form, in the same run or a later one,
writes nothing), and a vote can be undone, changed and withdrawn, each a new row superseding
the last, while the win rates follow only the person's current vote on the pair."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.metrics import overview
from dashboard.metrics.selection import Selection
from dashboard.review import votes
from dashboard.review.votes import PairRequest
from tests.pages.conftest import TIMEOUT_S
from tests.pages.helpers import open_page, page_path, texts

PAGE = page_path("pairwise")
DATASET = "eo-rag"
SYSTEMS = ("eo-rag-large", "eo-rag-small")


def _rows(store, person):
    with store.connection() as con:
        return con.execute(
            "SELECT preference_id, item_id, verdict, unscored_reason, supersedes, shown_first "
            "FROM preferences WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def _save_one_form_three_times(system_a: str, system_b: str, dataset: str) -> None:
    """A script: the first pair's form saved twice in one run (a double click) and once
    more in each later run (a click on a form left on the screen)."""
    import streamlit as st

    from dashboard import ui
    from dashboard.judging import list_rubrics
    from dashboard.review import annotation, votes
    from dashboard.review.votes import PairRequest
    from dashboard.ui import pair_labelling

    if "stale_pair" not in st.session_state:
        request = PairRequest(system_a, system_b, "kim", dataset)
        st.session_state["stale_pair"] = (request, ui.call(votes.next_pair, request).pair)
    request, view = st.session_state["stale_pair"]
    rubric = annotation.rubrics_of_kind("pairwise", list_rubrics())[0]
    token = pair_labelling.token_of(view, None)
    st.session_state[f"pairwise_choice_{token}"] = "left"
    for _ in range(2 if st.session_state.setdefault("stale_runs", 0) == 0 else 1):
        pair_labelling.save(token, view, request, rubric, None)
    st.session_state["stale_runs"] += 1
    st.text(st.session_state.get(pair_labelling.FLASH_KEY, ""))


def test_a_spent_token_saves_nothing_more(sample_store, app_for):
    app = app_for(sample_store)
    script = AppTest.from_function(
        _save_one_form_three_times, args=(*SYSTEMS, DATASET), default_timeout=TIMEOUT_S
    )
    del app  # app_for pointed JUDGEBOARD_DB at the sample and cleared the cache
    script.run()
    assert not script.exception, script.exception
    assert texts(script, "text")[0].startswith("Saved your vote (A (left))")
    script.run()
    script.run()
    (row,) = _rows(sample_store, "kim")  # one vote, not three
    assert row[2] in ("A", "B") and row[4] is None


def _button(app, key):
    return next(b for b in app.button if (b.key or "").startswith(key))


def _vote(app, choice):
    next(w for w in app.radio if (w.key or "").startswith("pairwise_choice_")).set_value(choice)
    _button(app, "pairwise_save_").click().run()
    assert not app.exception, app.exception


def _your_vote(app):
    (line,) = [t for t in texts(app, "text") if t.startswith("Your vote: ")]
    return line.removeprefix("Your vote: ").split(". A new save")[0]


def _people_win_rate(store, system):
    found = overview.overview(store, Selection(DATASET)).systems
    return next(r for r in found if r.system == system).score("win_rate.people")


def test_undo_change_and_withdraw_a_vote(app, sample_store):
    open_page(app, PAGE, dataset=DATASET, annotator="zoe")
    pair = votes.next_pair(sample_store, PairRequest(*SYSTEMS, "zoe", DATASET)).pair
    left, right = pair.left.system, pair.right.system
    _vote(app, "left")
    first = _rows(sample_store, "zoe")
    assert len(first) == 1 and pair.left.answer not in texts(app, "code")
    assert _people_win_rate(sample_store, left).value == 1.0

    _button(app, "pairwise_undo_button").click().run()  # `u`
    assert pair.left.answer in texts(app, "code")  # the pair is open again, same sides
    assert any("Undid your last vote" in s for s in texts(app, "success"))
    rows = _rows(sample_store, "zoe")
    assert [(r[2], r[3], r[4]) for r in rows[1:]] == [(None, "withdrawn", first[0][0])]
    assert rows[1][5] == first[0][5]  # the side shown first is kept
    assert _people_win_rate(sample_store, left) is None  # withdrawn: counts nowhere

    _vote(app, "right")  # changed: a new row superseding the withdrawal
    rows = _rows(sample_store, "zoe")
    assert len(rows) == 3 and rows[2][4] == rows[1][0]
    # only the current vote counts: right beat left once, the first vote is gone
    assert _people_win_rate(sample_store, right).value == 1.0
    assert _people_win_rate(sample_store, right).n == 1
    assert _people_win_rate(sample_store, left).value == 0.0

    _button(app, "pairwise_undo_button").click().run()  # back to the withdrawal
    assert _your_vote(app) == "withdrawn"
    _vote(app, "tie")
    assert pair.left.answer not in texts(app, "code")
    tie = _rows(sample_store, "zoe")[-1]
    # an earlier vote opens from Your votes, on the sides it was shown; changed, then withdrawn
    app.selectbox(key="pairwise_mine_pick").set_value(tie[0]).run()
    _button(app, "pairwise_mine_open").click().run()
    assert pair.left.answer in texts(app, "code") and _your_vote(app) == "Tie"
    _vote(app, "left")
    assert _people_win_rate(sample_store, left).value == 1.0
    assert _people_win_rate(sample_store, left).n == 1
    app.selectbox(key="pairwise_mine_pick").set_value(_rows(sample_store, "zoe")[-1][0]).run()
    _button(app, "pairwise_mine_open").click().run()
    assert _your_vote(app) == "A (left)"
    _button(app, "pairwise_withdraw").click().run()
    rows = _rows(sample_store, "zoe")
    assert [(r[2], r[3]) for r in rows[-2:]] == [(rows[-2][2], None), (None, "withdrawn")]
    assert rows[-1][4] == rows[-2][0]
    assert _people_win_rate(sample_store, left) is None
