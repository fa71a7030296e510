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
class Unlabelled:
    """A system's responses that the panel scored and no valid label covers, summed."""

    system: str
    n: int
    total: float
    total_sq: float
    passes: int


@dataclass(frozen=True)
class Labelled:
    """A response with a valid human label: the panel's score (None: the panel did not
    score it), people's score and the label's weight."""

    system: str
    f: float | None
    y: float
    w: float


def unlabelled_sums(con: Connection, sel: Selection, *, pass_at: float) -> list[Unlabelled]:
    cursor = con.execute(
        f"""
        SELECT system, count(*) AS n, sum(f) AS total, sum(f * f) AS total_sq,
               count(*) FILTER (WHERE f >= $pass_at) AS passes
        FROM ({PER_RESPONSE}) WHERE f IS NOT NULL AND y IS NULL
        GROUP BY system ORDER BY system""",
        _params(sel, *PER_RESPONSE_PARAMS, pass_at=pass_at),
    )
    return fetch(cursor, Unlabelled)


def labelled_rows(con: Connection, sel: Selection) -> list[Labelled]:
    cursor = con.execute(
        f"""
        SELECT system, f, y, w FROM ({PER_RESPONSE}) WHERE y IS NOT NULL
        ORDER BY system, response_id""",
        _params(sel, *PER_RESPONSE_PARAMS),
    )
    return fetch(cursor, Labelled)


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
class CompareRow:
    """One row of the paired comparisons' aggregates (`compare_rows`), by `kind`:

    - "panel": a bootstrap unit of the panel's differences, `a` = the sum of its items'
      differences, `b` = its items, `mult` = units with those sums;
    - "human": the same for people's valid differences, `a` = sum of w * difference, `b` =
      sum of w;
    - "unlabelled": the panel's differences on the items without both valid labels, as
      "panel" rows;
    - "moments": per pair, over those items: `a` = count, `b` = sum, `c` = sum of squares;
    - "labelled": one item with both valid labels: `a` = the panel's difference, `b` =
      people's, `c` = its weight (the product of the two responses' weights), `unit` its
      bootstrap unit.
    The difference is system_b's score minus system_a's (system_a first by name)."""

    kind: str
    system_a: str
    system_b: str
    unit: str | None
    a: float
    b: float
    c: float | None
    mult: int


def compare_rows(con: Connection, sel: Selection, *, cluster: str | None) -> list[CompareRow]:
    """The paired comparisons' aggregates for every two systems on their shared items,
    each item (or, with `cluster`, each value of that item field, or the conversation of a
    conversational item by default) one bootstrap unit."""
    unit = f"""CASE WHEN $cluster IS NOT NULL THEN coalesce({item_field("$cluster")}, i.item_id)
        WHEN i.task_type = 'conversational_qa'
        THEN i.dataset || '/' || coalesce(json_extract_string(i.history, '$[0].content'),
                                          i.item_id)
        ELSE i.item_id END"""
    cursor = con.execute(
        f"""
        WITH per_item AS (
            SELECT system, item_id, avg(f) AS f, avg(y) AS y, avg(w) AS w
            FROM ({PER_RESPONSE}) GROUP BY ALL),
        paired AS (
            SELECT a.system AS system_a, b.system AS system_b, {unit} AS unit,
                   b.f - a.f AS df, b.y - a.y AS dy, a.w * b.w AS w
            FROM per_item a JOIN per_item b ON a.item_id = b.item_id AND a.system < b.system
            JOIN items i ON i.item_id = a.item_id),
        panel_units AS (
            SELECT system_a, system_b, round(sum(df), 9) AS a, count(*) AS b FROM paired
            WHERE df IS NOT NULL GROUP BY system_a, system_b, unit),
        human_units AS (
            SELECT system_a, system_b, round(sum(w * dy), 9) AS a, round(sum(w), 9) AS b
            FROM paired WHERE dy IS NOT NULL GROUP BY system_a, system_b, unit),
        unlabelled_units AS (
            SELECT system_a, system_b, round(sum(df), 9) AS a, count(*) AS b FROM paired
            WHERE df IS NOT NULL AND dy IS NULL GROUP BY system_a, system_b, unit)
        SELECT 'panel' AS kind, system_a, system_b, NULL AS unit, a, b, NULL AS c,
               count(*) AS mult FROM panel_units GROUP BY ALL
        UNION ALL SELECT 'human', system_a, system_b, NULL, a, b, NULL, count(*)
            FROM human_units GROUP BY ALL
        UNION ALL SELECT 'unlabelled', system_a, system_b, NULL, a, b, NULL, count(*)
            FROM unlabelled_units GROUP BY ALL
        UNION ALL SELECT 'moments', system_a, system_b, NULL, count(*), sum(df), sum(df * df), 1
            FROM paired WHERE df IS NOT NULL AND dy IS NULL GROUP BY ALL
        UNION ALL SELECT 'labelled', system_a, system_b, unit, df, dy, w, 1
            FROM paired WHERE df IS NOT NULL AND dy IS NOT NULL
        ORDER BY ALL""",
        _params(sel, *PER_RESPONSE_PARAMS, cluster=cluster),
    )
    return fetch(cursor, CompareRow)
