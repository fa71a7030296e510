"""The Overview page on the sample database: the metric table, its columns, the charts, the
pairwise standings, and a human rating that changes the numbers on the next run."""

from __future__ import annotations

import json
from functools import partial

from streamlit.testing.v1 import AppTest

from dashboard.ids import new_id
from dashboard.metrics import choices, overview, registry, tables
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Preference, Rating
from tests.pages.helpers import page_path

PAGE = page_path("overview")
fmt = partial(tables.estimate_text, digits=2)


def _open(app: AppTest, dataset: str | None = None) -> AppTest:
    app.switch_page(PAGE)
    if dataset:
        app.session_state["jb_dataset"] = dataset
    app.run()
    assert not app.exception
    return app


def _score_tables(app: AppTest):
    """The tables of "Scores per system" (ratings, pairwise, references: each has the
    responses column), by system."""
    return [d.value.set_index("system") for d in app.dataframe if "responses" in d.value.columns]


def _table(app: AppTest):
    """The score tables side by side, as one table."""
    first, *rest = _score_tables(app)
    for part in rest:
        first = first.join(part.drop(columns="responses"))
    return first


def _unrated_response(store: Store, dataset: str, system: str) -> str:
    with store.connection() as con:
        return con.execute(
            """
            SELECT response_id FROM responses r WHERE dataset = ? AND system = ?
              AND NOT EXISTS (SELECT 1 FROM ratings g WHERE g.response_id = r.response_id
                              AND g.rater_kind = 'human')
            ORDER BY response_id LIMIT 1""",
            [dataset, system],
        ).fetchone()[0]


def test_the_table_shows_what_metrics_computes(app: AppTest, judged_store: Store) -> None:
    _open(app, "eo-rag")
    default = choices.default_rubric(judged_store, Selection("eo-rag"))
    # The default rubric choice: the most rated rubric's ratings, every rubric's verdicts.
    assert default is not None and app.selectbox(key="jb_metric_rubric_overview").value is None
    assert default.name in app.selectbox(key="jb_metric_rubric_overview").format_func(None)
    table = _table(app)
    view = overview.overview(judged_store, Selection("eo-rag"))
    assert list(table.index) == [r.system for r in view.systems]
    for row in view.systems:
        shown = table.loc[row.system]
        assert shown["judge: baseline"] == fmt(row.judges["baseline"])
        assert shown["panel"] == fmt(row.score("panel")) and shown["human"] == fmt(
            row.score("human")
        )
        assert shown["effective"] == fmt(row.score("effective")) and shown["F1"] == fmt(
            row.score("f1")
        )
        assert shown["human labels"] == row.score("human").n
        assert shown["panel skipped"] == row.panel_skipped
        assert shown["win rate (judges)"] == fmt(row.score("win_rate.judges"))
        assert shown["Bradley–Terry (judges)"] == tables.estimate_text(
            row.score("bradley_terry.judges"), "elo"
        )
        assert "[" in shown["panel"]  # with its interval
    # Per rater kind only: no pooled column unless asked, no column per judge.
    assert "win rate (pooled)" not in table.columns and "win rate: baseline" not in table.columns
    # No MCQA or hallucination item in eo-rag: those columns are hidden.
    for hidden in ("MCQA accuracy", "MCQA IoU", "hallucination F1"):
        assert hidden not in table.columns
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    titles = {a["text"] for a in spec["layout"]["annotations"]}
    assert titles == {"baseline", "people"}  # judges and people side by side


def test_a_dataset_without_ratings_explains_and_still_shows_mcqa(app: AppTest) -> None:
    _open(app, "eo-mcqa")
    assert any("No ratings yet" in i.value for i in app.info)
    table = _table(app)
    assert {"MCQA accuracy", "MCQA IoU"} <= set(table.columns)
    assert "human" not in table.columns and "panel" not in table.columns


def test_a_human_rating_changes_the_numbers(app: AppTest, judged_store: Store) -> None:
    _open(app, "eo-rag")
    before = _table(app).loc["eo-rag-small"]
    response_id = _unrated_response(judged_store, "eo-rag", "eo-rag-small")
    judged_store.add_ratings(
        [
            Rating(
                new_id(),
                response_id,
                "human",
                "zoe",
                "likert-rag",
                "1",
                5.0,
                1.0,
                5.0,
                comment="clearly right",
            )
        ]
    )
    app.run()
    assert not app.exception
    after = _table(app).loc["eo-rag-small"]
    assert after["human labels"] == before["human labels"] + 1
    assert after["human"] != before["human"] and after["effective"] != before["effective"]
    assert after["judge: baseline"] == before["judge: baseline"]  # judges' own scores stay


