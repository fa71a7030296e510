"""What the panel choice reads: each judge's current ratings of the rubric on the selection,
and the newest rubric version a panel's judges rated under."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import RATED, RATED_PARAMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one


@dataclass(frozen=True)
class JudgeCount:
    rater: str
    n_ratings: int


@dataclass(frozen=True)
class Version:
    rubric_version: str | None


def judge_counts(con: Connection, sel: Selection) -> list[JudgeCount]:
    """Each judge's ratings of the selection's rubric on the selection (current ones; with
    no dataset, system or slice chosen, every stored one, which is enough to rank panels
    and spares a join of millions of ratings)."""
    if sel.selects_every_response:
        return fetch(
            con.execute(
                """
                SELECT rater, count(*) AS n_ratings FROM ratings
                WHERE rater_kind = 'llm' AND rubric = $rubric GROUP BY rater ORDER BY rater""",
                sel.params("rubric"),
            ),
            JudgeCount,
        )
    cursor = con.execute(
        f"""
        SELECT rater, count(*) AS n_ratings FROM ({RATED})
        WHERE rater_kind = 'llm' GROUP BY rater ORDER BY rater""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, JudgeCount)


def judge_names(con: Connection) -> list[str]:
    """Every judge that some rating or pairwise verdict was given by, by name."""
    cursor = con.execute("""
        SELECT rater FROM ratings WHERE rater_kind = 'llm'
        UNION SELECT rater FROM preferences WHERE rater_kind = 'llm' ORDER BY rater""")
    return [str(row[0]) for row in cursor.fetchall()]


def newest_version(con: Connection, sel: Selection) -> str | None:
    """The rubric version of the newest rating by one of the panel's judges (every judge
    when `$panel_judges` is NULL) of the selection's rubric; None when there is none. The
    newest rating of a stream is its current one, so the table is read without the view."""
    found = fetch_one(
        con.execute(
            """
            SELECT rubric_version FROM ratings
            WHERE rubric = $rubric AND rater_kind = 'llm'
              AND ($panel_judges IS NULL OR list_contains($panel_judges, rater))
            ORDER BY created_utc DESC, rubric_version DESC LIMIT 1""",
            sel.params("rubric", "panel_judges"),
        ),
        Version,
    )
    return found.rubric_version if found else None
