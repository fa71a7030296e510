"""The selection every metric query starts from, as SQL fragments, and what a selection can
be made of: the rubrics rated (or judged pairwise) on it, the item fields it can be sliced by.

A selection is one dataset (or all), some systems (or all) and one slice of the items (or
all), with a rubric for ratings and one (or all) for pairwise verdicts. Parameters are named
(`$dataset`, `$systems`, `$slice_field`, `$slice_value`, `$rubric`, `$preference_rubric`);
None means "all". A query binds exactly the parameters it uses: `SELECTED_PARAMS` for one
that reads `SELECTED`, `RATED_PARAMS` and `PREFERENCE_PARAMS` for the other two.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one


def item_field(param: str) -> str:
    """The text of an item's field named by the bound parameter `param` (a code constant:
    "$slice_field"): an item column (`selection.ITEM_COLUMNS`), else the metadata key of
    that name, read through a JSON pointer built from the bound text (so no name is ever
    spliced into SQL; "~" and "/" in a key are escaped as RFC 6901 says). NULL where the item
    has no such key or a JSON null."""
    return f"""CASE {param} WHEN 'dataset' THEN i.dataset WHEN 'task_type' THEN i.task_type
        ELSE json_extract_string(
            i.metadata, '/' || replace(replace({param}, '~', '~0'), '/', '~1')) END"""


# The selected responses: one dataset (or all), some systems (or all), and the items of one
# slice (or all): those whose field $slice_field has the text $slice_value (NULL: none).
SELECTED = f"""
    SELECT r.response_id, r.item_id, r.system FROM responses r
    WHERE ($dataset IS NULL OR r.dataset = $dataset)
      AND ($systems IS NULL OR list_contains($systems, r.system))
      AND ($slice_field IS NULL OR r.item_id IN (
          SELECT i.item_id FROM items i
          WHERE {item_field("$slice_field")} IS NOT DISTINCT FROM $slice_value))"""
SELECTED_PARAMS = ("dataset", "systems", "slice_field", "slice_value")
EVERY_RESPONSE = "SELECT r.response_id, r.item_id, r.system FROM responses r"


def selected(sel: Selection) -> tuple[str, tuple[str, ...]]:
    """`SELECTED` and the parameters it binds; when `sel` selects every response, the
    responses alone and none: DuckDB runs the slice's test even when it chooses none, a join
    of a million item ids."""
    if sel.selects_every_response:
        return EVERY_RESPONSE, ()
    return SELECTED, SELECTED_PARAMS


# Current ratings of the chosen rubric on the selected responses.
RATED = f"""
    SELECT s.response_id, s.item_id, s.system, g.rater_kind, g.rater, g.value,
           g.scale_low, g.scale_high, g.rubric_version
    FROM current_ratings g JOIN ({SELECTED}) s USING (response_id)
    WHERE g.rubric = $rubric"""
RATED_PARAMS = (*SELECTED_PARAMS, "rubric")


# Current pairwise verdicts on two selected responses, of the rubric asked for (or of every
# rubric): one row per pair and rater; per presentation order, whether the rater judged it and
# its verdict (NULL when that verdict did not parse, or the order was not judged: the judged_*
# flag tells which).
PREFERENCE_PAIRS = f"""
    SELECT p.item_id, p.response_a, p.response_b, p.rater_kind, p.rater,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'A') AS shown_a_first,
           bool_or(p.shown_first = 'A') AS judged_a_first,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'B') AS shown_b_first,
           bool_or(p.shown_first = 'B') AS judged_b_first
    FROM current_preferences p
    SEMI JOIN ({SELECTED}) s ON s.response_id = p.response_a
    SEMI JOIN ({SELECTED}) t ON t.response_id = p.response_b
    WHERE $preference_rubric IS NULL OR p.rubric = $preference_rubric
    GROUP BY ALL"""
PREFERENCE_PARAMS = (*SELECTED_PARAMS, "preference_rubric")


@dataclass(frozen=True)
class RubricScale:
    """A rubric rated on the selection: its scale, and how many current ratings use it."""

    rubric: str
    scale_low: float
    scale_high: float
    n_ratings: int


@dataclass(frozen=True)
class Scale:
    scale_low: float | None
    scale_high: float | None


@dataclass(frozen=True)
class SystemCount:
    system: str
    n_responses: int


def rubric_scales(con: Connection, sel: Selection) -> list[RubricScale]:
    """The rubrics with current ratings on the selection, most used first."""
    if sel.selects_every_response:
        # Every dataset, every system: no need to join millions of ratings to their responses.
        # (Only ratings a judge run wrote after its dataset was deleted lack one.)
        return fetch(
            con.execute("""
            SELECT rubric, min(scale_low) AS scale_low, max(scale_high) AS scale_high,
                   count(*) AS n_ratings
            FROM current_ratings GROUP BY rubric ORDER BY n_ratings DESC, rubric"""),
            RubricScale,
        )
    cursor = con.execute(
        f"""
        SELECT g.rubric, min(g.scale_low) AS scale_low, max(g.scale_high) AS scale_high,
               count(*) AS n_ratings
        FROM current_ratings g JOIN ({SELECTED}) s USING (response_id)
        GROUP BY g.rubric ORDER BY n_ratings DESC, g.rubric""",
        sel.params(*SELECTED_PARAMS),
    )
    return fetch(cursor, RubricScale)


def rubric_scale(con: Connection, rubric: str) -> tuple[float, float] | None:
    """The scale (low, high) of a rubric's current ratings, or None when it has none."""
    found = fetch_one(
        con.execute(
            "SELECT min(scale_low) AS scale_low, max(scale_high) AS scale_high "
            "FROM current_ratings WHERE rubric = ?",
            [rubric],
        ),
        Scale,
    )
    if found is None or found.scale_low is None or found.scale_high is None:
        return None
    return (found.scale_low, found.scale_high)


