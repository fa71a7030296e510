"""Win rates and Bradley–Terry ratings per rater kind and per judge, the pool only when asked,
the notes where the two rankings disagree, and the --rubric rule for verdicts; every number
against hand arithmetic (in the comments)."""

from __future__ import annotations

import math

import pytest

from dashboard.metrics import overview
from dashboard.metrics.output import metrics_json
from dashboard.metrics.overview import standings
from dashboard.metrics.selection import Selection
from scoring import pairwise
from tests import builders


def elo(share: float) -> float:
    """Two systems, one of which scored `share` of the points: its Bradley–Terry rating
    (mean 1000), 1000 + 200 log10(share / (1 - share))."""
    return 1000 + 200 * math.log10(share / (1 - share))


@pytest.fixture
def rated(store):
    """builders.two_systems (good, bad) with these verdicts of good against bad:

    rater     item 0             item 1             item 2
    j1        A (both orders)    A, then tie: tie   -
    j2        B                  -                  A
    ana       -                  -                  B
    ben       A                  A                  -
    """
    toy = builders.two_systems(store)
    it, good, bad = toy["items"], toy["good"], toy["bad"]

    def said(n, rater, verdict, **options):
        return builders.preference(it[n], good[n], bad[n], rater, verdict, **options)

    store.add_preferences(
        [
            said(0, "j1", "A", shown_first="A"),
            said(0, "j1", "A", shown_first="B"),
            said(1, "j1", "A", shown_first="A"),
            said(1, "j1", "tie", shown_first="B"),
            said(0, "j2", "B"),
            said(2, "j2", "A"),
            said(2, "ana", "B", kind="human"),
            said(0, "ben", "A", kind="human"),
            said(1, "ben", "A", kind="human"),
        ]
    )
    return toy


def _metrics(store, **options):
    return metrics_json.compute(store, Selection("toy"), **options)[2]["metrics"]


def test_win_rates_per_kind_per_judge_and_eve_over_the_judges(store, rated):
    found = _metrics(store)
    value = {name: entry["value"] for name, entry in found.items()}
    n = {name: entry["n"] for name, entry in found.items()}
    # judges: j1 (win, tie) = 0.75, j2 (loss, win) = 0.5; EVE = (0.75 + 0.5) / 2
    assert value["systems.good.win_rate.judges"] == pytest.approx(0.625)
    assert n["systems.good.win_rate.judges"] == 4
    assert value["systems.bad.win_rate.judges"] == pytest.approx((0.25 + 0.5) / 2)
    assert value["systems.good.win_rate.judge.j1"] == pytest.approx(0.75)
    assert value["systems.good.win_rate.judge.j2"] == pytest.approx(0.5)
    assert n["systems.good.win_rate.judge.j1"] == n["systems.good.win_rate.judge.j2"] == 2
    # people: ana (loss) = 0, ben (win, win) = 1; EVE = 0.5 over 3 verdicts
    assert value["systems.good.win_rate.people"] == pytest.approx(0.5)
    assert n["systems.good.win_rate.people"] == 3
    # the same as scoring's EVE on the same outcomes
    assert value["systems.good.win_rate.judges"] == pytest.approx(
        pairwise.win_rate({"j1": ["win", "tie"], "j2": ["loss", "win"]})
    )
    # head to head: two systems, so the same numbers
    assert value["pairwise.good.bad.win_rate.judges"] == pytest.approx(0.625)
    assert value["pairwise.good.bad.win_rate.people"] == pytest.approx(0.5)
    assert value["pairwise.bad.good.win_rate.judge.j1"] == pytest.approx(0.25)
    for name, entry in found.items():  # every number with its interval and n
        if ".win_rate" in name or ".bradley_terry" in name:
            assert entry["low"] <= entry["value"] <= entry["high"], name
            assert entry["n"] > 0, name


def test_bradley_terry_is_fitted_per_kind_and_per_judge(store, rated):
    found = _metrics(store)
    value = {name: entry["value"] for name, entry in found.items()}
    # judges' battles: good scores A + tie + B + A = 2.5 of 4 points
    assert value["systems.good.bradley_terry.judges"] == pytest.approx(elo(2.5 / 4))
    assert value["systems.bad.bradley_terry.judges"] == pytest.approx(2000 - elo(2.5 / 4))
    assert found["systems.good.bradley_terry.judges"]["n"] == 4
    # people's battles: B, A, A -> 2 of 3; j1's: A, tie -> 1.5 of 2; j2's: B, A -> 1 of 2
    assert value["systems.good.bradley_terry.people"] == pytest.approx(elo(2 / 3))
    assert value["systems.good.bradley_terry.judge.j1"] == pytest.approx(elo(1.5 / 2))
    assert value["systems.good.bradley_terry.judge.j2"] == pytest.approx(1000)


