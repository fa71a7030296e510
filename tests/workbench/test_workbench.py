"""The judge workbench on the bundled sample with the offline judge through real LiteLLM:
split, versions, run on labelled answers, paired comparison, adoption, judge card."""

from __future__ import annotations

import tomllib

import pytest

from dashboard.judging.rubrics import RubricError, rubric_from_toml
from dashboard.metrics import overview, panels
from dashboard.metrics.selection import Selection
from dashboard.review import failures
from dashboard.review.failures import FailureFilter
from dashboard.store import Store
from dashboard.types import Rating
from dashboard.workbench import cards, lab, run, split, versions

RUBRIC, DATASET, JUDGE = "likert-rag", "eo-rag", "baseline"


def _panel_scores(store: Store) -> dict[str, tuple[float, int]]:
    found = overview.overview(store, Selection(DATASET, RUBRIC))
    return {
        row.system: (row.scores["panel"].value, row.scores["panel"].n)
        for row in found.systems
        if "panel" in row.scores
    }


def _streams_with_two_current(store: Store) -> int:
    """(response, judge, rubric) streams with more than one current rating: none, ever."""
    with store.connection() as con:
        found = con.execute("""
            SELECT count(*) FROM (SELECT response_id, rater, rubric FROM current_ratings
            WHERE rater_kind = 'llm' GROUP BY ALL HAVING count(*) > 1)""").fetchone()
    assert found is not None
    return int(found[0])


def _failures(store: Store) -> list[tuple[str, object]]:
    page = failures.failures(store, FailureFilter(dataset=DATASET, rubric=RUBRIC), page_size=500)
    return [(row.response_id, row) for row in page.rows]


def _no_reference(store: Store) -> versions.RubricVersion:
    root = versions.list_versions(store, RUBRIC)[0].rubric
    template = root.template.replace("{{reference_answer}}", "(not shown)")
    return versions.save_version(
        store, RUBRIC, parent=root.version, changes={"template": template}, author="ana"
    )


def test_split_is_seeded_stratified_recorded_and_stable(sample_store: Store) -> None:
    first = split.read_split(sample_store, rubric=RUBRIC, dataset=DATASET)
    assert not first.recorded and first.n_new == len(first.sides) == 30
    made = split.make_split(sample_store, rubric=RUBRIC, dataset=DATASET, seed=0, by="ana")
    assert made.recorded and made.n_new == 0 and made.sides == first.sides
    assert abs(len(made.ids(split.TEST)) - 15) <= 3  # half, within one per stratum
    other = split.make_split(sample_store, rubric=RUBRIC, dataset=DATASET, seed=7)
    assert other.seed == 7 and other.sides != made.sides
    # A new labelled response gets a side; the recorded ones keep theirs.
    with sample_store.connection() as con:
        row = con.execute(
            "SELECT response_id FROM responses WHERE dataset = ? AND response_id NOT IN "
            "(SELECT response_id FROM ratings WHERE rater_kind = 'human') LIMIT 1",
            [DATASET],
        ).fetchone()
    assert row is not None
    sample_store.add_ratings([Rating("new-1", row[0], "human", "cy", RUBRIC, "1", 4.0, 1, 5)])
    grown = split.record_split(sample_store, rubric=RUBRIC, dataset=DATASET)
    assert len(grown.sides) == 31 and row[0] in grown.sides
    assert {r: s for r, s in grown.sides.items() if r != row[0]} == dict(other.sides)


def test_assignment_balances_each_stratum() -> None:
    strata = {f"r{i}": float(i % 3) for i in range(300)}
    found = split.assign({}, strata, seed=1, test_fraction=0.5)
    for stratum in (0.0, 1.0, 2.0):
        sides = [a.side for a in found if a.stratum == stratum]
        assert abs(sides.count("test") - sides.count("dev")) <= 1


