"""The isotonic "calibrated" column: each judge's map onto people's scale, fitted on a seeded
half of the labelled answers (or the caller's dev answers: the page's are the workbench
split's dev side), checked on the rest, against scikit-learn; and the same numbers on the
Calibration page (AppTest)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from scipy.stats import bootstrap
from sklearn.isotonic import IsotonicRegression

from dashboard.metrics.calibration import isotonic, isotonic_calibration
from dashboard.metrics.calibration.isotonic import CHECK, FIT, UNLABELLED
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.workbench import split
from tests.pages.helpers import page_path

SELECTION = Selection("eo-rag", "likert-rag")


def _people(store: Store) -> dict[str, float]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, value FROM current_ratings WHERE rubric = 'likert-rag' "
            "AND rater_kind = 'human' AND value IS NOT NULL"
        ).fetchall()
    found: dict[str, list[float]] = defaultdict(list)
    for response_id, value in rows:
        found[response_id].append(value)
    return {r: float(np.mean(v)) for r, v in found.items()}


def test_the_map_is_sklearns_fit_on_the_fitting_half(judged_store: Store) -> None:
    (found,) = isotonic_calibration(judged_store, SELECTION)
    assert found.judge == "baseline"
    people = _people(judged_store)
    fit = [r for r in found.ratings if r.half == FIT]
    check = [r for r in found.ratings if r.half == CHECK]
    labelled = [r for r in found.ratings if r.people is not None]
    assert len(fit) == found.n_fit == (len(labelled) + 1) // 2  # the larger half fits
    assert len(check) == found.n_check == len(labelled) - len(fit)
    assert all(r.half == UNLABELLED for r in found.ratings if r.response_id not in people)
    reference = IsotonicRegression(out_of_bounds="clip").fit(
        [r.raw for r in fit], [people[r.response_id] for r in fit]
    )
    assert [r.calibrated for r in found.ratings] == pytest.approx(
        reference.predict([r.raw for r in found.ratings])
    )
    assert found.mae_raw == pytest.approx(np.mean([abs(r.raw - r.people) for r in check]))
    assert found.mae_calibrated == pytest.approx(
        np.mean([abs(r.calibrated - r.people) for r in check])
    )
    # Each error with its interval over the checked answers, as SciPy's percentile bootstrap
    # gives it (other random draws: the ends agree to Monte Carlo error).
    for ci, mapped in ((found.mae_raw_ci, "raw"), (found.mae_calibrated_ci, "calibrated")):
        errors = np.array([abs(getattr(r, mapped) - r.people) for r in check])
        ref = bootstrap(
            (errors,), np.mean, method="percentile", random_state=np.random.default_rng(1)
        ).confidence_interval
        assert ci.estimate == pytest.approx(errors.mean())
        assert (ci.low, ci.high) == pytest.approx((ref.low, ref.high), abs=0.08)
    # Seeded: the same halves every time; another seed, another half.
    assert isotonic_calibration(judged_store, SELECTION) == (found,)
    other = isotonic_calibration(judged_store, SELECTION, seed=5)[0]
    assert {r.response_id for r in other.ratings if r.half == FIT} != {r.response_id for r in fit}


def test_the_callers_dev_answers_fit_the_map(judged_store: Store) -> None:
    people = sorted(_people(judged_store))
    dev = people[:3]
    (found,) = isotonic_calibration(judged_store, SELECTION, fit_ids=dev)
    assert sorted(r.response_id for r in found.ratings if r.half == FIT) == dev
    assert found.n_check == len(people) - 3
    assert isotonic_calibration(judged_store, SELECTION, fit_ids=[]) == ()


def test_the_workbench_split_fits_on_dev_and_checks_on_test(judged_store: Store) -> None:
    sides = split.read_split(judged_store, rubric="likert-rag", dataset="eo-rag")
    found = split.isotonic_on_split(judged_store, SELECTION)
    assert found.on_split
    (judge,) = found.maps
    fitted = {r.response_id for r in judge.ratings if r.half == FIT}
    checked = {r.response_id for r in judge.ratings if r.half == CHECK}
    assert fitted == set(sides.ids(split.DEV)) & {r.response_id for r in judge.ratings}
    assert checked == set(sides.ids(split.TEST)) & {r.response_id for r in judge.ratings}
    assert fitted and checked and not fitted & checked
    assert found.maps == isotonic_calibration(judged_store, SELECTION, fit_ids=sides.ids("dev"))
    # A read: no split is recorded by it. Without a dataset there is no split: a seeded half.
    assert not split.read_split(judged_store, rubric="likert-rag", dataset="eo-rag").recorded
    every = split.isotonic_on_split(judged_store, Selection(None, "likert-rag"))
    assert not every.on_split
    assert every.maps == isotonic_calibration(judged_store, Selection(None, "likert-rag"))


def test_the_calibration_page_shows_the_calibrated_column(app_for, judged_store: Store) -> None:
    (found,) = split.isotonic_on_split(judged_store, SELECTION).maps
    app = app_for(judged_store)
    app.switch_page(page_path("calibration"))
    app.run()
    app.selectbox(key="jb_dataset").set_value("eo-rag").run()
    assert not app.exception
    table = next(d.value for d in app.dataframe if "calibrated" in d.value.columns)
    shown = dict(zip(table["response"], table["calibrated"], strict=True))
    assert shown == {r.response_id: round(r.calibrated, 3) for r in found.ratings}
    assert list(table.loc[table["response"] == found.ratings[0].response_id, "raw"]) == [
        found.ratings[0].raw
    ]
    maps = next(d.value for d in app.dataframe if "error, calibrated" in d.value.columns)
    assert list(maps["judge"]) == ["baseline"]
    assert list(maps["fitted on"]) == [found.n_fit]
    low, high = found.mae_raw_ci.low, found.mae_raw_ci.high
    assert list(maps["interval, raw"]) == [f"[{low:.2f}, {high:.2f}]"]
    captions = " ".join(c.value for c in app.caption)
    assert "Fitted on the dev split of people's labels and checked on the test split" in captions


def test_only_the_first_unlabelled_answers_are_shown(
    judged_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    (every,) = isotonic_calibration(judged_store, SELECTION)
    unlabelled = sorted(r.response_id for r in every.ratings if r.half == UNLABELLED)
    assert len(unlabelled) > 2
    monkeypatch.setattr(isotonic, "UNLABELLED_SHOWN", 2)
    (capped,) = isotonic_calibration(judged_store, SELECTION)
    assert [r.response_id for r in capped.ratings if r.half == UNLABELLED] == unlabelled[:2]
    assert [r for r in capped.ratings if r.half != UNLABELLED] == [
        r for r in every.ratings if r.half != UNLABELLED
    ]
