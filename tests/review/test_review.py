"""Failures list, detail, annotation queue and votes, on hand-built data (real DuckDB files).

`builders.two_systems` gives, normalized ((v - 1) / 4; "-" = not rated, None = unscored):
    response  j1    j2    ana   -> effective  spread
    good0     1     .75   1        1          .25
    good1     .75   .75   -        .75        0
    good2     1     1     .75      .75        0
    bad0      .25   None  0        0          0 (one scored judge)
    bad1      0     .25   -        .125       .25
    bad2      .5    .5    .5       .5         0
"""

from __future__ import annotations

import pytest

from dashboard.metrics import calibration, overview
from dashboard.metrics.selection import Selection
from dashboard.review import annotation, failures, queue_sql, votes, votes_sql
from dashboard.review.annotation import AnnotationError, QueueRequest
from dashboard.review.detail import response_detail
from dashboard.review.failures import FailureFilter
from dashboard.review.votes import PairRequest, VoteError
from dashboard.store import Store
from tests import builders

RUBRIC = "likert-rag"


@pytest.fixture
def toy(store):
    data = builders.two_systems(store)
    names = {
        r.response_id: f"{r.system}{n}"
        for system in ("good", "bad")
        for n, r in enumerate(data[system])
    }
    return {**data, "names": names}


def _names(toy, rows):
    return [toy["names"][r.response_id] for r in rows]


def _failures(store, *, page=1, page_size=failures.PAGE_SIZE, **options):
    return failures.failures(
        store,
        FailureFilter(rubric=RUBRIC, dataset="toy", **options),
        page=page,
        page_size=page_size,
    )


def test_failures_are_listed_worst_effective_score_first(store, toy):
    page = _failures(store)
    names = _names(toy, page.rows)
    assert names[:3] == ["bad0", "bad1", "bad2"]
    assert set(names[3:5]) == {"good1", "good2"} and names[5] == "good0"
    assert [r.score for r in page.rows] == pytest.approx([0, 0.125, 0.5, 0.75, 0.75, 1])
    bad1 = page.rows[1]
    assert (bad1.panel, bad1.human, bad1.spread) == (pytest.approx(0.125), None, 0.25)
    assert (bad1.n_judges, bad1.n_humans) == (2, 0)


def test_failure_filters(store, toy):
    assert _names(toy, _failures(store, min_disagreement=0.25).rows) == ["bad1", "good0"]
    assert _names(toy, _failures(store, max_score=0.5).rows) == ["bad0", "bad1", "bad2"]
    assert _names(toy, _failures(store, min_score=0.75, max_score=0.75).rows)[0] in (
        "good1",
        "good2",
    )
    assert _failures(store, system="good").total == 3
    assert _names(toy, _failures(store, search="LONDON 1").rows) == ["bad1"]
    assert _failures(store, task_type="open_qa").total == 6
    assert _failures(store, task_type="mcqa_single").total == 0


def test_search_takes_wildcards_literally(store, toy):
    # Unescaped, "_" would match any one character and "%" anything.
    assert _failures(store, search="_").total == 0
    assert _failures(store, search="%").total == 0
    assert _failures(store, search="paris_").total == 0


def test_judge_filter_ranks_by_that_judges_score(store, toy):
    page = _failures(store, judge="j2")
    # j2: good .75 .75 1, bad unscored .25 .5; its unscored rating sorts last
    assert _names(toy, page.rows)[:2] == ["bad1", "bad2"]
    assert _names(toy, page.rows)[-1] == "bad0" and page.rows[-1].score is None
    assert _failures(store, judge="nobody").total == 0


def test_failures_are_paged_and_a_page_out_of_range_is_clamped(store, toy):
    second = _failures(store, page=2, page_size=4)
    assert (second.total, second.n_pages, second.page, second.first) == (6, 2, 2, 5)
    assert len(second.rows) == 2
    assert _failures(store, page=99, page_size=4).page == 2


def test_unrated_answers_come_last_and_leave_with_a_score_bound(store, toy):
    extra = builders.response(toy["items"][0], "new", "madrid")
    store.add_items([], [extra])
    assert _failures(store).rows[-1].response_id == extra.response_id
    assert _failures(store).rows[-1].score is None
    assert extra.response_id not in {r.response_id for r in _failures(store, max_score=1).rows}


