"""What the judge-corrected estimates and the paired comparisons read, as aggregates.

Per response (under the rubric): `f` the panel's normalized score (`scores_sql.PANEL_OF`), `y`
people's mean normalized rating over their *valid* labels only (selection random or census,
`dashboard.types.SAMPLED_SELECTIONS`), and `w` its weight, the mean inverse inclusion
probability of those labels (1 for census labels and for a uniform random sample). The
unlabelled responses come back as sums (count, sum, sum of squares, passes); only the
labelled ones, bounded by the number of human labels, come back one row each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dashboard.metrics import scores_sql as scores
from dashboard.metrics.corrected.corrected_items import (
    EstimateRow as EstimateRow,
    ResponseScores,
    rows_by_item,
)
from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import (
    PREFERENCE_PARAMS,
    SELECTED,
    item_field,
    selected,
)
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar
from dashboard.types import SAMPLED_SELECTIONS

VALID_HUMAN = "rater_kind = 'human' AND list_contains($sampled, selection)"
WEIGHT = "CASE WHEN selection = 'census' THEN 1.0 ELSE 1.0 / coalesce(inclusion_probability, 1) END"
# Per response: the panel's score, people's valid score and its weight, with the item; a
# response the panel scored or a person labelled validly. Two groupings, each of the rows it
# needs, then joined: one grouping of the 4M ratings with three filtered means took 0.33 s,
# the panel's alone 0.18 s (the filters are applied as DuckDB scans), people's a few ms.
_SCORED = f"""
    panel AS (
        SELECT response_id, avg(norm) AS f FROM ({scores.PANEL_NORMALIZED})
        WHERE rubric = $rubric AND {scores.IN_PANEL} GROUP BY response_id),
    people AS (
        SELECT response_id, avg(norm) AS y,
               avg({WEIGHT}) FILTER (WHERE norm IS NOT NULL) AS w
        FROM ({scores.PANEL_NORMALIZED})
        WHERE rubric = $rubric AND {VALID_HUMAN} GROUP BY response_id)"""
_SCORED_PARAMS = (*scores.PANEL_PARAMS, "rubric", "sampled")


def per_response(sel: Selection) -> tuple[str, tuple[str, ...]]:
    """The query of the per-response scores of `sel` (system, item_id, response_id, f, y,
    w), and the parameters it binds."""
    responses, names = selected(sel)
    query = f"""
        WITH {_SCORED}
        SELECT s.system, s.item_id, s.response_id, p.f, h.y, h.w
        FROM ({responses}) s
        LEFT JOIN panel p USING (response_id) LEFT JOIN people h USING (response_id)
        WHERE p.response_id IS NOT NULL OR h.response_id IS NOT NULL"""
    return query, (*names, *_SCORED_PARAMS)


def _params(sel: Selection, *names: str, **more: object) -> dict[str, object]:
    return {
        **sel.params(*(n for n in names if n != "sampled")),
        "sampled": list(SAMPLED_SELECTIONS),
        **more,
    }


@dataclass(frozen=True)
class PairCell:
    """Pairs of responses of two systems (system_a before system_b by name) with the same
    panel score f and valid human score y (None: no valid human verdict) of system_a, a win
    counting 1, a tie one half; `count` such pairs."""

    system_a: str
    system_b: str
    f: float | None
    y: float | None
    w: float | None
    count: int


# A rater's score of a pair for response_a: its verdict on the pair by the one rule of the
# standings and calibration (`scoring.pairwise.pair_verdict`): both orders reconciled, a
# disagreement being a tie; one order judged, that order's; an order judged that did not
# parse makes the pair unscored for that rater (left out, never half a win). This is the one
# place the corrected win rates read verdicts.
_SCORE = "CASE {v} WHEN 'A' THEN 1.0 WHEN 'tie' THEN 0.5 WHEN 'B' THEN 0.0 END"
_PAIR_SCORE = f"""CASE
    WHEN judged_first AND judged_second
        THEN CASE WHEN first = second THEN {_SCORE.format(v="first")} ELSE 0.5 END
    WHEN judged_first THEN {_SCORE.format(v="first")}
    ELSE {_SCORE.format(v="second")} END"""
# Each rater's orders of a pair, as `selection_sql.PREFERENCE_PAIRS` reads them.
_PER_RATER = """
            SELECT p.response_a, p.response_b, p.rater_kind, p.rater,
                   any_value(p.verdict) FILTER (WHERE p.shown_first = 'A') AS first,
                   bool_or(p.shown_first = 'A') AS judged_first,
                   any_value(p.verdict) FILTER (WHERE p.shown_first = 'B') AS second,
                   bool_or(p.shown_first = 'B') AS judged_second,
                   any_value(p.selection) AS selection,
                   any_value(p.inclusion_probability) AS inclusion_probability
            FROM current_preferences p {joins}
            WHERE ($preference_rubric IS NULL OR p.rubric = $preference_rubric)
            GROUP BY ALL"""


def _selected_pairs(sel: Selection) -> str:
    """The joins that keep the pairs of selected responses; none when every response is
    selected (the join to `responses` below drops a verdict on a response since deleted):
    two semi-joins with a million responses were most of the time of this read."""
    if sel.selects_every_response:
        return ""
    return f"""
            SEMI JOIN ({SELECTED}) s ON s.response_id = p.response_a
            SEMI JOIN ({SELECTED}) t ON t.response_id = p.response_b"""


def pair_cells(con: Connection, sel: Selection) -> list[PairCell]:
    """The units of the corrected win rates: every pair judged by the panel or by a person
    with a valid selection, grouped by their scores."""
    joins = _selected_pairs(sel)
    cursor = con.execute(
        f"""
        WITH per_rater AS ({_PER_RATER.format(joins=joins)}),
        scored AS (
            SELECT response_a, response_b, {_PAIR_SCORE} AS score, rater_kind, rater,
                   selection, inclusion_probability
            FROM per_rater
            WHERE NOT (judged_first AND first IS NULL)
              AND NOT (judged_second AND second IS NULL)),
        per_pair AS (
            SELECT response_a, response_b,
                   avg(score) FILTER (WHERE rater_kind = 'llm' AND ($panel_judges IS NULL
                       OR list_contains($panel_judges, rater))) AS f,
                   avg(score) FILTER (WHERE {VALID_HUMAN}) AS y,
                   avg({WEIGHT}) FILTER (WHERE {VALID_HUMAN}) AS w
            FROM scored GROUP BY ALL),
        oriented AS (
            SELECT least(ra.system, rb.system) AS system_a,
                   greatest(ra.system, rb.system) AS system_b,
                   CASE WHEN ra.system <= rb.system THEN f ELSE 1 - f END AS f,
                   CASE WHEN ra.system <= rb.system THEN y ELSE 1 - y END AS y, w
            FROM per_pair
            JOIN responses ra ON ra.response_id = per_pair.response_a
            JOIN responses rb ON rb.response_id = per_pair.response_b
            WHERE ra.system <> rb.system)
        SELECT system_a, system_b, round(f, 9) AS f, round(y, 9) AS y, round(w, 9) AS w,
               count(*) AS count
        FROM oriented WHERE f IS NOT NULL OR y IS NOT NULL GROUP BY ALL ORDER BY ALL""",
        _params(sel, *(PREFERENCE_PARAMS if joins else ("preference_rubric",)), "panel_judges"),
    )
    return fetch(cursor, PairCell)


# The three kinds of bootstrap units, when a unit groups items (a cluster, a conversation):
# name, an item's numerator and denominator, which items.
_UNIT_KINDS = (
    ("panel_units", "df", "1", "df IS NOT NULL"),
    ("human_units", "w * dy", "w", "dy IS NOT NULL"),
    ("unlabelled_units", "df", "1", "df IS NOT NULL AND dy IS NULL"),
)
_PER_SYSTEM = """
        SELECT 'unlabelled' AS kind, system AS system_a, NULL AS system_b, NULL AS unit,
               count(*) AS a, sum(f) AS b, sum(f * f) AS c,
               count(*) FILTER (WHERE f >= $pass_at) AS d, 1 AS mult
            FROM per_response WHERE f IS NOT NULL AND y IS NULL GROUP BY system
        UNION ALL SELECT 'labelled', system, NULL, response_id, f, y, w, NULL, 1
            FROM per_response WHERE y IS NOT NULL"""
# The pairs of two systems' scores on one item (`a` and `b`: two `per_item` rows).
_PAIR = """SELECT a.system AS system_a, b.system AS system_b, a.unit,
                   b.f - a.f AS df, b.y - a.y AS dy, a.w * b.w AS w"""
_PAIRED_ON = "ON a.item_key = b.item_key AND a.system < b.system"
# Units made of several items: every pair is kept, and the units' sums are grouped.
_UNIT_SUMS = ",".join(
    f"""
        {name} AS (SELECT system_a, system_b, round(sum({numer}), 9) AS a,
                round(sum({denom}), 9) AS b FROM paired WHERE {where}
                GROUP BY system_a, system_b, unit)"""
    for name, numer, denom, where in _UNIT_KINDS
)
_BY_UNIT = f"""
        paired AS MATERIALIZED ({_PAIR} FROM per_item a JOIN per_item b {_PAIRED_ON}),
        {_UNIT_SUMS}
        {_PER_SYSTEM}
        UNION ALL SELECT 'panel', system_a, system_b, NULL, a, b, NULL, NULL, count(*)
            FROM panel_units GROUP BY ALL
        UNION ALL SELECT 'human', system_a, system_b, NULL, a, b, NULL, NULL, count(*)
            FROM human_units GROUP BY ALL
        UNION ALL SELECT 'unlabelled_diff', system_a, system_b, NULL, a, b, NULL, NULL, count(*)
            FROM unlabelled_units GROUP BY ALL
        UNION ALL SELECT 'moments', system_a, system_b, NULL, count(*), sum(df), sum(df * df),
               NULL, 1
            FROM paired WHERE df IS NOT NULL AND dy IS NULL GROUP BY ALL
        UNION ALL SELECT 'labelled_diff', system_a, system_b, unit::VARCHAR, df, dy, w, NULL, 1
            FROM paired WHERE df IS NOT NULL AND dy IS NOT NULL
        ORDER BY ALL"""


def estimate_rows(
    con: Connection, sel: Selection, *, pass_at: float, cluster: str | None
) -> list[EstimateRow]:
    """Every aggregate of the corrected estimates and the paired comparisons, in one pass
    over the ratings. A comparison's bootstrap unit is an item (the rows are then built in
    numpy, `corrected_items`), or with `cluster` the value of that item field, or the
    conversation of a conversational item by default. Items and units are integer keys (a
    hash), so that the self-join and the grouping of millions of rows compare no strings."""
    if cluster is None and not has_conversations(con, sel):
        return rows_by_item(response_scores(con, sel), pass_at=pass_at)
    per_item = """SELECT system, hash(item_id) AS item_key, avg(f) AS f, avg(y) AS y,
                avg(w) AS w FROM per_response GROUP BY system, item_id"""
    unit = f"""CASE WHEN $cluster IS NOT NULL THEN coalesce({item_field("$cluster")}, i.item_id)
        WHEN i.task_type = 'conversational_qa'
        THEN i.dataset || '/' || coalesce(json_extract_string(i.history, '$[0].content'),
                                          i.item_id)
        ELSE i.item_id END"""
    per_item = f"""SELECT p.*, u.unit FROM ({per_item}) p JOIN (
            SELECT hash(i.item_id) AS item_key, hash({unit}) AS unit FROM items i) u
            USING (item_key)"""
    scored, names = per_response(sel)
    query = f"""
        WITH per_response AS MATERIALIZED ({scored}),
        per_item AS MATERIALIZED ({per_item}),
        {_BY_UNIT}"""
    params = _params(sel, *names, pass_at=pass_at, cluster=cluster)
    return fetch(con.execute(query, params), EstimateRow)


def response_scores(con: Connection, sel: Selection) -> ResponseScores:
    """`per_response` as arrays (`corrected_items.ResponseScores`): a million rows come back
    as columns, not as Python objects; the response ids only of the labelled ones."""
    scored, names = per_response(sel)
    # NULL scores as NaN, the item as its hash, the response id only where a valid label is
    # (y is a number), in the order of the rows.
    query = f"""
        SELECT system, hash(item_id) AS item_key, coalesce(f, 'NaN'::DOUBLE) AS f,
               coalesce(y, 'NaN'::DOUBLE) AS y, coalesce(w, 'NaN'::DOUBLE) AS w,
               CASE WHEN NOT isnan(coalesce(y, 'NaN'::DOUBLE)) THEN response_id END
                   AS labelled_id
        FROM ({scored})"""
    table = con.sql(query, params=_params(sel, *names)).to_arrow_table()
    names = table.column("system").combine_chunks().dictionary_encode()
    systems = [str(name) for name in names.dictionary.to_pylist()]
    order = sorted(range(len(systems)), key=systems.__getitem__)
    rank = np.empty(len(systems), np.int64)
    rank[order] = np.arange(len(systems))
    codes = names.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    labelled = table.column("labelled_id").drop_null().to_pylist()
    return ResponseScores(
        tuple(systems[i] for i in order),
        rank[codes] if len(codes) else codes,
        table.column("item_key").to_numpy(),
        table.column("f").to_numpy(),
        table.column("y").to_numpy(),
        table.column("w").to_numpy(),
        tuple(labelled),
    )


def has_conversations(con: Connection, sel: Selection) -> bool:
    """Whether some selected response answers a conversational item (whose default
    bootstrap unit is its conversation, not the item)."""
    responses, names = selected(sel)
    found = scalar(
        con.execute(
            f"""SELECT count(*) FROM ({responses}) s JOIN items i USING (item_id)
            WHERE i.task_type = 'conversational_qa'""",
            sel.params(*names),
        )
    )
    return bool(found)
