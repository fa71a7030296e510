"""What the panel choice reads: each judge's current ratings of the rubric on the selection,
and the rubric versions a panel's judges rated under that are in use, per dataset."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import RATED, RATED_PARAMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class JudgeCount:
    rater: str
    n_ratings: int


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


@dataclass(frozen=True)
class DatasetVersion:
    """A rubric version the panel's judges rated on a dataset, and when they last did."""

    dataset: str
    rubric_version: str
    newest_utc: datetime


def _versions(con: Connection, sel: Selection) -> list[DatasetVersion]:
    """Every rubric version the panel's judges (every judge when `$panel_judges` is NULL)
    rated the selection's rubric under, per dataset of the selection (superseded ratings too:
    a newer version's rating of a response supersedes the older one's)."""
    cursor = con.execute(
        """
        SELECT r.dataset, g.rubric_version, max(g.created_utc) AS newest_utc
        FROM ratings g JOIN responses r USING (response_id)
        WHERE g.rubric = $rubric AND g.rater_kind = 'llm'
          AND ($panel_judges IS NULL OR list_contains($panel_judges, g.rater))
          AND ($dataset IS NULL OR r.dataset = $dataset)
        GROUP BY ALL ORDER BY ALL""",
        sel.params("rubric", "panel_judges", "dataset"),
    )
    return fetch(cursor, DatasetVersion)


@dataclass(frozen=True)
class Overlap:
    """Two versions of a dataset that rated one response: the older gave way."""

    dataset: str
    older: str
    newer: str


def _overlaps(con: Connection, sel: Selection, datasets: list[str]) -> list[Overlap]:
    """The pairs of versions of these datasets that rated a common response."""
    cursor = con.execute(
        """
        WITH rated AS (
            SELECT DISTINCT r.dataset, g.rubric_version, g.response_id
            FROM ratings g JOIN responses r USING (response_id)
            WHERE g.rubric = $rubric AND g.rater_kind = 'llm'
              AND ($panel_judges IS NULL OR list_contains($panel_judges, g.rater))
              AND list_contains($datasets, r.dataset))
        SELECT DISTINCT a.dataset, a.rubric_version AS older, b.rubric_version AS newer
        FROM rated a JOIN rated b ON a.dataset = b.dataset AND a.response_id = b.response_id
            AND a.rubric_version < b.rubric_version
        ORDER BY ALL""",
        {**sel.params("rubric", "panel_judges"), "datasets": datasets},
    )
    return fetch(cursor, Overlap)


def versions_in_use(con: Connection, sel: Selection) -> dict[str, list[str]]:
    """Per dataset, the rubric versions the panel's ratings count at: every version its
    judges rated there but those a newer version replaced, one that rated a response the
    older one rated (a rubric changed and run again). Versions used side by side, each on
    responses of its own (FastChat's four single-answer prompts), all count. Newer: rated
    last, then the greater name."""
    saved = _workbench_versions(con, sel)
    found = _in_force(con, sel, _versions(con, sel), saved)
    newest = {(v.dataset, v.rubric_version): (v.newest_utc, v.rubric_version) for v in found}
    by_dataset: dict[str, list[str]] = {}
    for v in found:
        by_dataset.setdefault(v.dataset, []).append(v.rubric_version)
    several = [d for d, versions in by_dataset.items() if len(versions) > 1]
    retired = set()
    for o in _overlaps(con, sel, several) if several else []:
        if o.older in saved or o.newer in saved:
            continue  # an adopted version beside the file's: its rows shelve theirs per judge
        one, two = (o.dataset, o.older), (o.dataset, o.newer)
        retired.add(one if newest[one] < newest[two] else two)
    return {
        dataset: [v for v in versions if (dataset, v) not in retired]
        for dataset, versions in by_dataset.items()
    }


def _workbench_versions(con: Connection, sel: Selection) -> set[str]:
    """The rubric's versions saved in the workbench (drafts until adopted)."""
    cursor = con.execute(
        "SELECT rubric_version FROM rubric_versions WHERE rubric = $rubric", sel.params("rubric")
    )
    return {row[0] for row in cursor.fetchall()}


def _in_force(
    con: Connection, sel: Selection, found: list[DatasetVersion], drafts: set[str]
) -> list[DatasetVersion]:
    """`found` without the workbench's unadopted versions. On a dataset with adoptions in
    force (each judge's latest), the adopted versions count beside the others: an adoption
    is one judge's, and the ratings it replaces are that judge's alone (the current view
    shelves them, per judge and answer, `store/shelved.py`), so every other judge, and this
    one's answers the version has not rated, keep counting at their own versions. Where only
    drafts were rated, they count."""
    adopted: dict[str, set[str]] = {}
    for dataset, version in con.execute(
        """
        SELECT dataset, arg_max(rubric_version, created_utc) FROM adoptions
        WHERE rubric = $rubric GROUP BY dataset, judge""",
        sel.params("rubric"),
    ).fetchall():
        adopted.setdefault(dataset, set()).add(version)
    kept = []
    for dataset in sorted({v.dataset for v in found}):
        here = [v for v in found if v.dataset == dataset]
        in_force = adopted.get(dataset, set())
        chosen = [v for v in here if v.rubric_version in in_force or v.rubric_version not in drafts]
        kept += chosen or here
    return kept
