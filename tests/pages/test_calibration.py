"""The Calibration page: PandaLM's published agreement read off the page, the sample's judge
against its people, and a human rating that changes the numbers on the next run."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.ids import new_id
from dashboard.ingest import import_path
from dashboard.metrics import calibration, registry, tables
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Rating
from dashboard.ui import tables_fit
from scoring import agreement
from tests.metrics.calibration.test_calibration_levels import build_levels
from tests.pages.helpers import page_path
from tests.paths import SHARED_DATA

PAGE = page_path("calibration")
PANDALM = SHARED_DATA / "pandalm"
LLMBAR = SHARED_DATA / "llmbar"
ANNOTATOR_VERDICT = {0: "tie", 1: "A", 2: "B"}  # PandaLM: 1 = response1 (our A) better
GPT_VERDICT = {"1": "A", "2": "B", "Tie": "tie"}  # 'garbage' is not a verdict
fmt = partial(tables.estimate_text, digits=3)


@pytest.fixture(scope="module")
def pandalm_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pandalm") / "pandalm.duckdb"
    import_path(Store(path, wait_s=30), PANDALM)
    return path


@pytest.fixture(scope="module")
def llmbar_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("llmbar") / "llmbar.duckdb"
    import_path(Store(path, wait_s=30), LLMBAR)
    return path


def _open(app: AppTest, dataset: str) -> AppTest:
    app.switch_page(PAGE)
    app.run()
    app.selectbox(key="jb_dataset").set_value(dataset).run()  # as a user picks it
    assert not app.exception
    return app


def _table(app: AppTest, column: str):
    return next(d.value for d in app.dataframe if column in d.value.columns)


def _pairwise_tables(app: AppTest) -> list[pd.DataFrame]:
    """The pairwise verdicts' tables: from the one led by the headline convention to the
    people's agreement (or the end), each drawn no wider than the page."""
    frames = list(app.dataframe)
    first = next(n for n, d in enumerate(frames) if "accuracy (per order)" in d.value.columns)
    parts = []
    for frame in frames[first:]:
        if "person A" in frame.value.columns:
            break
        config = json.loads(frame.proto.columns)
        assert sum(c.get("width", 0) for c in config.values()) <= tables_fit.TABLE_PX
        parts.append(frame.value)
    return parts


def _pairwise(app: AppTest) -> pd.DataFrame:
    """The pairwise verdicts' tables side by side again, by judge."""
    return pd.concat([p.set_index("judge") for p in _pairwise_tables(app)], axis=1)


def _metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label.startswith(label))


def _from_raw_files() -> dict:
    """GPT-3.5 against the annotators' majority, computed by `scoring` from the raw files."""
    pairs = json.loads((PANDALM / "testset-v1.json").read_text(encoding="utf-8"))
    gpt = {
        row["idx"]: row["gpt_result"]
        for row in json.loads(
            (PANDALM / "gpt-3.5-turbo-testset-v1.json").read_text(encoding="utf-8")
        )
    }
    people = [[ANNOTATOR_VERDICT[p[f"annotator{n}"]] for p in pairs] for n in (1, 2, 3)]
    majority = []
    for votes in zip(*people):
        verdict, count = Counter(votes).most_common(1)[0]
        majority.append(verdict if count >= 2 else None)
    said = [GPT_VERDICT.get(gpt[p["idx"]]) for p in pairs]
    scored = [(s, m) for s, m in zip(said, majority) if s is not None and m is not None]
    no_ties = [(s, m) for s, m in scored if "tie" not in (s, m)]
    labels = ["A", "B", "tie"]
    return {
        "n": len(scored),
        "unscored": sum(1 for s, m in zip(said, majority) if s is None and m is not None),
        "with_ties": agreement.percent_agreement(*zip(*scored)),
        "without_ties": agreement.percent_agreement(*zip(*no_ties)),
        "n_no_ties": len(no_ties),
        "kappas": {
            (a + 1, b + 1): agreement.cohen_kappa(people[a], people[b], labels=labels)
            for a, b in ((0, 1), (0, 2), (1, 2))
        },
        "n_labels": sum(len(p) for p in people),
    }


