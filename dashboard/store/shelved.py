"""The `shelved` flag of ratings (migration 16): a judge's rating the current view leaves out
although nothing superseded it. A judge's rating under a workbench version (`rubric_versions`)
supersedes only that version's earlier rating (`writes._stream`), so a (response, judge,
rubric) stream can hold a current row per such version beside its file version's. The flag
keeps one of them in `current_ratings`: a workbench version's row is shelved unless that
version is the one adopted in force for that judge on the response's dataset (the judge's
latest adoption of the rubric there: an adoption is one judge's), and an adopted version's
row shelves the stream's other current rows. Kept on
the row, like `superseded`, so that the current view stays a filter."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.store.connection import Connection

# The rows of $rubric (on $ids, or every response when NULL) the current view leaves out.
_HIDDEN = """
    WITH in_force AS (
        SELECT dataset, judge, arg_max(rubric_version, created_utc) AS rubric_version
        FROM adoptions WHERE rubric = $rubric GROUP BY ALL),
    workbench AS (
        SELECT g.rating_id, g.response_id, g.rater, f.rubric_version IS NOT NULL AS adopted
        FROM ratings g
        JOIN responses r USING (response_id)
        LEFT JOIN in_force f ON f.dataset = r.dataset AND f.judge = g.rater
            AND f.rubric_version = g.rubric_version
        WHERE g.rubric = $rubric AND NOT g.superseded AND g.rater_kind = 'llm'
          AND g.rubric_version IN (
              SELECT rubric_version FROM rubric_versions WHERE rubric = $rubric)
          AND ($ids IS NULL OR list_contains($ids, g.response_id)))
    SELECT rating_id FROM workbench WHERE NOT adopted
    UNION ALL
    SELECT g.rating_id FROM ratings g JOIN workbench w
        ON w.adopted AND g.response_id = w.response_id AND g.rater = w.rater
        AND g.rating_id <> w.rating_id
    WHERE g.rubric = $rubric AND NOT g.superseded AND g.rater_kind = 'llm'"""


def workbench_rubrics(con: Connection) -> set[str]:
    found = con.execute("SELECT DISTINCT rubric FROM rubric_versions").fetchall()
    return {str(row[0]) for row in found}


def refresh(con: Connection, *, rubric: str, response_ids: Sequence[str] | None = None) -> None:
    """Set the flag of the rubric's judge ratings (of these responses; None: all) after a
    write that can change it: a rating under a workbench version, a rating of a stream that
    has one, an adoption. A no-op for a rubric the workbench never saved a version of."""
    if rubric not in workbench_rubrics(con):
        return
    ids = None if response_ids is None else sorted(set(response_ids))
    params = {"rubric": rubric, "ids": ids}
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE _shelved AS {_HIDDEN}""",
        params,
    )
    try:
        con.execute(
            """
            UPDATE ratings SET shelved = (rating_id IN (SELECT rating_id FROM _shelved))
            WHERE rubric = $rubric AND rater_kind = 'llm'
              AND ($ids IS NULL OR list_contains($ids, response_id))
              AND (shelved OR rating_id IN (SELECT rating_id FROM _shelved))""",
            params,
        )
    finally:
        con.execute("DROP TABLE IF EXISTS _shelved")


def refresh_written(con: Connection, relation: str) -> None:
    """`refresh` after a bulk write: `relation` (code, never input) holds the ratings written;
    nothing is read from it unless the workbench saved a version of one of their rubrics."""
    for rubric in sorted(workbench_rubrics(con)):
        found = con.execute(
            f"SELECT DISTINCT response_id FROM {relation} WHERE rater_kind = 'llm' AND rubric = ?",
            [rubric],
        ).fetchall()
        if found:
            refresh(con, rubric=rubric, response_ids=[str(row[0]) for row in found])
