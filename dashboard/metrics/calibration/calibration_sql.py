"""The reads of calibration. Per unit: every response (and pair) at least one person labelled,
with every rater's current value, bounded by the number of human labels. As counts: the
judges' verdicts on the pairs nobody labelled, one row per combination of verdicts, so that a
million such pairs stay a few dozen rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.campaigns.adjudication_sql import CURRENT as ADJUDICATED
from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import (
    PREFERENCE_PAIRS,
    PREFERENCE_PARAMS,
    RATED,
    RATED_PARAMS,
)
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class LabelledRating:
    """One rater's current rating of a response that a person rated: on the rubric's scale,
    None when it did not parse."""

    response_id: str
    rater_kind: str
    rater: str
    value: float | None
    in_panel: bool = False  # a rating by one of the selection's panel, at its rubric version
    system: str | None = None  # the response's system (system-level correlations)


@dataclass(frozen=True)
class LabelledPair:
    """One rater's current verdicts, in each presentation order, on a pair a person judged.
    `pair` is "<item_id>/<response_a>/<response_b>"."""

    pair: str
    rater_kind: str
    rater: str
    shown_a_first: str | None  # None: unparsed, or not judged (see judged_a_first)
    judged_a_first: bool
    shown_b_first: str | None
    judged_b_first: bool


@dataclass(frozen=True)
class UnlabelledCell:
    """How many pairs that no person judged a judge judged so, in each presentation order."""

    rater: str
    shown_a_first: str | None
    judged_a_first: bool
    shown_b_first: str | None
    judged_b_first: bool
    count: int


@dataclass(frozen=True)
class PanelCell:
    """How many pairs that no person judged had these counts of judges' verdicts in each
    order: `a_*` with A shown first, `b_*` with B shown first; `*_unparsed` counts the
    judges whose verdict in that order did not parse."""

    a_a: int
    a_b: int
    a_tie: int
    a_unparsed: int
    b_a: int
    b_b: int
    b_tie: int
    b_unparsed: int
    count: int


@dataclass(frozen=True)
class PairwiseRow:
    """A row of `pairwise_reads`: `part` says which record it is ("labelled", "judge" or
    "panel"), and the fields that record does not have are None."""

    part: str
    pair: str | None
    rater_kind: str | None
    rater: str | None
    shown_a_first: str | None
    judged_a_first: bool | None
    shown_b_first: str | None
    judged_b_first: bool | None
    a_a: int | None
    a_b: int | None
    a_tie: int | None
    a_unparsed: int | None
    b_a: int | None
    b_b: int | None
    b_tie: int | None
    b_unparsed: int | None
    count: int


@dataclass(frozen=True)
class PairwiseReads:
    """What pairwise calibration reads: every rater's verdicts on the pairs a person judged,
    and as counts each judge's (and the panel's makings) on the pairs nobody judged."""

    labelled: tuple[LabelledPair, ...]
    judges: tuple[UnlabelledCell, ...]
    panel: tuple[PanelCell, ...]


_ORDERS = "shown_a_first, judged_a_first, shown_b_first, judged_b_first"
_TALLIES = tuple(
    (f"{order}_{name}", order, verdict)
    for order in ("a", "b")
    for verdict, name in (("A", "a"), ("B", "b"), ("tie", "tie"), (None, "unparsed"))
)


def _tally(order: str, verdict: str | None) -> str:
    column, judged = f"shown_{order}_first", f"judged_{order}_first"
    test = f"{column} IS NULL" if verdict is None else f"{column} = '{verdict}'"
    return f"count(*) FILTER (WHERE {judged} AND {test})"


def _pairwise_sql() -> str:
    """One pass over the selection's pairs (a million pairs are read once, not per part)."""
    tallies = ", ".join(f"{_tally(order, verdict)} AS {name}" for name, order, verdict in _TALLIES)
    no_tallies = ", ".join(f"NULL::BIGINT AS {name}" for name, _, _ in _TALLIES)
    tally_names = ", ".join(name for name, _, _ in _TALLIES)
    return f"""
        WITH pairs AS MATERIALIZED ({PREFERENCE_PAIRS}),
        people AS (SELECT DISTINCT item_id, response_a, response_b FROM pairs
                   WHERE rater_kind = 'human'),
        unlabelled AS MATERIALIZED (
            SELECT p.* FROM pairs p ANTI JOIN people USING (item_id, response_a, response_b)
            WHERE p.rater_kind = 'llm'),
        per_pair AS (SELECT {tallies} FROM unlabelled
                     GROUP BY item_id, response_a, response_b)
        SELECT 'labelled' AS part, concat_ws('/', item_id, response_a, response_b) AS pair,
               rater_kind, rater, {_ORDERS}, {no_tallies}, 1 AS count
        FROM pairs SEMI JOIN people USING (item_id, response_a, response_b)
        UNION ALL
        SELECT 'judge', NULL, 'llm', rater, {_ORDERS}, {no_tallies}, count(*)
        FROM unlabelled GROUP BY ALL
        UNION ALL
        SELECT 'panel', NULL, NULL, NULL, NULL, NULL, NULL, NULL, {tally_names}, count(*)
        FROM per_pair GROUP BY ALL
        ORDER BY ALL"""


