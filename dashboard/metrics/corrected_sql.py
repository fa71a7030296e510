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

from dashboard.metrics import scores_sql as scores
from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import (
    PREFERENCE_PARAMS,
    RATED_PARAMS,
    SELECTED,
    SELECTED_PARAMS,
    item_field,
)
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch
from dashboard.types import SAMPLED_SELECTIONS

VALID_HUMAN = "rater_kind = 'human' AND list_contains($sampled, selection)"
WEIGHT = "CASE WHEN selection = 'census' THEN 1.0 ELSE 1.0 / coalesce(inclusion_probability, 1) END"
# Per response: the panel's score, people's valid score and its weight, with the item.
PER_RESPONSE = f"""
    WITH scored AS (
        SELECT response_id, {scores.PANEL_OF} AS f,
               avg(norm) FILTER (WHERE {VALID_HUMAN}) AS y,
               avg({WEIGHT}) FILTER (WHERE {VALID_HUMAN} AND norm IS NOT NULL) AS w
        FROM ({scores.PANEL_NORMALIZED}) WHERE rubric = $rubric GROUP BY response_id)
    SELECT s.system, s.item_id, s.response_id, p.f, p.y, p.w
    FROM scored p JOIN ({SELECTED}) s USING (response_id)"""
PER_RESPONSE_PARAMS = (*RATED_PARAMS, *scores.PANEL_PARAMS, "sampled")


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


# A verdict's score for response_a. This is the one place the corrected win rates read
# verdicts: the mean over the panel's verdicts in both orders (and over people's).
_VERDICT_SCORE = "CASE p.verdict WHEN 'A' THEN 1.0 WHEN 'tie' THEN 0.5 WHEN 'B' THEN 0.0 END"