def test_pandalm_gpt35_agreement_on_the_page_equals_scoring(app_for, pandalm_db: Path) -> None:
    expected = _from_raw_files()
    # 25 'garbage' outputs are unscored, apart; never a disagreement.
    assert (expected["n"], expected["unscored"]) == (974, 25)
    assert expected["with_ties"] == pytest.approx(697 / 974)
    app = _open(app_for(Store(pandalm_db, wait_s=30)), "pandalm")

    shown = _pairwise(app).loc["gpt-3.5-turbo"]
    # LLMBar's Acc counts every labelled pair, the unscored ones as wrong (issue 28); the
    # scored ones are what "labelled pairs" counted before.
    assert shown["scored labelled pairs"] == expected["n"]
    assert shown["labelled pairs"] == expected["n"] + expected["unscored"]
    assert shown["unscored pairs"] == shown["unscored verdicts"] == expected["unscored"]
    assert shown["agreement (with ties)"].startswith(f"{expected['with_ties']:.3f} [")
    assert shown["agreement (without ties)"].startswith(f"{expected['without_ties']:.3f} [")
    assert shown["pairs without ties"] == expected["n_no_ties"]
    assert _metric(app, "Human verdicts") == f"{expected['n_labels']:,}"

    people = _table(app, "person A").set_index(["person A", "person B"])["kappa"]
    kappas = {(int(a[-1]), int(b[-1])): float(k) for (a, b), k in people.items()}
    assert kappas == {k: pytest.approx(v, abs=5e-4) for k, v in expected["kappas"].items()}
    # PandaLM's README: 0.85, 0.88 and 0.86.
    assert [round(kappas[k], 2) for k in ((1, 2), (1, 3), (2, 3))] == [0.85, 0.88, 0.86]


def test_the_judge_and_panel_against_people(app_for, judged_store: Store) -> None:
    app = _open(app_for(judged_store), "eo-rag")
    result = calibration.calibration(judged_store, Selection("eo-rag", "likert-rag"))
    table = _table(app, "kappa (quadratic)").set_index("judge")
    assert list(table.index) == ["baseline", "panel"]
    for judge in result.judges:
        row = table.loc[judge.judge]
        assert row["pairs"] == judge.n_pairs and row["responses"] == judge.n_responses
        for column, estimate, style in (
            ("exact", judge.exact, "score"),
            ("within ±1", judge.within_one, "score"),
            ("kappa (quadratic)", judge.kappa_quadratic, "score"),
            ("alpha (ordinal)", judge.alpha_ordinal, "score"),
            ("Spearman", judge.spearman, "score"),
            ("bias (judge − person)", judge.bias, "signed"),
        ):
            assert row[column] == fmt(estimate, style)
    heatmaps = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    assert [h["layout"]["title"]["text"] for h in heatmaps] == [
        "baseline against people",
        "panel against people",
    ]
    assert _metric(app, "Krippendorff") == f"{result.alpha_all_raters:.3f}"
    assert _metric(app, "Human labels") == str(result.n_human_labels)
    people = _table(app, "exact agreement")
    assert list(people["person A"]) == ["ana"] and list(people["person B"]) == ["ben"]


def test_a_human_rating_changes_the_numbers(app_for, judged_store: Store) -> None:
    app = _open(app_for(judged_store), "eo-rag")
    before = _table(app, "kappa (quadratic)").set_index("judge").loc["baseline"]
    labels_before = _metric(app, "Human labels")
    with judged_store.connection() as con:
        rating_id, response_id = con.execute("""
            SELECT g.rating_id, g.response_id FROM current_ratings g
            JOIN responses USING (response_id)
            WHERE responses.dataset = 'eo-rag'
              AND g.rater = 'baseline' AND g.rubric = 'likert-rag' AND g.value >= 4
              AND NOT EXISTS (SELECT 1 FROM ratings h WHERE h.response_id = g.response_id
                              AND h.rater_kind = 'human')
            ORDER BY g.rating_id LIMIT 1""").fetchone()
    # As Annotate overrides a judge: a person's rating that names the judge's rating.
    judged_store.add_ratings(
        [
            Rating(
                new_id(),
                response_id,
                "human",
                "zoe",
                "likert-rag",
                "1",
                1.0,
                1.0,
                5.0,
                comment="wrong",
                overrides=rating_id,
            )
        ]
    )
    app.run()
    assert not app.exception
    after = _table(app, "kappa (quadratic)").set_index("judge").loc["baseline"]
    assert after["pairs"] == before["pairs"] + 1
    assert (
        after["exact"] != before["exact"]
        and after["bias (judge − person)"] != before["bias (judge − person)"]
    )
    assert int(_metric(app, "Human labels")) == int(labels_before) + 1


