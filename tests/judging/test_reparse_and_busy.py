"""Unscored output is cached and re-parsable without calls; a busy database delays nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dashboard.cli import main
from dashboard.ids import content_id
from dashboard.judging import BackgroundLoop, load_rubric, plan_run, reparse, run_plan
from dashboard.store import Store, WriteConflict, writes
from dashboard.types import JudgeCall, Preference, Rating
from tests.judging.conftest import judge, panel, seed
from tests.store.test_store import T0, _rating
from tests.support.judge_server import JudgeServer, ModelScript, always
from tests.support.locks import database_held

UNREADABLE = "I would give this answer four out of five."


def test_unparsed_output_is_kept_unscored_and_never_called_again(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=3)
    server.script("vague", ModelScript(reply=always(UNREADABLE)))
    the_panel = panel(judge("vague", server))
    plan = plan_run(store, the_panel, load_rubric("likert-rag"))
    summary = loop.run(run_plan(store, plan))
    assert summary.judge("vague").parse_failures == 6
    with store.connection() as con:
        rows = con.execute(
            "SELECT value, unscored_reason, raw_output FROM current_ratings WHERE rater = 'vague'"
        ).fetchall()
    assert rows and all(r == (None, "no rating marker found", UNREADABLE) for r in rows)
    plan = plan_run(store, the_panel, load_rubric("likert-rag"))
    summary = loop.run(run_plan(store, plan))
    assert plan.calls_needed == 0 and server.stats("vague").requests == 6
    assert summary.judge("vague").parse_failures == 6  # counted again, from the cache
    assert reparse(store, judge="vague").ratings_rescued == 0


def _old_parser_rows(store: Store) -> tuple[str, str]:
    """An unscored rating and preference as an older parser left them, over outputs that the
    current parser reads: 'Rating: 4', and '[[B]]' with B's answer shown first."""
    data = seed(store, n_items=1, systems=("alpha", "beta"))
    alpha, beta = data.responses
    common = {
        "run_id": "old",
        "judge": "legacy",
        "model": "openai/legacy",
        "rubric_version": "1",
        "prompt_hash": "p",
        "status": "ok",
    }
    store.add_judge_calls(
        [
            JudgeCall(
                call_id="c1",
                cache_key="k1",
                rubric="likert-rag",
                target_kind="rating",
                response_id=alpha.response_id,
                raw_output="Explanation: fine.\nRating: 4",
                **common,
            ),
            JudgeCall(
                call_id="c2",
                cache_key="k2",
                rubric="pairwise",
                target_kind="preference",
                item_id=alpha.item_id,
                raw_output="Explanation: B is better.\n[[B]]",
                **common,
            ),
        ]
    )
    rating = Rating(
        content_id("c1"),
        alpha.response_id,
        "llm",
        "legacy",
        "likert-rag",
        "1",
        None,
        1,
        5,
        unscored_reason="old parser",
        raw_output="Rating: 4",
        call_id="c1",
    )
    preference = Preference(
        content_id("c2"),
        alpha.item_id,
        alpha.response_id,
        beta.response_id,
        "llm",
        "legacy",
        "pairwise",
        "1",
        None,
        "B",
        unscored_reason="old parser",
        call_id="c2",
    )
    store.add_ratings([rating])
    store.add_preferences([preference])
    return rating.rating_id, preference.preference_id


def test_reparse_supersedes_unscored_rows_from_the_stored_output(
    store: Store, capsys: object
) -> None:
    rating_id, preference_id = _old_parser_rows(store)
    assert main(["--db", store.url, "reparse", "--judge", "legacy"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "ratings: 1 unscored, 1 now parsed" in out
    assert "preferences: 1 unscored, 1 now parsed" in out
    with store.connection() as con:
        value, supersedes, call_id = con.execute(
            "SELECT value, supersedes, call_id FROM current_ratings WHERE rater = 'legacy'"
        ).fetchone()
        verdict, shown, replaced = con.execute(
            "SELECT verdict, shown_first, supersedes FROM current_preferences "
            "WHERE rater = 'legacy'"
        ).fetchone()
    assert (value, supersedes, call_id) == (4.0, rating_id, "c1")
    # [[B]] with B shown first means the canonical response_a won.
    assert (verdict, shown, replaced) == ("A", "B", preference_id)
    assert reparse(store).ratings_checked == 0  # nothing unscored is left


# file_store: another process holds the DuckDB file (PostgreSQL has no file lock).
@pytest.mark.file_store
def test_a_run_completes_while_another_process_holds_the_database(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=4)
    server.script("patient", ModelScript(latency_ms=5))
    plan = plan_run(store, panel(judge("patient", server)), load_rubric("likert-rag"))
    with database_held(store.path):
        summary = loop.run(run_plan(store, plan, flush_every_s=0.1, final_wait_s=0.3))
        assert summary.pending_writes and summary.judge("patient").calls_made == 8
    with store.connection() as con:  # the next opener applies what waited in the spool
        rows = dict(
            con.execute(
                "SELECT response_id, value FROM current_ratings WHERE rater = 'patient'"
            ).fetchall()
        )
    assert rows == data.expected


def test_a_run_completes_while_its_merge_meets_another_write_of_the_same_rows(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    # A person's save waits in the journal: it supersedes her label, which an import (another
    # transaction of this process, not yet committed) supersedes too. Every merge of the
    # run's results meets that conflict (WriteConflict, as a held file gives StoreBusy): the
    # run goes on and keeps its results in the journal; once the import commits, the next
    # opener applies all of them, and the save after the import.
    data = seed(store, n_items=4)
    answer = data.responses[0].response_id
    first = _person(1, minutes=0, response_id=answer)
    store.add_ratings([first])
    server.script("patient", ModelScript(latency_ms=5))
    plan = plan_run(store, panel(judge("patient", server)), load_rubric("likert-rag"))
    with store.connection() as importer:
        importer.execute("BEGIN TRANSACTION")
        later = _person(2, minutes=1, response_id=answer)  # each writer chains it
        writes.insert_rows(importer, "ratings", [writes.record_row(later)])
        later_save = _person(3, minutes=2, response_id=answer)
        saved = store.add_ratings([later_save])
        assert saved.added == 0 and saved.pending is not None
        summary = loop.run(run_plan(store, plan, flush_every_s=0.1, final_wait_s=0.3))
        assert summary.pending_writes and summary.judge("patient").calls_made == 8
        assert saved.pending.exists()
        with pytest.raises(WriteConflict):  # still: nothing was merged meanwhile
            store.apply_pending()
        importer.execute("COMMIT")
    with store.connection() as con:  # the next opener applies what waited in the spool
        rows = dict(
            con.execute(
                "SELECT response_id, value FROM current_ratings WHERE rater = 'patient'"
            ).fetchall()
        )
        mine = con.execute(
            "SELECT value FROM current_ratings WHERE rater = 'ana' AND response_id = $r",
            {"r": answer},
        ).fetchall()
    assert rows == data.expected
    assert mine == [(3.0,)]


def _person(value: float, *, minutes: int, response_id: str) -> Rating:
    """`test_store`'s person's label of the answer, `minutes` after T0; the writer names the
    label it supersedes."""
    return _rating(value, at=T0 + timedelta(minutes=minutes), response_id=response_id)