def pair_cells(con: Connection, sel: Selection) -> list[PairCell]:
    """The units of the corrected win rates: every pair judged by the panel or by a person
    with a valid selection, grouped by their scores."""
    cursor = con.execute(
        f"""
        WITH scored AS (
            SELECT p.response_a, p.response_b, {_VERDICT_SCORE} AS score, p.rater_kind,
                   p.rater, p.selection, p.inclusion_probability
            FROM current_preferences p
            SEMI JOIN ({SELECTED}) s ON s.response_id = p.response_a
            SEMI JOIN ({SELECTED}) t ON t.response_id = p.response_b
            WHERE ($preference_rubric IS NULL OR p.rubric = $preference_rubric)
              AND p.verdict IS NOT NULL),
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
        _params(sel, *PREFERENCE_PARAMS, "panel_judges"),
    )
    return fetch(cursor, PairCell)


@dataclass(frozen=True)
class EstimateRow:
    """One row of the corrected estimates' and paired comparisons' aggregates
    (`estimate_rows`), by `kind`:

    - "unlabelled": a system's responses the panel scored and no valid label covers:
      `a` = count, `b` = sum of f, `c` = sum of f squared, `d` = those with f >= pass_at;
    - "labelled": one response of a system with a valid label: `a` = f (None: the panel did
      not score it), `b` = y, `c` = w;
    - "panel": a bootstrap unit of the panel's differences between system_a and system_b
      (system_b minus system_a, system_a first by name): `a` = the sum of its items'
      differences, `b` = its items, `mult` = units with those sums;
    - "human": the same for people's valid differences: `a` = sum of w * difference, `b` =
      sum of w;
    - "unlabelled_diff": the panel's differences on the items without both valid labels, as
      "panel" rows; "moments": over those items, `a` = count, `b` = sum, `c` = sum of squares;
    - "labelled_diff": one item with both valid labels: `a` = the panel's difference, `b` =
      people's, `c` = its weight (the product of the two responses'), `unit` its unit."""

    kind: str
    system_a: str
    system_b: str | None
    unit: str | None
    a: float | None
    b: float | None
    c: float | None
    d: float | None
    mult: int


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
# Each item its own unit: the millions of pairs are not kept. They are counted by the panel's
# difference (and whether both have valid labels) in one pass, with the exact sums the
# moments need; only the pairs with both labels, as few as the labels, are formed one by one.
_BY_ITEM = f"""
        labelled_items AS (SELECT * FROM per_item WHERE y IS NOT NULL),
        labelled_pairs AS (
            {_PAIR} FROM labelled_items a JOIN labelled_items b {_PAIRED_ON}),
        counted AS MATERIALIZED (
            SELECT a.system AS system_a, b.system AS system_b, round(b.f - a.f, 9) AS a,
                   a.y IS NULL OR b.y IS NULL AS unlabelled, count(*) AS n,
                   sum(b.f - a.f) AS s, sum((b.f - a.f) * (b.f - a.f)) AS ss
            FROM per_item a JOIN per_item b {_PAIRED_ON}
            WHERE a.f IS NOT NULL AND b.f IS NOT NULL GROUP BY ALL)
        {_PER_SYSTEM}
        UNION ALL SELECT 'panel', system_a, system_b, NULL, a, 1, NULL, NULL, sum(n)
            FROM counted GROUP BY system_a, system_b, a
        UNION ALL SELECT 'human', system_a, system_b, NULL, round(w * dy, 9), round(w, 9),
               NULL, NULL, count(*)
            FROM labelled_pairs WHERE dy IS NOT NULL GROUP BY ALL
        UNION ALL SELECT 'unlabelled_diff', system_a, system_b, NULL, a, 1, NULL, NULL, n
            FROM counted WHERE unlabelled
        UNION ALL SELECT 'moments', system_a, system_b, NULL, sum(n), sum(s), sum(ss), NULL, 1
            FROM counted WHERE unlabelled GROUP BY system_a, system_b
        UNION ALL SELECT 'labelled_diff', system_a, system_b, unit::VARCHAR, df, dy, w, NULL, 1
            FROM labelled_pairs WHERE df IS NOT NULL AND dy IS NOT NULL
        ORDER BY ALL"""


def estimate_rows(
    con: Connection, sel: Selection, *, pass_at: float, cluster: str | None
) -> list[EstimateRow]:
    """Every aggregate of the corrected estimates and the paired comparisons, in one pass
    over the ratings (the per-response scores are materialized once). A comparison's
    bootstrap unit is an item, or with `cluster` the value of that item field, or the
    conversation of a conversational item by default. Items and units are integer keys (a
    hash), so that the self-join and the grouping of millions of rows compare no strings."""
    by_unit = cluster is not None or has_conversations(con, sel)
    per_item = """SELECT system, hash(item_id) AS item_key, avg(f) AS f, avg(y) AS y,
                avg(w) AS w FROM per_response GROUP BY system, item_id"""
    if by_unit:
        unit = f"""CASE WHEN $cluster IS NOT NULL THEN coalesce({item_field("$cluster")}, i.item_id)
            WHEN i.task_type = 'conversational_qa'
            THEN i.dataset || '/' || coalesce(json_extract_string(i.history, '$[0].content'),
                                              i.item_id)
            ELSE i.item_id END"""
        per_item = f"""SELECT p.*, u.unit FROM ({per_item}) p JOIN (
                SELECT hash(i.item_id) AS item_key, hash({unit}) AS unit FROM items i) u
                USING (item_key)"""
    else:
        per_item = per_item.replace("AS item_key,", "AS item_key, hash(item_id) AS unit,")
    query = f"""
        WITH per_response AS MATERIALIZED ({PER_RESPONSE}),
        per_item AS MATERIALIZED ({per_item}),
        {_BY_UNIT if by_unit else _BY_ITEM}"""
    params = _params(sel, *PER_RESPONSE_PARAMS, pass_at=pass_at)
    if by_unit:
        params["cluster"] = cluster
    return fetch(con.execute(query, params), EstimateRow)


def has_conversations(con: Connection, sel: Selection) -> bool:
    """Whether some selected response answers a conversational item (whose default
    bootstrap unit is its conversation, not the item)."""
    row = con.execute(
        f"""SELECT count(*) FROM ({SELECTED}) s JOIN items i USING (item_id)
        WHERE i.task_type = 'conversational_qa'""",
        sel.params(*SELECTED_PARAMS),
    ).fetchone()
    return bool(row and row[0])
