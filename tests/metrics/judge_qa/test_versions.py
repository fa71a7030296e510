"""Rubric versions side by side on a hand-built store where version 2 of a judge agrees with
the person far more than version 1: agreement and bias by hand, kappa against scikit-learn,
alpha against the `krippendorff` package; the disagreements listed; `metrics --json` names
them under `versions.<judge>.<version>.`."""

from __future__ import annotations

import dataclasses

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from dashboard.metrics.judge_qa import versions
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests import builders

DATASET = "versions"
PERSON = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]
V1 = [2, 2, 4, 4, 3, 1, 3, 3, 5, 4]  # equal to the person's on 4 of 10
V2 = [1, 2, 3, 4, 5, 1, 2, 3, 4, 4]  # equal on 9 of 10
SCALE = [1, 2, 3, 4, 5]


def seed_versions(store: Store) -> list[str]:
    """The person's ratings, then the judge's under rubric v1, then (later) under v2; returns
    the response ids in order."""
    items = [builders.item(DATASET, n) for n in range(len(PERSON))]
    responses = [builders.response(it, "sys", f"answer {n}") for n, it in enumerate(items)]
    ratings = []
    for r, person, one, two in zip(responses, PERSON, V1, V2):
        ratings.append(builders.rating(r, "ana", person, kind="human"))
        ratings.append(builders.rating(r, "judge", one, minutes=1))
        second = builders.rating(r, "judge", two, minutes=2)
        ratings.append(dataclasses.replace(second, rubric_version="2"))
    store.add_items(items, responses)
    store.add_ratings(ratings)
    return [r.response_id for r in responses]


def _alpha(judge: list[int]) -> float:
    return float(
        krippendorff.alpha(
            reliability_data=[judge, PERSON], level_of_measurement="ordinal", value_domain=SCALE
        )
    )


def test_each_version_against_people(store: Store) -> None:
    ids = seed_versions(store)
    found = versions.rubric_versions(store, Selection(DATASET, "likert-rag"))
    one, two = found.versions
    assert (one.judge, one.version, two.version) == ("judge", "1", "2")
    assert one.agreement.n == two.agreement.n == 10 and one.n_responses == 10
    # exact: 4/10 and 9/10.
    assert one.agreement.value == 0.4 and two.agreement.value == 0.9
    assert one.agreement.low <= 0.4 <= one.agreement.high < two.agreement.high
    # bias: v1's differences sum to +1 (mean 0.1), v2's to -1 (mean -0.1), over a width of 4.
    assert np.isclose(one.bias.value, 0.025) and np.isclose(two.bias.value, -0.025)
    assert one.bias.low <= one.bias.value <= one.bias.high
    for version, judge in ((one, V1), (two, V2)):
        kappa = cohen_kappa_score(judge, PERSON, weights="quadratic", labels=SCALE)
        assert np.isclose(version.kappa.value, kappa)
        assert np.isclose(version.alpha.value, _alpha(judge)) and version.alpha.n == 10
    assert two.kappa.value > one.kappa.value and two.alpha.value > one.alpha.value

    # v1 disagrees on responses 0, 2, 4, 6, 8, 9; v2 only on 9.
    listed = {d.response_id: d for d in found.disagreements}
    assert set(listed) == {ids[n] for n in (0, 2, 4, 6, 8, 9)}
    assert listed[ids[9]].ratings == {"1": 4.0, "2": 4.0} and listed[ids[9]].people == (5.0,)
    assert listed[ids[0]].question == "question 0?"


def test_metrics_json_names_each_version(store: Store) -> None:
    seed_versions(store)
    metrics = metrics_json.compute_all(store, Selection(DATASET, "likert-rag")).json["metrics"]
    assert metrics["versions.judge.1.agreement"]["value"] == 0.4
    assert metrics["versions.judge.2.agreement"] == {
        **metrics["versions.judge.2.agreement"],
        "value": 0.9,
        "n": 10,
    }
    assert {"versions.judge.2.kappa", "versions.judge.2.alpha", "versions.judge.2.bias"} <= set(
        metrics
    )


def test_no_person_no_versions(store: Store) -> None:
    assert versions.rubric_versions(store, Selection(DATASET)).versions == ()
