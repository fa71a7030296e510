"""Tables that fit a 1400-pixel window (dashboard/ui/tables_fit.py): a table wider than the
page becomes several, each led by the same columns, a metric's n beside it; counts are
narrow whatever their name; a long text column is cut at a bounded width."""

from __future__ import annotations

from dashboard.metrics import registry
from dashboard.ui import tables_fit
from dashboard.ui.tables_fit import COUNT_PX, NAME_PX, TABLE_PX, TEXT_PX

ESTIMATE = "0.955 [0.930, 0.975]"
PREFERENCE = registry.PREFERENCE_AGREEMENT_METRICS


def _preference_row(judge: str) -> dict:
    """A row as `tables.preference_rows` writes it: each convention, then its n."""
    row: dict = {"judge": judge}
    for metric in PREFERENCE:
        row[metric.label] = 3 if metric.style == registry.COUNT else ESTIMATE
        if metric.n_label:
            row[metric.n_label] = 100
    return row


def _widths(rows: list[dict], **options) -> int:
    config = tables_fit.column_config(rows, PREFERENCE, **options)
    return sum(c["width"] for c in config.values())


def test_a_wide_table_becomes_tables_that_fit_each_led_by_the_judge() -> None:
    rows = [_preference_row("gpt-4"), _preference_row("panel")]
    wide = tables_fit.WIDE_ESTIMATE_PX
    assert _widths(rows, estimate_px=wide) > TABLE_PX  # one table would scroll
    parts = tables_fit.split_to_fit(rows, PREFERENCE, estimate_px=wide)
    assert len(parts) > 1
    for part in parts:
        assert list(part[0])[0] == "judge" and [r["judge"] for r in part] == ["gpt-4", "panel"]
        assert _widths(part, estimate_px=wide) <= TABLE_PX
    # every column once, in its order, each n on the table of its convention, next to it
    shown = [name for part in parts for name in list(part[0])[1:]]
    assert shown == list(rows[0])[1:]
    for part in parts:
        names = list(part[0])
        for metric in PREFERENCE:
            if metric.n_label in names:
                assert names.index(metric.n_label) == names.index(metric.label) + 1


def test_a_table_that_fits_stays_one_and_lead_columns_repeat() -> None:
    rows = [{"dataset": "a", **_preference_row("j")}]
    narrow = [{n: v for n, v in rows[0].items() if n in ("dataset", "judge", "kappa")}]
    assert tables_fit.split_to_fit(narrow, PREFERENCE) == [narrow]
    parts = tables_fit.split_to_fit(rows, PREFERENCE, lead=2)
    assert len(parts) > 1 and all(list(p[0])[:2] == ["dataset", "judge"] for p in parts)
    assert tables_fit.split_to_fit([], PREFERENCE) == []


def test_counts_are_narrow_and_say_what_they_count() -> None:
    """The Judge QA bias table: "n (length)" holds a count or a dash, and heads its tooltip
    with the column it counts; "family" and "length measured" are as wide as their text."""
    rows = [
        {
            "judge": "baseline",
            "family": "—",
            "length": "+0.12 [−0.05, +0.30]",
            "n (length)": "—",
            "length measured": "raw (confounded)",
        },
        {
            "judge": "other",
            "family": "openai",
            "length": "—",
            "n (length)": 40,
            "length measured": "beyond people's",
        },
    ]
    config = tables_fit.column_config(rows, registry.BIAS_METRICS)
    assert config["judge"]["width"] == NAME_PX and config["judge"]["pinned"] is True
    assert config["n (length)"]["width"] == COUNT_PX
    assert config["n (length)"]["help"] == (
        "The n of the length column: how many values it is computed from."
    )
    length = next(m for m in registry.BIAS_METRICS if m.label == "length")
    assert config["length"]["help"] == length.description
    assert config["family"]["width"] < config["length measured"]["width"] < TEXT_PX


def test_a_long_text_is_cut_at_a_bounded_width() -> None:
    rows = [{"#": 1, "question": "why " * 200, "system": "eo-rag-small"}]
    config = tables_fit.column_config(rows)
    assert config["question"]["width"] == TEXT_PX
    assert COUNT_PX <= config["system"]["width"] < TEXT_PX