def test_detail_keeps_the_judge_rating_beside_a_persons_override(store, toy):
    target = toy["bad"][0]
    judge_rating = builders.rating(
        target,
        "j3",
        5,
        explanation="Looks right.",
        raw_output="Explanation: looks right.\nRating: [[5]]",
    )
    store.add_ratings([judge_rating])
    first = annotation.rate(
        store,
        target.response_id,
        annotator="zoe",
        rubric=RUBRIC,
        rubric_version="1",
        value=2,
        scale=(1, 5),
    ).record
    override = annotation.rate(
        store,
        target.response_id,
        annotator="zoe",
        rubric=RUBRIC,
        rubric_version="1",
        value=1,
        scale=(1, 5),
        overrides=judge_rating.rating_id,
        comment="London is wrong.",
    ).record
    detail = response_detail(store, target.response_id)
    judged = detail.find(judge_rating.rating_id)
    assert judged.current and judged.overridden_by == (override.rating_id,)
    assert judged.rating.explanation == "Looks right." and "[[5]]" in judged.rating.raw_output
    zoe = [e for e in detail.human_ratings if e.rating.rater == "zoe"]
    assert [e.rating.rating_id for e in zoe] == [first.rating_id, override.rating_id]
    assert not zoe[0].current and zoe[0].superseded_by == override.rating_id
    assert zoe[1].current and zoe[1].rating.comment == "London is wrong."
    assert zoe[1].rating.overrides == judge_rating.rating_id
    assert detail.item.question == "question 0?" and detail.response.answer == "london 0"
    assert response_detail(store, "no-such-id") is None


def _queue(store, order, *, annotator="zoe", **options):
    request = QueueRequest(
        rubric=RUBRIC, annotator=annotator, order=order, dataset="toy", **options
    )
    return annotation.annotation_queue(store, request, limit=10)


def test_queue_orders(store, toy):
    worst = _names(toy, _queue(store, "worst").entries)
    assert worst[:3] == ["bad0", "bad1", "bad2"] and worst[-1] == "good0"
    # spread .25 first (bad1 before good0: lower effective), then spread 0 by effective
    spread = _names(toy, _queue(store, "disagreement").entries)
    assert spread[:4] == ["bad1", "good0", "bad0", "bad2"]
    assert set(_names(toy, _queue(store, "unlabelled").entries)) == {"good1", "bad1"}
    random_1 = _names(toy, _queue(store, "random", seed=1).entries)
    assert random_1 == _names(toy, _queue(store, "random", seed=1).entries)
    assert sorted(random_1) == sorted(toy["names"].values())
    orders = {tuple(_names(toy, _queue(store, "random", seed=s).entries)) for s in range(6)}
    assert len(orders) > 1
    assert _queue(store, "worst", task_types=("mcqa_single",)).remaining == 0


def test_every_queue_order_has_a_label_and_a_query():
    assert set(annotation.QUEUE_ORDERS) == set(queue_sql.QUEUE_ORDERS)


def test_a_rated_answer_leaves_the_annotators_queue(store, toy):
    assert _queue(store, "worst", annotator="ana").remaining == 2  # ana rated 4 of 6
    assert _queue(store, "worst").remaining == 6
    annotation.rate(
        store,
        toy["bad"][0].response_id,
        annotator="zoe",
        rubric=RUBRIC,
        rubric_version="1",
        value=3,
        scale=(1, 5),
    )
    after = _queue(store, "worst")
    assert after.remaining == 5 and _names(toy, after.entries)[0] == "bad1"
    with pytest.raises(AnnotationError, match="unknown queue order"):
        _queue(store, "best")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"annotator": "  "}, "Annotator box"),
        ({"value": None}, "Pick a rating"),
        ({"value": 6}, "scale"),
        ({"overrides": "x", "comment": " "}, "needs a comment"),
    ],
)
def test_rate_refuses_an_incomplete_label(store, toy, options, message):
    values = {
        "annotator": "zoe",
        "rubric": RUBRIC,
        "rubric_version": "1",
        "value": 3,
        "scale": (1, 5),
        **options,
    }
    with pytest.raises(AnnotationError, match=message):
        annotation.rate(store, toy["good"][1].response_id, **values)
    assert response_detail(store, toy["good"][1].response_id).human_ratings == ()


