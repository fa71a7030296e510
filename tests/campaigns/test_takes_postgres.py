"""A campaign's takes and saves' checks in PostgreSQL's own SQL (`campaigns/takes.py`) against
the DuckDB SQL they replace on a PostgreSQL store: the current labels (`PG_LABELS` and
`_LABELS`) agree on the same rows, and a sequence of takes (held, assigned, skipped, labelled,
edited, `only_mine`) serves what `_NEXT` would have, answer by answer, on the same data."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from dashboard.campaigns import assignment, campaigns, campaigns_sql
from dashboard.campaigns.campaigns_sql import PG_LABELS, Assignment, CampaignLabel
from dashboard.ids import utc_now
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.store import Store
from dashboard.store.claims import session
from dashboard.store.rows import fetch
from tests.builders import rating
from tests.support.postgres import PostgresServer

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")


@pytest.fixture
def pg_sample(pg_server: PostgresServer, pg_sample_template: str) -> Iterator[Store]:
    store = Store(pg_server.create(pg_sample_template), wait_s=60.0)
    yield store
    store.close()


def _order(store: Store, name: str) -> list[str]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id FROM campaign_items WHERE campaign = ? ORDER BY position", [name]
        ).fetchall()
    return [r[0] for r in rows]


def _label(store: Store, person: str, taken: Assignment, value: float, name: str) -> None:
    chosen = annotation.Provenance(taken.selection, taken.inclusion_probability, name, True)
    annotation.rate(
        store,
        taken.response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=value,
        scale=(1, 5),
        provenance=chosen,
    )


class _Resp:
    def __init__(self, response_id: str) -> None:
        self.response_id = response_id


def test_postgres_labels_agree_with_duckdb_labels(pg_sample: Store) -> None:
    campaigns.create_campaign(
        pg_sample, "tw", RUBRIC, dataset="eo-rag", rule="random", size=5, seed=2, overlap=3
    )
    order = _order(pg_sample, "tw")
    with pg_sample.connection() as con:
        outside = con.execute(
            "SELECT min(response_id) FROM responses WHERE dataset = 'eo-rag' AND response_id "
            "NOT IN (SELECT response_id FROM campaign_items WHERE campaign = 'tw')"
        ).fetchone()[0]
    a, b, c = (_Resp(r) for r in order[:3])
    rows = [
        rating(a, "ana", 4.0, kind="human", campaign="tw"),  # current
        rating(a, "ben", 2.0, kind="human", campaign="tw"),
        rating(a, "ben", 5.0, kind="human", campaign="tw", minutes=1),  # supersedes ben's 2
        rating(b, "cy", 3.0, kind="human", campaign="tw"),
        rating(b, "cy", None, kind="human", campaign="tw", minutes=1),  # withdrawn: gone
        rating(c, "dee", 1.0, kind="human", campaign="other"),  # another campaign
        rating(c, "eve", 2.0, kind="human", campaign="tw", rubric="other-rubric"),
        rating(c, "judge-1", 3.0, campaign="tw"),  # a judge's row is no label
        rating(_Resp(outside), "fay", 4.0, kind="human", campaign="tw"),  # not an item
    ]
    pg_sample.add_ratings(rows)
    campaign = campaigns.find_campaign(pg_sample, "tw")
    assert campaign is not None
    with pg_sample.connection() as con:
        in_duckdb = campaigns_sql.campaign_labels(con, campaign)
    with session(pg_sample.url, pg_sample.location) as native:
        cursor = native.execute(
            f"{PG_LABELS} SELECT response_id, rater, value FROM labels",
            {"campaign": "tw", "rubric": RUBRIC.name},
        )
        in_postgres = sorted(fetch(cursor, CampaignLabel), key=lambda r: (r.response_id, r.rater))
    assert in_duckdb == in_postgres
    assert {(r.response_id, r.rater, r.value) for r in in_postgres} == {
        (a.response_id, "ana", 4.0),
        (a.response_id, "ben", 5.0),
    }


def test_native_takes_serve_what_the_duckdb_query_would(pg_sample: Store) -> None:
    name = "seq"
    campaigns.create_campaign(
        pg_sample, name, RUBRIC, dataset="eo-rag", rule="random", size=8, seed=4, overlap=2
    )
    campaign = campaigns.find_campaign(pg_sample, name)
    assert campaign is not None
    order = _order(pg_sample, name)
    served: list[tuple[str, str | None]] = []

    def take(person: str, *, skipped: Sequence[str] = (), only_mine: bool = False) -> Assignment:
        with pg_sample.connection() as con:
            expected = campaigns_sql.next_assignment(
                con, campaign, person, now=utc_now(), skipped=list(skipped), only_mine=only_mine
            )
        taken = campaigns.assign(pg_sample, name, person, skipped=skipped, only_mine=only_mine)
        assert taken == expected, (person, skipped, only_mine)
        served.append((person, taken.response_id if taken else None))
        return taken  # type: ignore[return-value]

    assignment.assign_answers(pg_sample, name, ["zed"], count=2)  # zed's: two open answers
    ana = take("ana")
    assert take("ana") == Assignment(**{**ana.__dict__, "held_by_me": True})  # held
    ben = take("ben")
    assert ben.response_id == ana.response_id  # k = 2: ben joins ana on it
    assert take("cy").response_id != ana.response_id  # two hold it: full for cy
    take("cy", skipped=[order[1], order[2]])  # this session's skips passed over
    campaigns.release(pg_sample, name, ben.response_id, "ben")  # ben skips: stored
    assert take("ben").response_id != ben.response_id
    _label(pg_sample, "ana", ana, 4.0, name)
    _label(pg_sample, "ana", take("ana"), 3.0, name)
    take("zed", only_mine=True)  # zed's assignment first
    take("zed", only_mine=True)
    assert take("ben", only_mine=True) is None  # ben is assigned nothing
    for person in ("dee", "eve", "ana", "cy", "dee", "eve"):
        taken = take(person)
        if taken is not None:
            _label(pg_sample, person, taken, 2.0, name)
    while (taken := take("fay")) is not None:
        _label(pg_sample, "fay", taken, 5.0, name)
    assert len(served) > 15 and any(r is None for _, r in served)
