"""The schema, as an ordered list of small named migrations.

Each migration runs once, in order, and is recorded in `_migrations`. Never edit a migration
that has shipped: add a new one. `tests/store/test_store.py` checks the resulting columns.

Big tables carry no PRIMARY KEY: DuckDB's index would slow bulk imports and cost memory.
Writers skip ids already stored instead (items, responses, ratings, preferences, judge calls,
auto scores); `judge_runs` holds one summary row per run and judge, written once. Ratings,
preferences and judge calls are append-only, but for the `superseded` flag; "current" is a
view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dashboard.store.changes import m026_change_counts
from dashboard.store.keys import m027_server_keys
from dashboard.store.migrations_late import (
    m008_campaigns,
    m009_few_shot,
    m010_not_null,
    m010_superseded_flag,
    m011_imports,
    m012_judge_epochs,
    m014_campaign_instructions,
    m015_tags,
    m017_adjudication,
    m018_campaign_rules,
    m019_judge_batches,
    m020_campaign_questions,
    m022_judge_batch_intents,
    m023_tag_withdrawn,
    m024_reference_rater_kind,
    m025_accounts,
)
from dashboard.store.migrations_workbench import (
    m013_workbench,
    m016_in_force,
    m021_card_model_version,
)
from dashboard.store.transactions import transaction

Migration = Callable[[Any], None]
# A migration is one step, or several run in transactions of their own (each safe to run again:
# the version is recorded with the last, so an interrupted migration runs again whole).
Steps = Migration | tuple[Migration, ...]

TASK_TYPE_CHECK = (
    "task_type IN ('open_qa', 'open_qa_context', 'mcqa_single', 'mcqa_multi', "
    "'hallucination', 'conversational_qa', 'pairwise')"
)


def m001_initial(con: Any) -> None:
    con.execute("""
        CREATE TABLE datasets (
            name        VARCHAR PRIMARY KEY,
            description VARCHAR,
            source      VARCHAR,
            created_utc TIMESTAMP NOT NULL
        )""")
    con.execute(f"""
        CREATE TABLE items (
            item_id            VARCHAR NOT NULL,
            dataset            VARCHAR NOT NULL,
            task_type          VARCHAR NOT NULL CHECK ({TASK_TYPE_CHECK}),
            question           VARCHAR NOT NULL,
            reference_answers  VARCHAR[],
            reference_context  VARCHAR,
            document           VARCHAR,
            candidate_answer   VARCHAR,
            options            VARCHAR[],
            gold_letters       VARCHAR[],
            hallucination_gold BOOLEAN,
            history            JSON,
            external_id        VARCHAR,
            metadata           JSON,
            created_utc        TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE responses (
            response_id VARCHAR NOT NULL,
            item_id     VARCHAR NOT NULL,
            dataset     VARCHAR NOT NULL,
            system      VARCHAR NOT NULL,
            answer      VARCHAR NOT NULL,
            contexts    VARCHAR[],
            metadata    JSON,
            created_utc TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE ratings (
            rating_id       VARCHAR NOT NULL,
            response_id     VARCHAR NOT NULL,
            rater_kind      VARCHAR NOT NULL CHECK (rater_kind IN ('llm', 'human')),
            rater           VARCHAR NOT NULL,
            rubric          VARCHAR NOT NULL,
            rubric_version  VARCHAR NOT NULL,
            value           DOUBLE,
            scale_low       DOUBLE NOT NULL,
            scale_high      DOUBLE NOT NULL,
            unscored_reason VARCHAR,
            explanation     VARCHAR,
            raw_output      VARCHAR,
            comment         VARCHAR,
            supersedes      VARCHAR,
            overrides       VARCHAR,
            call_id         VARCHAR,
            created_utc     TIMESTAMP NOT NULL,
            CHECK (value IS NOT NULL OR unscored_reason IS NOT NULL)
        )""")
    con.execute("""
        CREATE TABLE preferences (
            preference_id   VARCHAR NOT NULL,
            item_id         VARCHAR NOT NULL,
            response_a      VARCHAR NOT NULL,
            response_b      VARCHAR NOT NULL,
            rater_kind      VARCHAR NOT NULL CHECK (rater_kind IN ('llm', 'human')),
            rater           VARCHAR NOT NULL,
            rubric          VARCHAR NOT NULL,
            rubric_version  VARCHAR NOT NULL,
            verdict         VARCHAR CHECK (verdict IN ('A', 'B', 'tie')),
            shown_first     VARCHAR NOT NULL CHECK (shown_first IN ('A', 'B')),
            unscored_reason VARCHAR,
            explanation     VARCHAR,
            raw_output      VARCHAR,
            comment         VARCHAR,
            supersedes      VARCHAR,
            call_id         VARCHAR,
            created_utc     TIMESTAMP NOT NULL,
            CHECK (verdict IS NOT NULL OR unscored_reason IS NOT NULL)
        )""")
    con.execute("""
        CREATE TABLE judge_calls (
            call_id           VARCHAR NOT NULL,
            cache_key         VARCHAR NOT NULL,
            run_id            VARCHAR NOT NULL,
            judge             VARCHAR NOT NULL,
            model             VARCHAR NOT NULL,
            rubric            VARCHAR NOT NULL,
            rubric_version    VARCHAR NOT NULL,
            prompt_hash       VARCHAR NOT NULL,
            target_kind       VARCHAR NOT NULL CHECK (target_kind IN ('rating', 'preference')),
            status            VARCHAR NOT NULL CHECK (status IN ('ok', 'failed')),
            response_id       VARCHAR,
            item_id           VARCHAR,
            response_a        VARCHAR,
            response_b        VARCHAR,
            shown_first       VARCHAR,
            error             VARCHAR,
            raw_output        VARCHAR,
            attempts          INTEGER NOT NULL,
            latency_ms        DOUBLE,
            prompt_tokens     INTEGER,
            completion_tokens INTEGER,
            cost_usd          DOUBLE,
            created_utc       TIMESTAMP NOT NULL
        )""")


def m002_current_views(con: Any) -> None:
    # A row is current until a later row names it in `supersedes`. Writers fill `supersedes`
    # with the current row of the same rater, response and rubric, so each such stream has
    # one current row.
    con.execute("""
        CREATE VIEW current_ratings AS
        SELECT r.* FROM ratings r ANTI JOIN ratings s ON s.supersedes = r.rating_id""")
    con.execute("""
        CREATE VIEW current_preferences AS
        SELECT p.* FROM preferences p ANTI JOIN preferences s ON s.supersedes = p.preference_id""")


def m003_auto_scores(con: Any) -> None:
    # Reference-based metrics of a response (EM, F1, MCQA choice, hallucination verdict),
    # computed once by `scoring` and kept, so that every aggregation over them runs in SQL.
    # Response ids are content hashes, so a stored score never goes stale; `version` changes
    # when the scoring rules do, and rows of another version are recomputed.
    con.execute("""
        CREATE TABLE auto_scores (
            response_id VARCHAR NOT NULL,
            metric      VARCHAR NOT NULL,
            value       DOUBLE,
            version     VARCHAR NOT NULL
        )""")


def m004_judge_runs(con: Any) -> None:
    # One row per judge and run: the run's summary (calls, cache hits, failures and the last
    # error, tokens, cost, the pairwise flip rate) kept beside the judge_calls it made, so that
    # what a run did stays on record after its printed summary is gone.
    con.execute("""
        CREATE TABLE judge_runs (
            run_id             VARCHAR NOT NULL,
            judge              VARCHAR NOT NULL,
            model              VARCHAR NOT NULL,
            rubric             VARCHAR NOT NULL,
            rubric_version     VARCHAR NOT NULL,
            selection          JSON,
            calls_planned      INTEGER NOT NULL,
            calls_made         INTEGER NOT NULL,
            cache_hits         INTEGER NOT NULL,
            failures           INTEGER NOT NULL,
            parse_failures     INTEGER NOT NULL,
            attempts           INTEGER NOT NULL,
            prompt_tokens      BIGINT,
            completion_tokens  BIGINT,
            cost_usd           DOUBLE,
            cost_unknown_calls INTEGER NOT NULL,
            flip_rate          DOUBLE,
            n_pairs            INTEGER,
            last_error         VARCHAR,
            started_utc        TIMESTAMP NOT NULL,
            finished_utc       TIMESTAMP NOT NULL
        )""")


def m005_label_provenance(con: Any) -> None:
    # How each label's response was chosen (`dashboard.types.SELECTIONS`), its inclusion
    # probability in a non-uniform random sample, its labelling campaign, and whether it was
    # given blind. NULL on every row written before: their selection is unknown.
    for table in ("ratings", "preferences"):
        for column, sql_type in _PROVENANCE_COLUMNS:
            con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}")


_PROVENANCE_COLUMNS = (
    ("selection", "VARCHAR"),
    ("inclusion_probability", "DOUBLE"),
    ("campaign", "VARCHAR"),
    ("blind", "BOOLEAN"),
)


def m006_reference_rules(con: Any) -> None:
    # The rule a dataset's EM and F1 follow over several references ('max' or
    # 'leave-one-out'), chosen by a person; NULL goes back to the task's default. Append-only:
    # the row of a dataset with the highest `seq` is its rule, the others its history.
    con.execute("""
        CREATE TABLE reference_rules (
            seq         BIGINT NOT NULL,
            dataset     VARCHAR NOT NULL,
            rule        VARCHAR,
            created_utc TIMESTAMP NOT NULL
        )""")


def m007_judge_qa(con: Any) -> None:
    # The model version the provider reported for a call (LiteLLM's response `model`), so that
    # a judge's drift can be traced to a silent model update; NULL where none was reported.
    con.execute("ALTER TABLE judge_calls ADD COLUMN model_version VARCHAR")
    # Judge QA probes: the results of re-judging perturbed copies of real responses (padded
    # with a fixed sentence, or a pair shown in both orders). They live here, never in
    # `ratings` or `preferences`, so no system metric can read them.
    con.execute("""
        CREATE TABLE probes (
            probe_id        VARCHAR NOT NULL,
            kind            VARCHAR NOT NULL CHECK (kind IN ('padding', 'order')),
            judge           VARCHAR NOT NULL,
            rubric          VARCHAR NOT NULL,
            rubric_version  VARCHAR NOT NULL,
            item_id         VARCHAR NOT NULL,
            response_id     VARCHAR,
            response_a      VARCHAR,
            response_b      VARCHAR,
            shown_first     VARCHAR,
            value           DOUBLE,
            verdict         VARCHAR,
            unscored_reason VARCHAR,
            call_id         VARCHAR NOT NULL,
            created_utc     TIMESTAMP NOT NULL
        )""")
    # Anchor items: responses re-judged whenever a judge, its model version or a rubric
    # version changes, so that the judge's own shift can be told from the systems'.
    con.execute("""
        CREATE TABLE anchors (
            anchor_id   VARCHAR NOT NULL,
            response_id VARCHAR NOT NULL,
            chosen_by   VARCHAR NOT NULL CHECK (chosen_by IN ('picked', 'sample')),
            created_utc TIMESTAMP NOT NULL
        )""")


MIGRATIONS: list[tuple[str, Steps]] = [
    ("initial", m001_initial),
    ("current_views", m002_current_views),
    ("auto_scores", m003_auto_scores),
    ("judge_runs", m004_judge_runs),
    ("label_provenance", m005_label_provenance),
    ("reference_rules", m006_reference_rules),
    ("judge_qa", m007_judge_qa),
    ("campaigns", m008_campaigns),
    ("few_shot", m009_few_shot),
    ("superseded_flag", (m010_superseded_flag, m010_not_null)),
    ("imports", m011_imports),
    ("judge_epochs", m012_judge_epochs),
    ("workbench", m013_workbench),
    ("campaign_instructions", m014_campaign_instructions),
    ("tags", m015_tags),
    ("workbench_in_force", m016_in_force),
    ("adjudication", m017_adjudication),
    ("campaign_rules", m018_campaign_rules),
    ("judge_batches", m019_judge_batches),
    ("campaign_questions", m020_campaign_questions),
    ("card_model_version", m021_card_model_version),
    ("judge_batch_intents", m022_judge_batch_intents),
    ("tag_withdrawn", m023_tag_withdrawn),
    ("reference_rater_kind", m024_reference_rater_kind),
    ("accounts", m025_accounts),
    ("change_counts", m026_change_counts),
    ("server_keys", m027_server_keys),
]


@dataclass(frozen=True)
class SchemaState:
    """What a database file holds before it is migrated."""

    applied: frozenset[int]  # versions recorded in _migrations
    foreign_tables: tuple[str, ...]  # tables of a database that is not judgeboard's

    @property
    def version(self) -> int:
        """The newest version recorded (0: none)."""
        return max(self.applied, default=0)

    @property
    def unknown(self) -> frozenset[int]:
        """Versions this code does not know: the file comes from a newer judgeboard."""
        return self.applied - set(range(1, len(MIGRATIONS) + 1))

    @property
    def pending(self) -> bool:
        return len(self.applied & set(range(1, len(MIGRATIONS) + 1))) < len(MIGRATIONS)


def schema_state(con: Any) -> SchemaState:
    """Read the recorded versions without writing anything (a read-only file is checked too).
    A database with tables but no `_migrations` is someone else's."""
    tables = [
        row[0]
        for row in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = current_schema() "
            "AND NOT temporary ORDER BY table_name"
        ).fetchall()
    ]
    if "_migrations" not in tables:
        return SchemaState(frozenset(), tuple(tables))
    versions = con.execute("SELECT version FROM _migrations").fetchall()
    return SchemaState(frozenset(row[0] for row in versions), ())


def migrate(con: Any) -> list[str]:
    """Apply the migrations this database has not seen yet; return their names."""
    con.execute("""
        CREATE TABLE IF NOT EXISTS _migrations (
            version     INTEGER PRIMARY KEY,
            name        VARCHAR NOT NULL,
            applied_utc TIMESTAMP NOT NULL
        )""")
    done = {row[0] for row in con.execute("SELECT version FROM _migrations").fetchall()}
    applied = []
    for version, (name, migration) in enumerate(MIGRATIONS, start=1):
        if version in done:
            continue
        *first, last = migration if isinstance(migration, tuple) else (migration,)
        for step in first:
            with transaction(con):
                step(con)
        with transaction(con):
            last(con)
            con.execute(
                "INSERT INTO _migrations VALUES (?, ?, now() AT TIME ZONE 'UTC')", [version, name]
            )
        applied.append(name)
    return applied