def test_without_human_labels_the_page_says_what_to_do(app: AppTest) -> None:
    _open(app, "eo-mcqa")
    texts = [i.value for i in app.info]
    assert any("Annotate" in t for t in texts) and any("Pairwise" in t for t in texts)


def _headline(app: AppTest, judge: str) -> str:
    return next(m.value for m in app.metric if m.label == judge)


def test_the_headline_convention_selector(app_for, llmbar_db: Path) -> None:
    app = _open(app_for(Store(llmbar_db, wait_s=30)), "llmbar")
    result = calibration.calibration(Store(llmbar_db, wait_s=30), Selection("llmbar"))
    gpt4 = next(p.judge for p in result.preferences if "gpt-4" in p.judge)
    chatgpt = next(p.judge for p in result.preferences if "chatgpt" in p.judge)
    selector = app.selectbox(key="jb_pairwise_headline")
    assert selector.value == "accuracy"
    assert selector.options == [m.label for m in tables.PREFERENCE_HEADLINES]
    # LLMBar's published Acc: GPT-4 0.955, ChatGPT 0.815
    assert (_headline(app, gpt4), _headline(app, chatgpt)) == ("0.955", "0.815")
    table = _table(app, "accuracy (per order)")
    assert list(table.columns[:3]) == ["judge", "accuracy (per order)", "labelled pairs"]
    every = {"judge"} | {m.label for m in registry.PREFERENCE_AGREEMENT_METRICS}
    every |= {m.n_label for m in registry.PREFERENCE_AGREEMENT_METRICS if m.n_label}
    # Too wide for one table at 1400 px: tables one under the other, each led by the judge
    # and no wider than the page (tables_fit.split_to_fit), every convention in one of them.
    parts = _pairwise_tables(app)
    assert len(parts) > 1 and all(list(p.columns)[0] == "judge" for p in parts)
    assert {c for p in parts for c in p.columns} == every
    rows = _pairwise(app)
    for p in result.preferences:
        for metric in registry.PREFERENCE_AGREEMENT_METRICS:
            value = getattr(p, metric.key)
            cell = rows.loc[p.judge, metric.label]
            assert cell == (value if metric.style == "count" else fmt(value)), metric.key

    selector.set_value("consistency").run()
    assert not app.exception
    # LLMBar's positional agreement: GPT-4 0.95, ChatGPT 0.71
    assert (_headline(app, gpt4), _headline(app, chatgpt)) == ("0.950", "0.710")
    assert next(m for m in app.metric if m.label == gpt4).help.endswith("n = 100")
    table = _table(app, "consistency")
    assert list(table.columns[:3]) == ["judge", "consistency", "pairs in both orders"]
    assert any("positional agreement" in c.value for c in app.caption)


def test_people_alpha_and_the_mean_of_people_on_the_page(app_for, store: Store) -> None:
    """Issue 28: people's alpha among themselves, and each judge against the mean of people
    at the item and system level with its TPR and TNR (the numbers are checked against the
    krippendorff package and scipy in tests/metrics/calibration/test_calibration_levels)."""
    build_levels(store)
    app = _open(app_for(store), "lv")
    labels = {m.label for m in app.metric}
    assert {"people's alpha (ordinal)", "people's alpha (interval)"} <= labels
    # Split to fit the page: every table of the section led by the judge, side by side again.
    named = {m.label for m in registry.JUDGE_LEVEL_METRICS} | {"items", "systems"}
    parts = [d for d in app.dataframe if set(d.value.columns[1:]) <= named]
    assert len(parts) > 1 and {c for d in parts for c in d.value.columns[1:]} == named
    for frame in parts:
        widths = [c.get("width", 0) for c in json.loads(frame.proto.columns).values()]
        assert sum(widths) <= tables_fit.TABLE_PX
    levels = pd.concat([d.value.set_index("judge") for d in parts], axis=1)
    cal = calibration.calibration(store, Selection("lv"))
    (judge,) = [lv for lv in cal.levels if lv.judge == "j"]
    assert levels.loc["j", "TPR (pass)"] == tables.estimate_text(judge.tpr, digits=3)
    assert levels.loc["j", "systems"] == 3
