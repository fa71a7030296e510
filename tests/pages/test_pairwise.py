"""The Pairwise page through AppTest on the sample database: a vote is stored in the canonical
frame with the side shown first, and the win rates and standings move."""

from __future__ import annotations

import json

from dashboard.metrics import overview
from dashboard.metrics.selection import Selection
from dashboard.review import votes
from dashboard.review.votes import PairRequest
from tests import builders
from tests.pages.helpers import markdown_texts, open_page, page_path, texts

PAGE = page_path("pairwise")
DATASET = "eo-rag"
PAYLOAD = (
    "See ![x](http://127.0.0.1:9/x.png) and <img src=x onerror=alert(1)> "
    "then <script>alert(2)</script> done."
)


def _start(app, *, annotator="", dataset=DATASET):
    return open_page(app, PAGE, dataset=dataset, annotator=annotator)


def _widget(app, kind, prefix):
    found = [w for w in getattr(app, kind) if (w.key or "").startswith(prefix)]
    assert len(found) == 1, (prefix, [w.key for w in getattr(app, kind)])
    return found[0]


def _choice(app):
    return _widget(app, "radio", "pairwise_choice_")


def _comment(app):
    return _widget(app, "text_input", "pairwise_comment_")


def _submit(app):
    _widget(app, "button", "pairwise_save_").click().run()
    assert not app.exception, app.exception


def _votes(store, *, human=False):
    with store.connection() as con:
        return con.execute(
            "SELECT item_id, response_a, response_b, rater_kind, rater, verdict, "
            "shown_first, comment FROM preferences "
            "WHERE NOT ? OR rater_kind = 'human' ORDER BY ALL",
            [human],
        ).fetchall()


def test_pairwise_shows_two_answers_side_by_side(app, sample_store):
    _start(app)
    request = PairRequest("eo-rag-large", "eo-rag-small", "", DATASET)
    pair = votes.next_pair(sample_store, request).pair
    code = texts(app, "code")
    # left is the answer shown first, right the other one
    assert code.index(pair.left.answer) < code.index(pair.right.answer)
    assert [s.value for s in app.subheader][:2] == ["A (left)", "B (right)"]


def test_standings_explain_when_there_are_no_verdicts(app, sample_store):
    with sample_store.connection() as con:
        con.execute("DELETE FROM preferences")  # the sample may ship judge verdicts
    _start(app)
    assert any("No pairwise verdicts yet" in i for i in texts(app, "info"))
    assert not app.get("plotly_chart")


def _win_rates(store, selection):
    people = "win_rate.people"
    return {r.system: r.score(people) for r in overview.overview(store, selection).systems}


def test_a_vote_is_stored_and_changes_the_win_rate(app, sample_store):
    selection = Selection(DATASET)
    before = _win_rates(sample_store, selection)
    stored_before = _votes(sample_store)
    _start(app)
    _choice(app).set_value("left")
    _submit(app)
    assert any("Annotator box" in e for e in texts(app, "error"))
    assert _votes(sample_store) == stored_before

    app.text_input(key="jb_annotator").set_value("zoe").run()
    pair = votes.next_pair(
        sample_store, PairRequest("eo-rag-large", "eo-rag-small", "zoe", DATASET)
    ).pair
    _choice(app).set_value("left")
    _comment(app).set_value("More precise.")
    _submit(app)
    assert texts(app, "success") == ["Saved your vote (A (left)) as `zoe`."]
    verdict = "A" if pair.shown_first == "A" else "B"
    assert _votes(sample_store, human=True) == [
        (
            pair.item.item_id,
            pair.response_a.response_id,
            pair.response_b.response_id,
            "human",
            "zoe",
            verdict,
            pair.shown_first,
            "More precise.",
        )
    ]
    assert any(t.startswith("Pair 1 of ") for t in texts(app, "text"))
    assert pair.left.answer not in texts(app, "code")  # the next pair is shown

    after = _win_rates(sample_store, selection)
    # the first person's vote: people's win rates are zoe's alone (1 for left, 0 for right)
    assert before[pair.left.system] is None and before[pair.right.system] is None
    assert after[pair.left.system].value == 1.0 and after[pair.left.system].n == 1
    assert after[pair.right.system].value == 0.0 and after[pair.right.system].n == 1
    app.selectbox(key="pairwise_standings_raters").set_value("people").run()
    charts = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    assert len(charts) == 2
    heatmap = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    assert pair.left.system in heatmap["data"][0]["y"]
    assert "people" in heatmap["layout"]["title"]["text"]


def test_skip_and_tie(app, sample_store):
    _start(app, annotator="zoe")
    first = texts(app, "text")[0]
    next(b for b in app.button if b.label == "Skip").click().run()
    assert texts(app, "text")[0] != first and texts(app, "text")[0].startswith("Pair 2 of ")
    _choice(app).set_value("tie")
    _submit(app)
    assert [row[5] for row in _votes(sample_store, human=True)] == ["tie"]


def test_same_system_twice_is_explained(app, sample_store):
    _start(app, annotator="zoe")
    app.selectbox(key="pairwise_system_b").set_value("eo-rag-large").run()
    assert not app.exception
    assert any("two different systems" in w for w in texts(app, "warning"))


def test_answers_are_shown_as_text(app, sample_store):
    it = builders.item("inject", 0)
    sample_store.add_items(
        [it], [builders.response(it, "sys1", PAYLOAD), builders.response(it, "sys2", "plain")]
    )
    _start(app, annotator="zoe", dataset="inject")
    assert PAYLOAD in texts(app, "code")
    assert not any("<script>" in v or "![x]" in v or "onerror" in v for v in markdown_texts(app))


def test_a_refused_vote_keeps_the_comment_and_a_saved_one_clears_the_form(app, sample_store):
    _start(app, annotator="zoe")
    _comment(app).set_value("Both cite the band.")
    _submit(app)
    assert texts(app, "error") == ["Pick A, B or Tie before saving."]
    assert _comment(app).value == "Both cite the band."
    _choice(app).set_value("tie")  # the comment is not typed again
    _submit(app)
    assert texts(app, "success") == ["Saved your vote (Tie) as `zoe`."]
    assert [(row[5], row[7]) for row in _votes(sample_store, human=True)] == [
        ("tie", "Both cite the band.")
    ]
    assert _choice(app).value is None
    assert _comment(app).value == ""