def test_an_override_must_name_a_judge_rating_of_the_same_answer(store, toy):
    ana_rating = response_detail(store, toy["good"][0].response_id).human_ratings[0]
    other_judge = response_detail(store, toy["bad"][0].response_id).judge_ratings[0]
    for wrong in (ana_rating.rating.rating_id, other_judge.rating.rating_id):
        with pytest.raises(AnnotationError, match="not a judge's rating of this answer"):
            annotation.rate(
                store,
                toy["good"][0].response_id,
                annotator="zoe",
                rubric=RUBRIC,
                rubric_version="1",
                value=1,
                scale=(1, 5),
                overrides=wrong,
                comment="no",
            )


def test_a_human_rating_changes_overview_and_calibration(store, toy):
    selection = Selection("toy", RUBRIC)
    before = overview.overview(store, selection)
    before_cal = calibration.calibration(store, selection)
    annotation.rate(
        store,
        toy["good"][1].response_id,
        annotator="zoe",
        rubric=RUBRIC,
        rubric_version="1",
        value=1,
        scale=(1, 5),
    )
    after = overview.overview(store, selection)
    after_cal = calibration.calibration(store, selection)
    good = [next(r for r in view.systems if r.system == "good") for view in (before, after)]
    # people on good: ana 1 and .75 -> plus zoe 0 on good1
    assert good[0].score("human").value == pytest.approx(0.875)
    assert good[1].score("human").value == pytest.approx(1.75 / 3) and good[1].score("human").n == 3
    # effective: good1 drops from the panel's .75 to zoe's 0
    assert good[1].score("effective").value == pytest.approx(
        good[0].score("effective").value - 0.75 / 3
    )
    assert after_cal.n_human_labels == before_cal.n_human_labels + 1
    j1 = [next(j for j in cal.judges if j.judge == "j1") for cal in (before_cal, after_cal)]
    assert j1[1].n_pairs == j1[0].n_pairs + 1


def test_shown_first_is_seeded_and_balanced():
    sides = [votes.shown_first(7, f"item{n}", "a", "b") for n in range(400)]
    assert sides == [votes.shown_first(7, f"item{n}", "a", "b") for n in range(400)]
    assert 150 < sides.count("A") < 250
    assert sides != [votes.shown_first(8, f"item{n}", "a", "b") for n in range(400)]


@pytest.mark.parametrize(
    ("choice", "shown", "verdict"),
    [
        ("left", "A", "A"),
        ("right", "A", "B"),
        ("left", "B", "B"),
        ("right", "B", "A"),
        ("tie", "A", "tie"),
        ("tie", "B", "tie"),
    ],
)
def test_a_screen_choice_becomes_a_canonical_verdict(choice, shown, verdict):
    assert votes.canonical_verdict(choice, shown) == verdict


def test_pairs_follow_earlier_orientation_and_leave_once_voted(store, toy):
    items, good, bad = toy["items"], toy["good"], toy["bad"]
    # a judge compared item 0 as (bad, good): a person's vote must use the same key
    store.add_preferences([builders.preference(items[0], bad[0], good[0], "j1", "B")])
    request = PairRequest("good", "bad", "zoe", dataset="toy", seed=3)
    seen = {}
    for offset in range(3):
        view = votes.next_pair(store, request, offset=offset).pair
        seen[view.item.item_id] = (view.response_a.response_id, view.response_b.response_id)
        assert {view.left.response_id, view.right.response_id} == set(seen[view.item.item_id])
        assert view.shown_first == votes.shown_first(3, view.item.item_id, *seen[view.item.item_id])
    assert seen[items[0].item_id] == (bad[0].response_id, good[0].response_id)
    assert seen[items[1].item_id] == (good[1].response_id, bad[1].response_id)
    first = votes.next_pair(store, request)
    saved = votes.vote(
        store,
        first.pair,
        "left",
        annotator="zoe",
        rubric="pairwise",
        rubric_version="1",
        comment=" ",
    )
    vote = saved.record
    assert not saved.pending
    assert vote.shown_first == first.pair.shown_first and vote.comment is None
    assert vote.verdict == ("A" if first.pair.shown_first == "A" else "B")
    assert votes.next_pair(store, request).remaining == first.remaining - 1
    with pytest.raises(VoteError, match="two different systems"):
        votes.next_pair(store, PairRequest("good", "good", "zoe"))
    with pytest.raises(VoteError, match="Annotator box"):
        votes.vote(store, first.pair, "tie", annotator="", rubric="pairwise", rubric_version="1")