def test_the_pool_appears_only_when_asked_for(store, rated):
    found = _metrics(store)
    pooled = ("systems.good.win_rate", "systems.good.bradley_terry", "pairwise.good.bad.win_rate")
    assert not set(pooled) & set(found)
    found = _metrics(store, pool_raters=True)
    # every evaluator: (0.75 + 0.5 + 0 + 1) / 4; every battle: 4.5 of 7 points
    assert found["systems.good.win_rate"]["value"] == pytest.approx(0.5625)
    assert found["systems.good.win_rate"]["n"] == 7
    assert found["systems.good.bradley_terry"]["value"] == pytest.approx(elo(4.5 / 7))
    assert found["pairwise.good.bad.win_rate"]["value"] == pytest.approx(0.5625)
    # the per-kind numbers do not change with the pool
    assert found["systems.good.win_rate.judges"]["value"] == pytest.approx(0.625)


def _tree(store):
    """Systems a, b, c, d on ten items, judged by j1 on three pairings only:
    a beats c 7 times in 10, d beats c 9 times in 10, b beats d 6 times in 10."""
    items = [builders.item("tree", n) for n in range(10)]
    answers = {
        s: [builders.response(it, s, f"{s} {n}") for n, it in enumerate(items)] for s in "abcd"
    }
    store.add_items(items, [r for rs in answers.values() for r in rs])
    games = (("a", "c", 7), ("c", "d", 1), ("b", "d", 6))  # (first, second, wins of first)
    store.add_preferences(
        [
            builders.preference(it, answers[x][n], answers[y][n], "j1", "A" if n < wins else "B")
            for x, y, wins in games
            for n, it in enumerate(items)
        ]
    )


def test_a_rank_disagreement_names_both_systems_and_why(store):
    _tree(store)
    view = overview.overview(store, Selection("tree"))
    judges = view.pairwise.of("judges")
    assert judges is not None
    # win rates: a 7/10, b 6/10, c (3 + 1)/20, d (9 + 4)/20
    assert {s: round(e.value, 4) for s, e in judges.win_rates.items()} == {
        "a": 0.7,
        "b": 0.6,
        "c": 0.2,
        "d": 0.65,
    }
    # A tree of pairings: the fit matches each pairing's share exactly. With c at x:
    # a = x + 400 log10(7/3), d = x + 400 log10 9, b = d + 400 log10 1.5, mean 1000.
    gaps = {"c": 0.0, "a": 400 * math.log10(7 / 3), "d": 400 * math.log10(9)}
    gaps["b"] = gaps["d"] + 400 * math.log10(1.5)
    x = 1000 - sum(gaps.values()) / 4
    assert {s.system: s.rating for s in judges.bradley_terry} == pytest.approx(
        {s: x + g for s, g in gaps.items()}
    )
    # win rate: a > d > b > c; Bradley–Terry: b > d > a > c
    found = [(d.win_rate_above, d.bradley_terry_above) for d in judges.disagreements]
    assert found == [("a", "b"), ("a", "d"), ("d", "b")]
    text = judges.disagreements[0].text
    assert "the win rate ranks a above b (0.700 against 0.600)" in text
    assert f"Bradley–Terry ranks b above a ({x + gaps['b']:.0f} against {x + gaps['a']:.0f})" in (
        text
    )
    assert "whichever opponents it met" in text and "strength of the opponents" in text
    # one judge's standings are its kind's: no second copy of the notes
    assert view.pairwise.of("judge.j1").disagreements == ()
    notes = metrics_json.metrics_json(view, _calibration(store))["notes"]["rank_disagreements"]
    assert [(n["raters"], n["win_rate_above"], n["bradley_terry_above"]) for n in notes] == [
        ("judges", "a", "b"),
        ("judges", "a", "d"),
        ("judges", "d", "b"),
    ]
    assert notes[0]["note"] == text


def _calibration(store):
    from dashboard.metrics import calibration

    return calibration.calibration(store, Selection("tree"))


def test_agreeing_rankings_give_no_note(store, rated):
    view = overview.overview(store, Selection("toy"), pool_raters=True)
    assert view.pairwise.disagreements == ()
    assert [g.raters for g in view.pairwise.groups] == [
        "judges",
        "people",
        "judge.j1",
        "judge.j2",
        "pooled",
    ]


def test_a_group_label_names_it():
    assert standings.group_label("judges") == "the judges"
    assert standings.group_label("judge.gpt-4o") == "judge gpt-4o"


def test_the_command_prints_the_notes_and_explains_the_pooled_names(store, rated, capsys):
    from dashboard.cli import main

    db = ["--db", store.url, "metrics"]
    # A gate on a pooled name fails unless the pool is asked for, saying where it went.
    assert main([*db, "--dataset", "toy", "--fail-under", "systems.good.win_rate=0.5"]) == 2
    err = capsys.readouterr().err
    assert "no metric named 'systems.good.win_rate'" in err
    assert "close names: systems.good.win_rate" in err and "--pool-raters" in err
    args = ["--dataset", "toy", "--pool-raters", "--fail-under", "systems.good.win_rate=0.5"]
    assert main([*db, *args]) == 0  # 0.5625
    capsys.readouterr()
    _tree(store)
    assert main([*db, "--dataset", "tree"]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert len(notes) == 3 and notes[0].startswith("note: Among the judges, the win rate ranks a")
