"""A campaign's overlap k holds on a PostgreSQL store under concurrent people: several real
processes take (hold), skip, label and edit the same answers at once, and no answer is ever
held or labelled by more than k people at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from datetime import datetime
from typing import Any

import pytest

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


# One person who also skips some answers and edits some of their labels, at random, and
# thinks up to `think` seconds before each save.
_SKIPPER = textwrap.dedent(
    """
    import random, sys, time
    from dashboard.campaigns import campaigns
    from dashboard.review import annotation
    from dashboard.store import Store
    url, person, start, think = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    store = Store(url, wait_s=60.0)
    store.list_datasets()
    rng = random.Random(person)
    time.sleep(max(0.0, start - time.time()))
    saved = refused = skipped = 0
    mine = []
    def rate(response_id, chosen):
        annotation.rate(store, response_id, annotator=person, rubric="likert-rag",
                        rubric_version="1", value=float(rng.randint(1, 5)), scale=(1, 5),
                        provenance=chosen)
    while (taken := campaigns.assign(store, "swarm", person)) is not None:
        chosen = annotation.Provenance(taken.selection, taken.inclusion_probability, "swarm", True)
        if rng.random() < 0.25:
            campaigns.release(store, "swarm", taken.response_id, person)
            skipped += 1
            continue
        time.sleep(rng.uniform(0, think))
        try:
            rate(taken.response_id, chosen)
            saved += 1
            mine.append(taken.response_id)
        except annotation.LabelRefused:
            refused += 1
        if mine and rng.random() < 0.2:
            rate(rng.choice(mine), chosen)  # an edit of one's own label is always taken
    print(saved, refused, skipped)
    """
)


def _most_at_once(holds: list, labelled: set) -> int:
    """The most people an answer had at one instant. A hold counts from its time until it
    expires or until the person's next hold row of the answer (a skip, or the end of the
    hold that a save writes after its check); a label from that end of hold on."""
    spans: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
    ordered = sorted(holds, key=lambda h: (h[0], h[1], h[2]))
    for n, (answer, person, held, expires) in enumerate(ordered):
        after = ordered[n + 1] if n + 1 < len(ordered) else None
        end = expires
        if after is not None and after[:2] == (answer, person):
            end = min(end, after[2])
        if end > held:
            spans.setdefault((answer, person), []).append((held, end))
        elif (answer, person) in labelled:  # the save's end of hold: its label from here on
            spans.setdefault((answer, person), []).append((held, datetime.max))
    most = 0
    for (answer, _), mine in spans.items():
        for start, _end in mine:
            at_once = {
                p
                for (a, p), theirs in spans.items()
                if a == answer and any(s <= start < e for s, e in theirs)
            }
            most = max(most, len(at_once))
    return most


@pytest.mark.parametrize(("hold_minutes", "think_s"), [(30.0, 0.0), (0.005, 0.6)])
def test_takes_skips_edits_and_saves_from_many_processes_never_exceed_k(
    pg_server: PostgresServer, pg_sample_template: str, hold_minutes: float, think_s: float
) -> None:
    """With holds of 0.3 s against up to 0.6 s of thinking, some saves come after the hold
    ended: they are refused, and overlap stays a hard limit."""
    url = pg_server.create(pg_sample_template)
    store = Store(url, wait_s=60.0)
    campaigns.create_campaign(
        store,
        "swarm",
        RUBRIC,
        dataset="eo-rag",
        rule="random",
        size=10,
        seed=9,
        overlap=OVERLAP,
        hold_minutes=hold_minutes,
    )
    start = time.time() + 15.0
    people = [
        subprocess.Popen(
            [sys.executable, "-c", _SKIPPER, url, f"person-{k}", str(start), str(think_s)],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(8)
    ]
    saved = refused = 0
    for process in people:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        counts = [int(n) for n in out.split()[-3:]]
        saved, refused = saved + counts[0], refused + counts[1]
    with store.connection() as con:
        holds = con.execute(
            "SELECT response_id, person, held_utc, expires_utc FROM campaign_holds "
            "WHERE campaign = 'swarm'"
        ).fetchall()
        labelled = con.execute(
            "SELECT DISTINCT response_id, rater FROM ratings "
            "WHERE campaign = 'swarm' AND rater_kind = 'human'"
        ).fetchall()
        current = con.execute(
            "SELECT response_id, count(DISTINCT rater) FROM ratings WHERE campaign = 'swarm' "
            "AND NOT superseded AND value IS NOT NULL GROUP BY response_id"
        ).fetchall()
    store.close()
    assert saved == len(labelled) and max(n for _, n in current) <= OVERLAP, current
    assert (refused > 0) == (think_s > 0)  # short holds: some saves came too late
    # Nobody was ever given an answer that k others held or had labelled at that moment.
    assert _most_at_once(holds, set(labelled)) <= OVERLAP