def test_a_version_is_a_row_with_parent_hash_toml_and_diff(sample_store: Store) -> None:
    dev = lab.dev_label_ids(sample_store, rubric=RUBRIC, dataset=DATASET)
    saved = versions.save_version(
        sample_store,
        RUBRIC,
        parent="1",
        changes={"description": "edited"},
        example_ids=dev[:2],
        allowed_examples=dev,
        author="ana",
        note="two examples",
    )
    assert saved.version == "1-wb1" and saved.parent == "1" and len(saved.rubric.examples) == 2
    again = versions.get_version(sample_store, RUBRIC, "1-wb1")
    assert (
        again.prompt_hash
        == saved.prompt_hash
        != versions.list_versions(sample_store, RUBRIC)[0].prompt_hash
    )
    text = versions.to_toml(again.rubric, parent="1")
    assert tomllib.loads(text)["examples"] == dev[:2]
    assert rubric_from_toml(text).template == again.rubric.template
    diff = versions.diff(sample_store, RUBRIC, "1-wb1")
    assert '+description = "edited"' in diff and '+parent = "1"' in diff
    test_ids = split.read_split(sample_store, rubric=RUBRIC, dataset=DATASET).ids(split.TEST)
    with sample_store.connection() as con:
        test_rating = con.execute(
            "SELECT rating_id FROM ratings WHERE rater_kind = 'human' AND response_id = ?",
            [test_ids[0]],
        ).fetchone()
    assert test_rating is not None
    with pytest.raises(RubricError, match="dev split"):
        versions.save_version(
            sample_store,
            RUBRIC,
            parent="1",
            changes={},
            example_ids=[test_rating[0]],
            allowed_examples=dev,
        )


def test_the_loop_changes_the_panel_only_on_adoption(sample_store: Store) -> None:
    before = _panel_scores(sample_store)
    failing = _failures(sample_store)
    draft = _no_reference(sample_store)
    plan = run.plan_version(sample_store, judges="offline", rubric=draft.rubric, dataset=DATASET)
    assert (plan.calls_needed, plan.calls_cached) == (30, 0)  # the labelled answers only
    summary = run.run_version(sample_store, plan)
    assert summary.judges[0].calls_made == 30
    cached = run.plan_version(sample_store, judges="offline", rubric=draft.rubric, dataset=DATASET)
    assert cached.calls_needed == 0 and cached.calls_cached == 30
    # A draft never becomes the panel's version, and its ratings supersede none of version
    # 1's: the panel keeps every answer and every number (docs/judge-qa.md).
    assert panels.with_panel(sample_store, Selection(DATASET, RUBRIC)).panel_versions == ("1",)
    after_run = _panel_scores(sample_store)
    assert after_run == before
    assert _failures(sample_store) == failing and _streams_with_two_current(sample_store) == 0
    assert {n for _, n in before.values()} == {40}

    compared = lab.compare(
        sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, candidate=draft.version
    )
    assert compared.baseline == "1" and compared.difference.n_units == 14
    assert compared.verdict in ("better", "worse", "cannot tell with n = 14")
    assert 0 <= compared.mcnemar.p_value <= 1
    card = lab.adopt(
        sample_store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        version=draft.version,
        by="ana",
        reason="fewer hints",
    )
    assert card.version == draft.version and card.model == "judgeboard/baseline"
    assert not card.stale and card.numbers["kappa_quadratic"]["n"] > 0
    # The adopted version counts where it rated; the judge's other answers, and every other
    # judge, keep counting at version 1: no answer leaves the panel.
    selection = panels.with_panel(sample_store, Selection(DATASET, RUBRIC))
    assert selection.panel_versions == ("1", draft.version)
    adopted_scores = _panel_scores(sample_store)
    assert adopted_scores != after_run  # the panel's numbers change
    assert {n for _, n in adopted_scores.values()} == {40}
    assert _streams_with_two_current(sample_store) == 0  # the adopted rating, not both
    state = lab.state(sample_store, rubric=RUBRIC, dataset=DATASET)
    assert state.card is not None and state.looks_of(JUDGE) == 0
    scores = lab.score_on(
        sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, side=split.TEST
    )
    (adopted,) = [s for s in scores if s.version == draft.version]
    assert card.numbers["kappa_quadratic"]["value"] == adopted.kappa_quadratic.value
    assert card.numbers["exact"]["n"] == adopted.exact.n
    assert lab.state(sample_store, rubric=RUBRIC, dataset=DATASET).looks_of(JUDGE) == 2


