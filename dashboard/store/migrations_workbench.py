"""The judge workbench's migrations (13 and 14; `dashboard/workbench`), kept apart so that
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


def m014_in_force(con: Any) -> None:
    # A judge's rating under a workbench version supersedes only that version's earlier
    # rating (`writes._stream`), so a stream can hold a current row per such version beside
    # its file version's. The current view shows one: a workbench version's rows only where it
    # is the adopted version in force on the response's dataset (the latest adoption of the
    # rubric there), and then in place of the stream's other current rows; a draft's ratings
    # leave every current read (panel, failures, calibration, exports) as it was. A filter on
    # the flag as before, plus two small anti-joins when the workbench has versions.
    con.execute("""
        CREATE OR REPLACE VIEW current_ratings AS
        WITH in_force AS (
            SELECT rubric, dataset, arg_max(rubric_version, created_utc) AS rubric_version
            FROM adoptions GROUP BY ALL),
        workbench AS (
            SELECT g.rating_id, g.response_id, g.rater, g.rubric,
                   f.rubric_version IS NOT NULL AS adopted
            FROM ratings g
            SEMI JOIN rubric_versions v
                ON v.rubric = g.rubric AND v.rubric_version = g.rubric_version
            JOIN responses r USING (response_id)
            LEFT JOIN in_force f ON f.rubric = g.rubric AND f.dataset = r.dataset
                AND f.rubric_version = g.rubric_version
            WHERE NOT g.superseded AND g.rater_kind = 'llm'),
        hidden AS (
            SELECT rating_id FROM workbench WHERE NOT adopted
            UNION ALL
            SELECT g.rating_id FROM ratings g JOIN workbench w
                ON w.adopted AND g.response_id = w.response_id AND g.rater = w.rater
                AND g.rubric = w.rubric AND g.rating_id <> w.rating_id
            WHERE NOT g.superseded AND g.rater_kind = 'llm')
        SELECT * EXCLUDE (superseded) FROM ratings
        WHERE NOT superseded AND rating_id NOT IN (SELECT rating_id FROM hidden)""")
