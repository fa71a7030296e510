"""The calibration numbers issue 28 asked for, on a hand-built store, against references:
people's alpha among themselves (the `krippendorff` package), a judge against the mean of
people at the item and system level (scipy), TPR and TNR, and the Rogan-Gladen pass rate
(by hand), in the metrics JSON, on the Calibration page and in the report."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from scipy import stats

from dashboard.metrics.output import MetricsRequest, metrics_json
from dashboard.metrics.selection import Selection
from dashboard.report import build_report
from dashboard.store import Store
from scoring import prevalence
from tests import builders

SYSTEMS = ("alpha", "beta", "gamma")
# Per system, six responses: the judge's rating and two people's (None: not rated), 1-5.
JUDGE = {
    "alpha": [5, 4, 4, 2, 5, 3],
    "beta": [3, 2, 4, 1, 2, 3],
    "gamma": [1, 2, 2, 1, 3, 1],
}
ANA = {
    "alpha": [5, 5, 3, 2, None, 4],
    "beta": [3, 3, 4, 2, 1, None],
    "gamma": [2, 1, 1, None, 3, 1],
}
BEN = {
    "alpha": [4, 5, 4, 1, 5, None],
    "beta": [2, 3, None, 2, 2, 3],
    "gamma": [1, 2, 2, 1, None, 2],
}


def build_levels(store: Store, *, judge: bool = True) -> None:
    items = [builders.item("lv", n) for n in range(6)]
    responses = {
        s: [builders.response(it, s, f"{s} {n}") for n, it in enumerate(items)] for s in SYSTEMS
    }
    store.add_items(items, [r for rs in responses.values() for r in rs])
    ratings = []
    for system, rs in responses.items():
        for n, r in enumerate(rs):
            if judge:
                ratings.append(builders.rating(r, "j", JUDGE[system][n]))
            for person, said in (("ana", ANA), ("ben", BEN)):
                if said[system][n] is not None:
                    ratings.append(
                        builders.rating(
                            r, person, said[system][n], kind="human", selection="random"
                        )
                    )
    store.add_ratings(ratings)


@pytest.fixture
def levels_store(store: Store) -> Store:
    build_levels(store)
    return store


def _people_mean(system: str, n: int) -> float | None:
    said = [v for v in (ANA[system][n], BEN[system][n]) if v is not None]
    return float(np.mean(said)) if said else None


def _pairs() -> tuple[list[float], list[float], list[str]]:
    judge, human, systems = [], [], []
    for s in SYSTEMS:
        for n in range(6):
            if (mean := _people_mean(s, n)) is not None:
                judge.append(float(JUDGE[s][n]))
                human.append(mean)
                systems.append(s)
    return judge, human, systems


def test_people_alpha_equals_the_krippendorff_package(levels_store: Store) -> None:
    _, _, found = metrics_json.compute(levels_store, Selection("lv"))
    numbers = found["metrics"]
    matrix = np.array(
        [[np.nan if v is None else v for s in SYSTEMS for v in said[s]] for said in (ANA, BEN)],
        dtype=float,
    )
    for level in ("ordinal", "interval"):
        expected = krippendorff.alpha(
            matrix, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5]
        )
        entry = numbers[f"calibration.people_alpha.{level}"]
        assert entry["value"] == pytest.approx(expected)
        assert entry["n"] == 12  # the responses both people rated
        assert entry["low"] <= entry["value"] <= entry["high"]


def test_people_alpha_without_any_judge(store: Store) -> None:
    """Before issue 28 alpha always included a judge: without one there was none."""
    build_levels(store, judge=False)
    _, _, found = metrics_json.compute(store, Selection("lv"))
    assert found["metrics"]["calibration.people_alpha.ordinal"]["n"] == 12
    assert not any(k.startswith("calibration.j.") for k in found["metrics"])


def test_judge_against_the_mean_of_people(levels_store: Store) -> None:
    numbers = metrics_json.compute(levels_store, Selection("lv"))[2]["metrics"]
    judge, human, systems = _pairs()
    for name, function in (
        ("pearson", stats.pearsonr),
        ("spearman", stats.spearmanr),
        ("kendall", stats.kendalltau),
    ):
        item = numbers[f"calibration.j.item_{name}"]
        assert item["value"] == pytest.approx(function(judge, human)[0]), name
        assert item["n"] == len(judge) == 18  # every response has a person's rating
        judge_means = [np.mean([j for j, s in zip(judge, systems) if s == x]) for x in SYSTEMS]
        human_means = [np.mean([h for h, s in zip(human, systems) if s == x]) for x in SYSTEMS]
        system = numbers[f"calibration.j.system_{name}"]
        assert system["value"] == pytest.approx(function(judge_means, human_means)[0]), name
        assert system["n"] == 3
        # one judge: the panel is the judge
        assert numbers[f"calibration.panel.item_{name}"]["value"] == item["value"]


def test_tpr_and_tnr_by_hand(levels_store: Store) -> None:
    numbers = metrics_json.compute(levels_store, Selection("lv"))[2]["metrics"]
    # Pass: a normalized score of 0.5 or more, 3 or more on 1-5 (people: their mean).
    judge, human, _ = _pairs()
    positives = [j >= 3 for j, h in zip(judge, human) if h >= 3]
    negatives = [j < 3 for j, h in zip(judge, human) if h < 3]
    # People pass 9 responses (alpha 0, 1, 2, 4, 5; beta 1, 2, 5; gamma 4): the judge
    # passes 8 of them, all but beta 1 (2 against people's 3.0). They fail the other 9: the
    # judge fails 8, all but beta 0 (3 against people's 2.5). TPR = TNR = 8/9.
    assert (sum(positives), len(positives), sum(negatives), len(negatives)) == (8, 9, 8, 9)
    for rate in ("tpr", "tnr"):
        entry = numbers[f"calibration.j.{rate}"]
        assert (entry["value"], entry["n"]) == (pytest.approx(8 / 9), 9)


def test_rogan_gladen_pass_rate_by_hand(levels_store: Store) -> None:
    numbers = metrics_json.compute(levels_store, Selection("lv"))[2]["metrics"]
    # Every label is random (valid): TPR = TNR = 8/9 as above, Youden's J = 7/9.
    # alpha: the judge passes 5 of its 6 responses (all but the 2): p = 5/6;
    # (5/6 + 8/9 - 1) / (7/9) = (0.8333 - 0.1111) / 0.7778 = 0.9286
    # beta: p = 3/6: (0.5 - 0.1111) / 0.7778 = 0.5; gamma: p = 1/6: 0.0556 / 0.7778 = 0.0714
    tpr, tnr = 8 / 9, 8 / 9
    for system in SYSTEMS:
        p = sum(v >= 3 for v in JUDGE[system]) / 6
        expected = prevalence.rogan_gladen(p, tpr, tnr)
        entry = numbers[f"systems.{system}.pass_rate.rogan_gladen"]
        assert entry["value"] == pytest.approx(expected), system
        assert entry["n"] == 6
        assert entry["low"] <= entry["value"] <= entry["high"]
    assert numbers["systems.alpha.pass_rate.rogan_gladen"]["value"] == pytest.approx(13 / 14)
    assert numbers["systems.beta.pass_rate.rogan_gladen"]["value"] == pytest.approx(0.5)
    assert numbers["systems.gamma.pass_rate.rogan_gladen"]["value"] == pytest.approx(1 / 14)
    # beside the judge-only and PPI++ pass rates
    assert "systems.alpha.pass_rate.judge_only" in numbers
    assert "systems.alpha.pass_rate.corrected" in numbers


def test_the_report_shows_them(levels_store: Store) -> None:
    html = build_report(levels_store, MetricsRequest(dataset="lv"))
    for name in (
        "calibration.people_alpha.ordinal",
        "calibration.people_alpha.interval",
        "calibration.j.item_kendall",
        "calibration.j.system_pearson",
        "calibration.j.tpr",
        "systems.alpha.pass_rate.rogan_gladen",
    ):
        assert f'data-metric="{name}"' in html, name
