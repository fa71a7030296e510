"""The judge workbench's migrations (13, 16 and 20; `dashboard/workbench`), kept apart so that
each module stays small; `migrations.py` lists them in order. Never edit one once shipped."""

from __future__ import annotations

from typing import Any


def m013_workbench(con: Any) -> None:
    # A split of people's labels per rubric and dataset: the seed and test fraction of each
    # split made (the latest is in force), and each labelled response's side, written once
    # when the response is first seen labelled, so that the split is stable as labels grow.
    con.execute("""
        CREATE TABLE label_splits (
            rubric        VARCHAR NOT NULL,
            dataset       VARCHAR NOT NULL,
            seed          INTEGER NOT NULL,
            test_fraction DOUBLE NOT NULL CHECK (test_fraction > 0 AND test_fraction < 1),
            created_by    VARCHAR,
            created_utc   TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE split_assignments (
            rubric       VARCHAR NOT NULL,
            dataset      VARCHAR NOT NULL,
            seed         INTEGER NOT NULL,
            response_id  VARCHAR NOT NULL,
            side         VARCHAR NOT NULL CHECK (side IN ('dev', 'test')),
            stratum      DOUBLE NOT NULL,
            assigned_utc TIMESTAMP NOT NULL
        )""")
    # Rubric versions made in the workbench: the whole rubric as TOML (the file format), its
    # parent, the few-shot examples (people's rating ids, dev side only), who and when.
    con.execute("""
        CREATE TABLE rubric_versions (
            rubric         VARCHAR NOT NULL,
            rubric_version VARCHAR NOT NULL,
            parent_version VARCHAR,
            toml           VARCHAR NOT NULL,
            example_ids    VARCHAR[] NOT NULL,
            prompt_hash    VARCHAR NOT NULL,
            author         VARCHAR,
            note           VARCHAR,
            created_utc    TIMESTAMP NOT NULL
        )""")
    # Every scoring of a version on the test split: each one spends the held-out labels.
    con.execute("""
        CREATE TABLE test_looks (
            rubric         VARCHAR NOT NULL,
            dataset        VARCHAR NOT NULL,
            judge          VARCHAR NOT NULL,
            rubric_version VARCHAR NOT NULL,
            purpose        VARCHAR NOT NULL,
            looked_by      VARCHAR,
            created_utc    TIMESTAMP NOT NULL
        )""")
    # Adoptions: the version a panel's judge uses on a dataset from then on, who, when and
    # why, and the judge card (its test-split agreement, as JSON) bound to what it measured.
    con.execute("""
        CREATE TABLE adoptions (
            rubric         VARCHAR NOT NULL,
            dataset        VARCHAR NOT NULL,
            judge          VARCHAR NOT NULL,
            model          VARCHAR NOT NULL,
            rubric_version VARCHAR NOT NULL,
            prompt_hash    VARCHAR NOT NULL,
            n_labels       INTEGER NOT NULL,
            card           JSON NOT NULL,
            adopted_by     VARCHAR,
            reason         VARCHAR,
            created_utc    TIMESTAMP NOT NULL
        )""")


def m016_in_force(con: Any) -> None:
    # A judge's rating under a workbench version supersedes only that version's earlier
    # rating (`writes._stream`), so a stream can hold a current row per such version beside
    # its file version's. `shelved` (kept by `store/shelved.py`) marks the rows the current
    # view leaves out: a workbench version's unless adopted in force on the response's
    # dataset, and, where one is, the stream's other current rows. A draft's ratings then
    # leave every current read (panel, failures, calibration, exports) as it was, and the
    # view stays a filter. No rating is shelved yet: runs of saved versions made before this
    # migration superseded the file version's ratings, as they did then.
    con.execute("ALTER TABLE ratings ADD COLUMN IF NOT EXISTS shelved BOOLEAN DEFAULT false")
    con.execute("""CREATE OR REPLACE VIEW current_ratings AS
        SELECT * EXCLUDE (superseded, shelved) FROM ratings
        WHERE NOT superseded AND NOT shelved""")


def m021_card_model_version(con: Any) -> None:
    # A judge card is bound to the model version the provider reported for the judge's calls
    # (`judge_calls.model_version`) as well as to the model string: a silent model update
    # behind the same name makes the card stale. NULL: no version was reported.
    con.execute("ALTER TABLE adoptions ADD COLUMN model_version VARCHAR")