def test_a_vote_changes_the_win_rate(store, toy):
    selection = Selection("toy")
    people = "win_rate.people"
    assert all(r.score(people) is None for r in overview.overview(store, selection).systems)
    view = votes.next_pair(store, PairRequest("good", "bad", "zoe", "toy")).pair
    left_system = view.left.system
    votes.vote(store, view, "left", annotator="zoe", rubric="pairwise", rubric_version="1")
    after = {r.system: r.score(people) for r in overview.overview(store, selection).systems}
    assert after[left_system].value == 1.0 and after[left_system].n == 1
    found = overview.overview(store, selection).pairwise
    assert [g.raters for g in found.groups] == ["people"]  # a person's vote: no judge group


def test_sample_failures_first_page(sample_store):
    page = failures.failures(sample_store, FailureFilter(rubric=RUBRIC))
    assert len(page.rows) == failures.PAGE_SIZE and page.total > failures.PAGE_SIZE
    scores = [r.score for r in page.rows if r.score is not None]
    assert scores == sorted(scores)
    options = failures.filter_options(sample_store, dataset="eo-rag", rubric=RUBRIC)
    assert len(options.systems) >= 2 and "open_qa_context" in options.task_types


def test_filter_options_list_the_judges_of_the_rubric(store, toy):
    assert failures.filter_options(store, dataset="toy", rubric=RUBRIC).judges == ("j1", "j2")
    assert failures.filter_options(store, dataset="toy", rubric="other").judges == ()
    assert failures.filter_options(store, dataset="none", rubric=RUBRIC).systems == ()


def test_the_pair_queue_counts_in_one_query_and_clamps_past_the_end(store, toy):
    request = PairRequest("good", "bad", "zoe", dataset="toy", seed=3)
    orders = [votes.next_pair(store, request, offset=n) for n in range(3)]
    assert [q.remaining for q in orders] == [3, 3, 3] and [q.offset for q in orders] == [0, 1, 2]
    with store.connection() as con:
        window = votes_sql.pair_rows(con, request, limit=2, offset=1)
    assert window.total == 3
    assert [r.item_id for r in window.rows] == [q.pair.item.item_id for q in orders[1:]]
    past = votes.next_pair(store, request, offset=7)  # e.g. after votes elsewhere
    assert (past.offset, past.remaining) == (2, 3)
    assert past.pair.item.item_id == orders[2].pair.item.item_id
    assert votes.next_pair(store, PairRequest("good", "bad", "zoe", "none")) == votes.PairQueue(
        None, 0, 0
    )


# file_store: another process holds the DuckDB file; the override waits in its spool.
@pytest.mark.file_store
def test_an_override_checks_the_detail_without_opening_the_busy_file(store, toy):
    """While another process holds the file, the override is checked against the ratings the
    page showed, and kept in the spool; it lands once the file is free."""
    from tests.support.locks import database_held

    target = toy["bad"][0]
    detail = response_detail(store, target.response_id)
    judged = next(e for e in detail.judge_ratings if e.rating.rater == "j1")
    human = detail.human_ratings[0]
    values = {
        "annotator": "zoe",
        "rubric": RUBRIC,
        "rubric_version": "1",
        "value": 4,
        "scale": (1, 5),
        "comment": "It is right.",
        "detail": detail,
    }
    busy = Store(store.path, wait_s=0.2)
    with database_held(store.path):
        with pytest.raises(AnnotationError, match="not a judge's rating of this answer"):
            annotation.rate(busy, target.response_id, overrides=human.rating.rating_id, **values)
        saved = annotation.rate(
            busy, target.response_id, overrides=judged.rating.rating_id, **values
        )
        assert saved.pending and len(busy.spool.ready_files()) == 1
    after = response_detail(store, target.response_id)  # applies the spool first
    assert after.find(judged.rating.rating_id).overridden_by == (saved.record.rating_id,)
    assert after.find(saved.record.rating_id).rating.overrides == judged.rating.rating_id


def test_the_pairwise_standings_are_the_overviews(store, toy):
    items, good, bad = toy["items"], toy["good"], toy["bad"]
    store.add_preferences(
        [
            builders.preference(it, g, b, "j1", v)
            for it, g, b, v in zip(items, good, bad, ("A", "A", "tie"))
        ]
    )
    found = votes.standings(store, dataset="toy")
    assert found.groups and found == overview.overview(store, Selection("toy")).pairwise
    pooled = votes.standings(store, dataset="toy", pool_raters=True)
    assert pooled == overview.overview(store, Selection("toy"), pool_raters=True).pairwise
    assert votes.standings(store, dataset="none").groups == ()
