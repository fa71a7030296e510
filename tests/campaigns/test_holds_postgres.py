"""A campaign's overlap k holds on a PostgreSQL store under concurrent people: several real
processes take (hold) and label the same answers at once, and no answer is ever held or
labelled by more than k people."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.store import Store
from tests.paths import REPO_ROOT
from tests.support.postgres import PostgresServer

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
OVERLAP = 2
SIZE = 6

# One person: take the next answer, label it, until the campaign has nothing left for them.
_PERSON = textwrap.dedent(
    """
    import sys, time
    from dashboard.campaigns import campaigns
    from dashboard.review import annotation
    from dashboard.store import Store
    url, person, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    store = Store(url, wait_s=60.0)
    store.list_datasets()  # attached before the start, so that everyone starts at once
    time.sleep(max(0.0, start - time.time()))
    saved = refused = 0
    while (taken := campaigns.assign(store, "race", person)) is not None:
        chosen = annotation.Provenance(taken.selection, taken.inclusion_probability, "race", True)
        try:
            annotation.rate(store, taken.response_id, annotator=person, rubric="likert-rag",
                            rubric_version="1", value=3.0, scale=(1, 5), provenance=chosen)
            saved += 1
        except annotation.LabelRefused:
            refused += 1
    print(saved, refused)
    """
)


def test_concurrent_people_never_hold_or_label_an_answer_beyond_k(
    pg_server: PostgresServer, pg_sample_template: str
) -> None:
    url = pg_server.create(pg_sample_template)
    store = Store(url, wait_s=60.0)
    campaigns.create_campaign(
        store, "race", RUBRIC, dataset="eo-rag", rule="random", size=SIZE, seed=5, overlap=OVERLAP
    )
    start = time.time() + 12.0
    people = [
        subprocess.Popen(
            [sys.executable, "-c", _PERSON, url, f"person-{k}", str(start)],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(6)
    ]
    saved = 0
    for process in people:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        saved += int(out.split()[-2])  # the last line: saved, refused
    with store.connection() as con:
        holders = con.execute(
            "SELECT response_id, count(DISTINCT person) FROM campaign_holds "
            "WHERE campaign = 'race' GROUP BY response_id"
        ).fetchall()
        labels = con.execute(
            "SELECT response_id, count(DISTINCT rater), count(*) FROM ratings "
            "WHERE campaign = 'race' AND NOT superseded GROUP BY response_id"
        ).fetchall()
    store.close()
    # Every person's hold ends with their label and nobody skips: whoever ever held an answer
    # counts towards its k.
    assert max(n for _, n in holders) <= OVERLAP, holders
    assert len(labels) == SIZE and all(n == OVERLAP == rows for _, n, rows in labels), labels
    assert saved == SIZE * OVERLAP