def test_a_card_goes_stale_when_labels_grow(sample_store: Store) -> None:
    lab.adopt(
        sample_store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        version="1",
        by="ana",
        reason="baseline",
    )
    with sample_store.connection() as con:
        row = con.execute(
            "SELECT response_id FROM responses WHERE dataset = ? AND response_id NOT IN "
            "(SELECT response_id FROM ratings WHERE rater_kind = 'human') LIMIT 1",
            [DATASET],
        ).fetchone()
    assert row is not None
    sample_store.add_ratings([Rating("new-2", row[0], "human", "cy", RUBRIC, "1", 2.0, 1, 5)])
    (card,) = cards.judge_cards(sample_store)
    assert card.stale and "1 more responses" in card.stale_reasons[0]


def test_a_draft_rating_supersedes_only_its_own_version(sample_store: Store) -> None:
    draft = _no_reference(sample_store).version
    with sample_store.connection() as con:
        found = con.execute("SELECT response_id FROM responses ORDER BY response_id").fetchone()
    assert found is not None
    rid = found[0]

    def rate(rating_id: str, version: str, value: float) -> None:
        sample_store.add_ratings(
            [Rating(rating_id, rid, "llm", "lane", RUBRIC, version, value, 1, 5)]
        )

    rate("f1", "1", 2.0)
    rate("d1", draft, 4.0)  # a draft: f1 stays current
    rate("d2", draft, 5.0)  # the draft again: replaces d1 only
    rate("f2", "2", 3.0)  # a file version: replaces f1, never the draft's
    with sample_store.connection() as con:
        rows = dict(
            con.execute(
                "SELECT rating_id, (superseded, supersedes) FROM ratings WHERE rater = 'lane'"
            ).fetchall()
        )
        current = con.execute(
            "SELECT rating_id FROM current_ratings WHERE rater = 'lane'"
        ).fetchall()
    assert rows == {
        "f1": (True, None),
        "d1": (True, None),
        "d2": (False, "d1"),
        "f2": (False, "f1"),
    }
    assert current == [("f2",)]  # the draft's rating is not the judge's current one
    only = Rating("o1", rid, "llm", "draft-only", RUBRIC, draft, 4.0, 1, 5)
    sample_store.add_ratings([only])
    judges = failures.filter_options(sample_store, dataset=None, rubric=RUBRIC).judges
    assert "lane" in judges and "draft-only" not in judges  # no current rating of its own