def selected_systems(con: Connection, sel: Selection) -> list[SystemCount]:
    """Every system of the selection with its number of responses, by name."""
    cursor = con.execute(
        f"""
        SELECT system, count(*) AS n_responses FROM ({SELECTED})
        GROUP BY system ORDER BY system""",
        sel.params(*SELECTED_PARAMS),
    )
    return fetch(cursor, SystemCount)


@dataclass(frozen=True)
class RubricCount:
    rubric: str
    n: int


def verdict_rubrics(con: Connection, sel: Selection) -> list[RubricCount]:
    """The rubrics with current pairwise verdicts on the selection, most used first."""
    cursor = con.execute(
        f"""
        SELECT p.rubric, count(*) AS n FROM current_preferences p
        SEMI JOIN ({SELECTED}) s ON s.response_id = p.response_a
        GROUP BY p.rubric ORDER BY n DESC, p.rubric""",
        sel.params(*SELECTED_PARAMS),
    )
    return fetch(cursor, RubricCount)


def rubric_names(con: Connection) -> list[str]:
    """Every rubric that some rating or pairwise verdict was given under, by name."""
    cursor = con.execute("""
        SELECT rubric FROM ratings UNION SELECT rubric FROM preferences ORDER BY rubric""")
    return [str(row[0]) for row in cursor.fetchall()]


@dataclass(frozen=True)
class SliceCount:
    """One value of an item field on the selection (None: no value), with its items."""

    value: str | None
    n_items: int


def item_fields(con: Connection, sel: Selection) -> list[str]:
    """The metadata keys that hold a value (not a JSON null) on some item of the selection's
    responses, by name."""
    cursor = con.execute(
        f"""
        WITH keyed AS (
            SELECT i.metadata, unnest(json_keys(i.metadata)) AS field FROM items i
            WHERE json_type(i.metadata) = 'OBJECT'
              AND i.item_id IN (SELECT item_id FROM ({SELECTED})))
        SELECT DISTINCT field FROM keyed
        WHERE json_extract_string(
            metadata, '/' || replace(replace(field, '~', '~0'), '/', '~1')) IS NOT NULL
        ORDER BY field""",
        sel.params(*SELECTED_PARAMS),
    )
    return [str(row[0]) for row in cursor.fetchall()]


def slice_values(con: Connection, sel: Selection, *, field: str) -> list[SliceCount]:
    """Each value the field `field` takes on the items of the selection's responses, with
    the number of those items; the items without it last, as value None."""
    cursor = con.execute(
        f"""
        SELECT {item_field("$field")} AS value, count(*) AS n_items FROM items i
        WHERE i.item_id IN (SELECT item_id FROM ({SELECTED}))
        GROUP BY ALL ORDER BY value NULLS LAST""",
        {**sel.params(*SELECTED_PARAMS), "field": field},
    )
    return fetch(cursor, SliceCount)