def _orders(row: PairwiseRow) -> tuple[str | None, bool, str | None, bool]:
    return row.shown_a_first, bool(row.judged_a_first), row.shown_b_first, bool(row.judged_b_first)


def pairwise_reads(con: Connection, sel: Selection) -> PairwiseReads:
    """Every rater's verdicts on every pair at least one person judged (the units of
    pairwise calibration), and the judges' verdicts on the other pairs as counts: per judge
    and order state, and per combination of the judges' verdict counts in each order."""
    rows = fetch(con.execute(_pairwise_sql(), sel.params(*PREFERENCE_PARAMS)), PairwiseRow)
    labelled = tuple(
        LabelledPair(str(r.pair), str(r.rater_kind), str(r.rater), *_orders(r))
        for r in rows
        if r.part == "labelled"
    )
    judges = tuple(
        UnlabelledCell(str(r.rater), *_orders(r), r.count) for r in rows if r.part == "judge"
    )
    panel = tuple(
        PanelCell(**{name: int(getattr(r, name) or 0) for name, _, _ in _TALLIES}, count=r.count)
        for r in rows
        if r.part == "panel"
    )
    return PairwiseReads(labelled, judges, panel)


# A judge's rating of a response that its rubric version showed as a few-shot example
# (`judging/few_shot.py`) is not compared with people: that version is calibrated on the
# held-out labels only.
NOT_AN_EXAMPLE = """EXISTS (
    SELECT 1 FROM few_shot_examples e WHERE e.rubric = $rubric
      AND e.rubric_version = {table}.rubric_version AND e.response_id = {table}.response_id)"""


# The ratings calibration compares: a judge's and people's. A reference score (rater kind
# `reference`: lm-eval's acc, exact_match ...) is neither, so it is no judge to calibrate.
CALIBRATED = f"{RATED} AND g.rater_kind <> 'reference'"


def labelled_ratings(con: Connection, sel: Selection) -> list[LabelledRating]:
    """Every rater's rating of every response that at least one person rated: the units of
    rating calibration. Unscored judge ratings are included, with value None; a judge's
    ratings of its few-shot version's examples are not (`NOT_AN_EXAMPLE`)."""
    # NOT MATERIALIZED: `rated` is read twice, and DuckDB would otherwise keep all of it (every
    # current rating of the rubric) to filter it by the person-rated answers: half the time.
    cursor = con.execute(
        f"""
        WITH rated AS NOT MATERIALIZED ({CALIBRATED})
        SELECT response_id, system, rater_kind, rater, value,
               coalesce(rater_kind = 'llm'
                   AND ($panel_judges IS NULL OR list_contains($panel_judges, rater))
                   AND ($panel_versions IS NULL
                        OR list_contains($panel_versions, rubric_version)), false)
                   AS in_panel
        FROM rated
        WHERE response_id IN (SELECT response_id FROM rated WHERE rater_kind = 'human')
          AND NOT (rater_kind = 'llm' AND {NOT_AN_EXAMPLE.format(table="rated")})
        ORDER BY ALL""",
        sel.params(*RATED_PARAMS, "panel_judges", "panel_versions"),
    )
    return fetch(cursor, LabelledRating)


@dataclass(frozen=True)
class ScoredRating:
    """A rater's current scored rating of a selected response (labelled by a person or not)."""

    response_id: str
    rater_kind: str
    rater: str
    value: float


def scored_ratings(con: Connection, sel: Selection, *, unlabelled: int) -> list[ScoredRating]:
    """Every current scored rating of the selection's rubric on the selected responses that a
    person rated, and each judge's first `unlabelled` others (by response id), a judge's
    few-shot examples left out: what the isotonic map is fitted on and shown applied to."""
    cursor = con.execute(
        f"""
        WITH rated AS NOT MATERIALIZED ({CALIBRATED}),
        scored AS (
            SELECT response_id, rater_kind, rater, value,
                   response_id IN (SELECT response_id FROM rated
                                   WHERE rater_kind = 'human' AND value IS NOT NULL) AS labelled
            FROM rated
            WHERE value IS NOT NULL
              AND NOT (rater_kind = 'llm' AND {NOT_AN_EXAMPLE.format(table="rated")}))
        SELECT response_id, rater_kind, rater, value FROM scored
        QUALIFY labelled OR row_number() OVER (
            PARTITION BY rater, labelled ORDER BY response_id) <= $unlabelled
        ORDER BY ALL""",
        {**sel.params(*RATED_PARAMS), "unlabelled": unlabelled},
    )
    return fetch(cursor, ScoredRating)


@dataclass(frozen=True)
class AdjudicatedLabel:
    response_id: str
    value: float


def adjudicated_labels(con: Connection, rubric: str) -> list[AdjudicatedLabel]:
    """Each answer's adjudicated label under `rubric` (`campaigns/adjudication.py`): its
    latest current adjudication over every campaign."""
    return fetch(
        con.execute(
            f"""SELECT response_id, arg_max(value, created_utc) AS value FROM ({ADJUDICATED})
                WHERE rubric = ? GROUP BY response_id ORDER BY response_id""",
            [rubric],
        ),
        AdjudicatedLabel,
    )
