"""Slicing every metric by an item field: in the selection (so every query honours it), in
`metrics --by` under flat prefixed names, on hand-built items, the sample and MT-Bench."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from dashboard.cli import main
from dashboard.ingest import import_path
from dashboard.metrics import choices, overview, registry, slices
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection, Slice
from dashboard.store import Store
from tests import builders
from tests.paths import SHARED_DATA

METADATA = (
    {"category": "coding", "turn": 1, "a/b": "yes", "it's": "x"},
    {"category": "coding", "turn": 2},
    {"category": "math", "turn": 1, "category2": None},
    {},
)


@pytest.fixture
def sliced(store):
    """Four items of dataset "sl" (metadata above), answered by good and bad.

    item  category  turn   j1 good  j1 bad   ana          j1's verdict   ana's verdict
    0     coding    1      5        1        good: 4      A              A
    1     coding    2      4        2                     A
    2     math      1      3        3        bad: 2       tie
    3     -         -      2        4                     B
    """
    items = [builders.item("sl", n, metadata=m) for n, m in enumerate(METADATA)]
    good = [builders.response(it, "good", f"good {n}") for n, it in enumerate(items)]
    bad = [builders.response(it, "bad", f"bad {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    store.add_ratings(
        [builders.rating(r, "j1", v) for r, v in zip(good + bad, (5, 4, 3, 2, 1, 2, 3, 4))]
        + [
            builders.rating(good[0], "ana", 4, kind="human"),
            builders.rating(bad[2], "ana", 2, kind="human"),
        ]
    )
    store.add_preferences(
        [
            builders.preference(it, g, b, "j1", v)
            for it, g, b, v in zip(items, good, bad, ("A", "A", "tie", "B"))
        ]
        + [builders.preference(items[0], good[0], bad[0], "ana", "A", kind="human")]
    )
    return items


def test_the_fields_are_the_item_columns_and_the_metadata_keys_with_a_value(store, sliced):
    # category2 holds only a JSON null: no field to split by
    assert choices.slice_fields(store, Selection("sl")) == [
        "dataset",
        "task_type",
        "a/b",
        "category",
        "it's",
        "turn",
    ]
    assert choices.slices_of(store, Selection("sl"), "category") == [
        (Slice("category", "coding"), 2),
        (Slice("category", "math"), 1),
        (Slice("category", None), 1),
    ]
    # numbers read as their JSON text; keys holding "/" and "'" are bound, not spliced
    assert [(s.value, n) for s, n in choices.slices_of(store, Selection("sl"), "turn")] == [
        ("1", 2),
        ("2", 1),
        (None, 1),
    ]
    assert [(s.value, n) for s, n in choices.slices_of(store, Selection("sl"), "a/b")] == [
        ("yes", 1),
        (None, 3),
    ]
    assert [(s.value, n) for s, n in choices.slices_of(store, Selection("sl"), "it's")] == [
        ("x", 1),
        (None, 3),
    ]
    with pytest.raises(choices.UnknownChoice, match="no item field named"):
        choices.slices_of(store, Selection("sl"), "category' OR '1'='1")


def test_each_slice_has_its_own_hand_checked_numbers(store, sliced):
    found = {
        s.slice.value: {r.system: r for r in s.overview.systems}
        for s in slices.overview_by(store, Selection("sl"), "category")
    }
    assert list(found) == ["coding", "math", None]
    # j1 normalized: good 5, 4 -> (1 + .75) / 2 on coding; 3 -> .5 on math; 2 -> .25 on none
    assert found["coding"]["good"].judges["j1"].value == pytest.approx(0.875)
    assert found["math"]["good"].judges["j1"].value == pytest.approx(0.5)
    assert found[None]["good"].judges["j1"].value == pytest.approx(0.25)
    assert found["coding"]["bad"].judges["j1"].value == pytest.approx(0.125)
    # win rates: coding A, A -> 1.0; math a tie -> 0.5; none B -> 0.0
    assert found["coding"]["good"].score("win_rate.judges").value == 1.0
    assert found["math"]["good"].score("win_rate.judges").value == 0.5
    assert found[None]["good"].score("win_rate.judges").value == 0.0
    assert found["coding"]["good"].score("win_rate.people").value == 1.0
    assert found["math"]["good"].score("win_rate.people") is None


def test_two_slices_counts_add_up_to_the_whole(store, sliced):
    data = metrics_json.compute(store, Selection("sl"), by="category")[2]
    metrics = data["metrics"]
    values = [s["value"] for s in data["by"]["slices"]]
    assert values == ["coding", "math", None]
    prefixes = [s["prefix"] for s in data["by"]["slices"]]
    assert prefixes == ["by.category=coding.", "by.category=math.", "by.category=(none)."]
    assert [s["items"] for s in data["by"]["slices"]] == [2, 1, 1]
    for name in (
        "systems.good.n_responses",
        "systems.good.win_rate.judges",
        "systems.bad.judge.j1",
        "systems.good.human",
        "calibration.human_labels",
        "calibration.human_preferences",
    ):
        parts = [metrics[p + name]["n"] for p in prefixes if p + name in metrics]
        assert sum(parts) == metrics[name]["n"], name
    # n_responses 2 + 1 + 1; verdicts 2 + 1 + 1; human labels 1 + 1 + 0
    assert metrics["by.category=coding.systems.good.n_responses"]["value"] == 2
    assert metrics["calibration.human_labels"]["value"] == 2


def test_a_slice_that_is_everything_equals_the_whole(store, sliced):
    data = metrics_json.compute(store, Selection("sl"), by="dataset", pool_raters=True)[2]
    metrics = data["metrics"]
    # The corrected estimates, the paired comparisons and the rubric versions are for the
    # whole selection only.
    only_whole = (*registry.CORRECTED_METRICS, *registry.COMPARE_METRICS, *registry.VERSION_METRICS)
    unsliced = {n for n in metrics if registry.declared(n) in only_whole}
    whole = {n: e for n, e in metrics.items() if not n.startswith("by.") and n not in unsliced}
    sliced_names = {
        n.removeprefix("by.dataset=sl."): e
        for n, e in metrics.items()
        if n != n.removeprefix("by.dataset=sl.")
    }
    assert sliced_names == whole
    assert unsliced and len(metrics) == 2 * len(whole) + len(unsliced)


def test_every_query_of_a_slice_reads_the_slice(store, sliced):
    # Calibration, references and preferences honour the slice through the selection alone.
    sel = Selection("sl", "likert-rag", slice=Slice("category", "math"))
    view = overview.overview(store, sel)
    assert [r.n_responses for r in view.systems] == [1, 1]
    assert view.systems[0].score("f1") is None  # code's items are not scored at import
    from dashboard.metrics import calibration

    cal = calibration.calibration(store, sel)
    assert cal.n_human_labels == 1 and cal.n_human_preferences == 0


def test_metrics_by_a_field_gates_on_slice_names(store, sliced, capsys):
    args = ["--db", store.url, "metrics", "--dataset", "sl", "--by", "category", "--json"]
    status = main([*args, "--fail-under", "by.category=*.systems.good.judge.j1=0.3"])
    out, err = capsys.readouterr()
    assert status == 1 and "by.category=(none).systems.good.judge.j1 = 0.25 is under" in err
    assert json.loads(out)["by"]["field"] == "category"
    assert main([*args, "--fail-under", "by.category=coding.systems.good.judge.j1=0.875"]) == 0
    capsys.readouterr()
    status = main(["--db", store.url, "metrics", "--dataset", "sl", "--by", "categry"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert "no item field named 'categry'; closest: category" in captured.err
    assert "(item fields: dataset, task_type, a/b, category, it's, turn)" in captured.err


def test_the_sample_splits_by_its_item_columns(sample_store):
    # The sample's only metadata key with a value is eo-rag's "notes"; the other datasets'
    # items split by the item columns alone.
    assert choices.slice_fields(sample_store, Selection("eo-rag")) == [
        "dataset",
        "task_type",
        "notes",
    ]
    assert choices.slice_fields(sample_store, Selection("eo-mcqa")) == ["dataset", "task_type"]
    data = metrics_json.compute(sample_store, Selection(), by="task_type")[2]
    metrics = data["metrics"]
    with sample_store.connection() as con:
        counted = dict(
            con.execute("SELECT system, count(*) FROM responses GROUP BY ALL").fetchall()
        )
    for system in data["systems"]:
        name = f"systems.{system}.n_responses"
        parts = [
            metrics[s["prefix"] + name]["value"]
            for s in data["by"]["slices"]
            if s["prefix"] + name in metrics
        ]
        assert sum(parts) == metrics[name]["value"] == counted[system]
    assert [s["value"] for s in data["by"]["slices"]] == sorted(
        {"open_qa_context", "mcqa_single", "mcqa_multi", "hallucination", "conversational_qa"}
    )


@pytest.fixture(scope="module")
def mt_bench(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("mt-bench") / "mt.duckdb", wait_s=30)
    import_path(store, SHARED_DATA / "mt_bench", dataset="mt-bench")
    return store


def test_mt_bench_by_category_matches_its_ratings(mt_bench):
    # The judge's mean per category, computed here from the stored ratings and the items'
    # metadata in Python: (value - 1) / 9 on MT-Bench's 1-10 scale, unscored ratings left out.
    with mt_bench.connection() as con:
        rows = con.execute("""
            SELECT i.metadata, g.value FROM current_ratings g
            JOIN responses r USING (response_id) JOIN items i ON i.item_id = r.item_id
            WHERE g.rubric = 'mt-bench-single'""").fetchall()
    scored: dict[str, list[float]] = defaultdict(list)
    for metadata, value in rows:
        if value is not None:
            scored[json.loads(metadata)["category"]].append((value - 1) / 9)
    categories = sorted({json.loads(metadata)["category"] for metadata, _ in rows})
    assert len(categories) == 8
    found = slices.overview_by(mt_bench, Selection("mt-bench"), "category")
    assert [s.slice.value for s in found] == categories
    assert {s.n_items for s in found} == {20}  # 10 questions, 2 turns each
    for piece in found:
        (row,) = piece.overview.systems
        assert row.n_responses == 20
        values = scored.get(piece.slice.value, [])
        judge = row.judges.get("gpt-4")
        assert (judge.n if judge else 0) == len(values)
        if values:
            assert judge.value == pytest.approx(sum(values) / len(values))
    turns = slices.overview_by(mt_bench, Selection("mt-bench"), "turn")
    assert [(t.slice.value, t.n_items) for t in turns] == [("1", 80), ("2", 80)]
    whole = overview.overview(mt_bench, Selection("mt-bench")).systems[0].judges["gpt-4"]
    assert sum(t.overview.systems[0].judges["gpt-4"].n for t in turns) == whole.n


def test_every_slice_name_fits_its_declaration(store, sliced):
    from dashboard.metrics import registry

    data = metrics_json.compute(store, Selection("sl"), by="category", pool_raters=True)[2]
    prefixes = [s["prefix"] for s in data["by"]["slices"]]
    for name in data["metrics"]:
        prefix = next((p for p in prefixes if name.startswith(p)), "")
        whole = registry.declared(name.removeprefix(prefix))
        assert whole is not None and registry.declared(name) is whole, name
    # a value holding dots: the shortest split whose rest is a metric's name
    assert registry.declared("by.version=v1.2.systems.x.em").name == "systems.<system>.em"
    assert registry.declared("by.category=(none).calibration.j.bias").key == "bias"
    assert registry.declared("by.category=coding.nonsense") is None
