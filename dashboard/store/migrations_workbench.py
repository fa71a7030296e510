"""The judge workbench's migration (13; `dashboard/workbench`), kept apart so that each
module stays small; `migrations.py` lists it in order. Never edit it once shipped."""

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