def test_an_adoption_is_one_judges(sample_store: Store, tmp_path, monkeypatch) -> None:
    """Two judges ran one saved version; it is adopted for one of them. The other judge's
    ratings of it stay out of every current read (its own version 1 ratings stay current),
    and the adopted judge's replace only its own."""
    from dashboard.settings import PANELS_ENV

    folder = tmp_path / "panels"
    folder.mkdir()
    (folder / "two.toml").write_text(
        'name = "two"\n[[judges]]\nname = "baseline"\nmodel = "judgeboard/baseline"\n'
        '[[judges]]\nname = "second"\nmodel = "judgeboard/baseline"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv(PANELS_ENV, str(folder))
    root = versions.list_versions(sample_store, RUBRIC)[0].rubric
    run.run_version(
        sample_store, run.plan_version(sample_store, judges="two", rubric=root, dataset=DATASET)
    )
    draft = _no_reference(sample_store)
    run.run_version(
        sample_store,
        run.plan_version(sample_store, judges="two", rubric=draft.rubric, dataset=DATASET),
    )
    lab.adopt(
        sample_store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        version=draft.version,
        by="ana",
        reason="fewer hints",
    )
    with sample_store.connection() as con:
        current = dict(
            con.execute(
                "SELECT g.rater, list(DISTINCT g.rubric_version ORDER BY g.rubric_version) "
                "FROM current_ratings g JOIN responses r USING (response_id) "
                "WHERE r.dataset = ? AND g.rubric = ? AND g.rater_kind = 'llm' GROUP BY 1",
                [DATASET, RUBRIC],
            ).fetchall()
        )
    assert current["second"] == ["1"]  # its run of the draft was never adopted for it
    assert current[JUDGE] == ["1", draft.version]  # adopted where it rated, 1 elsewhere
    assert _streams_with_two_current(sample_store) == 0


def test_each_judge_keeps_its_own_card_and_version_in_force(
    sample_store: Store, tmp_path, monkeypatch
) -> None:
    """Two judges, each adopting its own draft: neither adoption hides the other's card, and
    for each judge the other's version is a draft, never the one in force."""
    from dashboard.settings import PANELS_ENV

    folder = tmp_path / "panels"
    folder.mkdir()
    (folder / "two.toml").write_text(
        'name = "two"\n[[judges]]\nname = "baseline"\nmodel = "judgeboard/baseline"\n'
        '[[judges]]\nname = "second"\nmodel = "judgeboard/baseline"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv(PANELS_ENV, str(folder))
    first = _no_reference(sample_store)
    root = versions.list_versions(sample_store, RUBRIC)[0].rubric
    second = versions.save_version(
        sample_store,
        RUBRIC,
        parent=root.version,
        changes={"template": root.template + "\nBe brief."},
        author="bo",
    )
    for rubric in (root, first.rubric, second.rubric):
        plan = run.plan_version(sample_store, judges="two", rubric=rubric, dataset=DATASET)
        run.run_version(sample_store, plan)
    for judge, version in ((JUDGE, first.version), ("second", second.version)):
        lab.adopt(
            sample_store,
            rubric=RUBRIC,
            dataset=DATASET,
            judge=judge,
            version=version,
            by="ana",
            reason=f"{judge}'s",
        )
    found = {(c.judge, c.version) for c in cards.judge_cards(sample_store, rubric=RUBRIC)}
    assert found == {(JUDGE, first.version), ("second", second.version)}
    state = lab.state(sample_store, rubric=RUBRIC, dataset=DATASET)
    assert state.in_force(JUDGE) == first.version and state.in_force("second") == second.version
    assert state.card is not None and state.card.judge == "second"  # the latest adoption
    baseline = lab.baseline_version(sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE)
    assert baseline == first.version
    compared = lab.compare(
        sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, candidate=second.version
    )
    assert compared.baseline == first.version  # the judge's own, not the other's adoption
    card = cards.adopted(sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE)
    assert card is not None and not card.stale and card.model_version is None  # offline
    assert [c.judge for c in cards.history(sample_store, rubric=RUBRIC, dataset=DATASET)] == [
        "second",
        JUDGE,
    ]


def test_a_pass_fail_verdict_needs_mcnemar_to_agree() -> None:
    from dashboard.workbench.agreement import verdict
    from scoring.paired_versions import McNemar, PairedDifference, mcnemar
    from scoring.stats import CI

    up = PairedDifference(40, 40, CI(0.2, 0.05, 0.35), CI(0.1, 0.02, 0.2))
    assert verdict(up) == "better"
    # 12 labels only the candidate matched, 1 only the baseline: p = 2 P(X <= 1), X ~ B(13, 1/2)
    # = 2 * 14 / 8192 = 0.0034 (scipy.stats.binomtest(1, 13).pvalue)
    strong = mcnemar([True] * 12 + [False] + [True] * 27, [False] * 12 + [True] * 28)
    assert (strong.only_a, strong.only_b) == (12, 1)
    assert strong.p_value == pytest.approx(2 * 14 / 8192)
    assert verdict(up, strong) == "better"
    assert verdict(up, McNemar(3, 2, 1.0)) == "cannot tell with n = 40"  # p too large
    assert verdict(up, McNemar(1, 12, 0.0034)) == "cannot tell with n = 40"  # the other way
    down = PairedDifference(40, 40, CI(-0.2, -0.35, -0.05), CI(-0.1, -0.2, -0.02))
    assert verdict(down, McNemar(1, 12, 0.0034)) == "worse"
    flat = PairedDifference(40, 40, CI(0.0, -0.1, 0.1), CI(0.0, -0.1, 0.1))
    assert verdict(flat, strong) == "cannot tell with n = 40"