def _standings(app: AppTest):
    return next(d.value for d in app.dataframe if "battles" in d.value.columns)


def test_pairwise_standings_and_a_vote_that_moves_them(app: AppTest, sample_store: Store) -> None:
    _open(app, "eo-rag")
    view = overview.overview(sample_store, Selection("eo-rag"))
    judges = view.pairwise.of("judges")
    assert judges is not None
    shown = _standings(app)
    assert app.selectbox(key="jb_overview_raters").value == "judges"
    assert list(shown["system"]) == [s.system for s in judges.bradley_terry]
    assert list(shown["battles"]) == [s.n_battles for s in judges.bradley_terry]
    assert any(s.value == "Pairwise standings" for s in app.subheader)
    before = _table(app)
    assert "win rate (people)" not in before.columns  # nobody voted yet
    with sample_store.connection() as con:
        pairs = con.execute("""
            SELECT a.item_id, a.response_id, b.response_id FROM responses a
            JOIN responses b ON a.item_id = b.item_id AND a.system = 'keyword-baseline'
             AND b.system = 'eo-rag-large' WHERE a.dataset = 'eo-rag'
            ORDER BY a.item_id LIMIT 6""").fetchall()
    # As the Pairwise page records a vote: canonical verdict, the side shown first.
    sample_store.add_preferences(
        [
            Preference(new_id(), item, a, b, "human", "zoe", "pairwise", "1", "A", "B")
            for item, a, b in pairs
        ]
    )
    app.run()
    assert not app.exception
    after = _table(app)
    # zoe's six wins of keyword-baseline are people's standings; the judges' do not move.
    assert after["win rate (people)"]["keyword-baseline"].startswith("1.00")
    assert after["win rate (people)"]["eo-rag-large"].startswith("0.00")
    assert list(after["win rate (judges)"]) == list(before["win rate (judges)"])
    assert list(_standings(app)["battles"]) == list(shown["battles"])
    app.selectbox(key="jb_overview_raters").set_value("people").run()
    assert sum(_standings(app)["battles"]) == 2 * len(pairs)
    app.checkbox(key="jb_overview_pool").check().run()
    pooled = _table(app)["win rate (pooled)"]
    assert pooled["keyword-baseline"] != after["win rate (judges)"]["keyword-baseline"]
    app.selectbox(key="jb_overview_raters").set_value("pooled").run()
    assert sum(_standings(app)["battles"]) == sum(shown["battles"]) + 2 * len(pairs)


def test_an_empty_database_says_what_to_do(app_for, store: Store) -> None:
    app = app_for(store)
    _open(app)
    assert any("database is empty" in i.value for i in app.info)


def test_overview_calibration_run_judges_and_data_render_on_every_dataset(
    app: AppTest, sample_store: Store
) -> None:
    names = [d.name for d in sample_store.list_datasets()]
    for page in ("overview", "calibration", "run_judges", "data"):
        app.switch_page(page_path(page))
        for dataset in ["All datasets", *names]:
            app.session_state["jb_dataset"] = dataset
            app.run()
            assert not app.exception, (page, dataset, app.exception)
            assert not app.error, (page, dataset, [e.value for e in app.error])


def test_the_scores_are_split_by_kind_with_the_system_pinned(app: AppTest) -> None:
    _open(app, "eo-rag")
    titles = [m.value for m in app.markdown if m.value.startswith("**")]
    assert titles[:3] == ["**Ratings**", "**Pairwise**", "**Against the references**"]
    ratings, pairwise, references = _score_tables(app)
    assert "effective" in ratings.columns and "F1" not in ratings.columns
    assert "win rate (judges)" in pairwise.columns and "effective" not in pairwise.columns
    assert list(references.columns) == ["responses", "EM", "F1"]
    frame = next(d for d in app.dataframe if "responses" in d.value.columns)
    config = json.loads(frame.proto.columns)
    assert config["system"]["pinned"] is True
    effective = next(m for m in registry.SYSTEM_METRICS if m.label == "effective")
    assert config["effective"]["help"] == effective.description


def test_a_dataset_without_ratings_shows_its_reference_metrics_alone(app: AppTest) -> None:
    for dataset, metrics in (
        ("eo-mcqa", ["MCQA accuracy", "MCQA IoU"]),
        ("eo-hallucination", ["hallucination F1"]),
    ):
        _open(app, dataset)
        (table,) = _score_tables(app)  # one table: no empty ratings or pairwise one
        assert list(table.columns) == ["responses", *metrics]
        assert all(v.strip("—") for column in metrics for v in table[column])
        titles = [m.value for m in app.markdown if m.value.startswith("**")]
        assert "**Ratings**" not in titles and "**Against the references**" in titles
