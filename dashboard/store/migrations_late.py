"""The later migrations (8 on), kept apart so that each module stays small; `migrations.py`
lists them all, in order. Never edit a migration that has shipped: add a new one."""

from __future__ import annotations

from typing import Any


def m008_campaigns(con: Any) -> None:
    # Labelling campaigns (`dashboard/campaigns`): a named set of responses to rate on one
    # rubric, each by `overlap` different people; the responses in their order with how each
    # was chosen; and the holds that keep a response for the person labelling it (append-only:
    # the latest hold of a person on a response is the one in force, until `expires_utc`).
    con.execute("""
        CREATE TABLE campaigns (
            name         VARCHAR PRIMARY KEY,
            rubric       VARCHAR NOT NULL,
            dataset      VARCHAR,
            rule         VARCHAR NOT NULL CHECK (rule IN ('random', 'worst', 'disagreement')),
            size         INTEGER NOT NULL,
            seed         INTEGER NOT NULL,
            overlap      INTEGER NOT NULL CHECK (overlap >= 1),
            hold_minutes DOUBLE NOT NULL,
            population   INTEGER NOT NULL,
            created_by   VARCHAR,
            created_utc  TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE campaign_items (
            campaign              VARCHAR NOT NULL,
            response_id           VARCHAR NOT NULL,
            position              INTEGER NOT NULL,
            selection             VARCHAR NOT NULL,
            inclusion_probability DOUBLE
        )""")
    con.execute("""
        CREATE TABLE campaign_holds (
            campaign    VARCHAR NOT NULL,
            response_id VARCHAR NOT NULL,
            person      VARCHAR NOT NULL,
            held_utc    TIMESTAMP NOT NULL,
            expires_utc TIMESTAMP NOT NULL
        )""")


def m009_few_shot(con: Any) -> None:
    # Few-shot rubric versions (`dashboard/judging/few_shot.py`): the people's labels a rubric
    # version put into its prompt as examples, so that its agreement with people is reported
    # on the other (held-out) labels only. The version string names the draw, so the rows of a
    # version are written once (by the first run of it) and never change.
    con.execute("""
        CREATE TABLE few_shot_examples (
            rubric         VARCHAR NOT NULL,
            rubric_version VARCHAR NOT NULL,
            position       INTEGER NOT NULL,
            response_id    VARCHAR NOT NULL,
            rating_id      VARCHAR NOT NULL,
            rater          VARCHAR NOT NULL,
            value          DOUBLE NOT NULL,
            seed           INTEGER NOT NULL,
            created_utc    TIMESTAMP NOT NULL
        )""")


_FLAGGED = (("ratings", "rating_id"), ("preferences", "preference_id"))


def m010_superseded_flag(con: Any) -> None:
    # Whether a later row names the row in `supersedes`, kept on the row by every writer
    # (`writes.mark_superseded`), so that a current view is a filter: the anti-join of 4M
    # ratings with themselves was half of every read of the current ratings. Each step is
    # safe to run again, since the two run in transactions of their own (`m010_not_null`).
    for table, id_column in _FLAGGED:
        con.execute(
            f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS superseded BOOLEAN DEFAULT false"
        )
        con.execute(f"""UPDATE {table} SET superseded = true WHERE {id_column} IN (
            SELECT supersedes FROM {table} WHERE supersedes IS NOT NULL)""")
        con.execute(f"""CREATE OR REPLACE VIEW current_{table} AS
            SELECT * EXCLUDE (superseded) FROM {table} WHERE NOT superseded""")


def m010_not_null(con: Any) -> None:
    # A transaction of its own: DuckDB 1.5 refuses a NOT NULL constraint on a column that the
    # same transaction has updated ("Cannot create index with outstanding updates").
    for table, _ in _FLAGGED:
        con.execute(f"ALTER TABLE {table} ALTER COLUMN superseded SET NOT NULL")


def m011_imports(con: Any) -> None:
    # What each import of a file did (`dashboard/ingest/imports_sql.py`): the file's content
    # hash, name, format and column mapping, the datasets it went into, and the ids of the
    # items, responses, ratings and preferences it holds. A file imported again with another
    # mapping (the same content giving other items) is then told from a new file, and
    # `--replace` removes what the earlier import brought. Append-only: a replacement is a new
    # row naming the imports it `replaces`.
    con.execute("""
        CREATE TABLE imports (
            import_id   VARCHAR NOT NULL,
            file_name   VARCHAR NOT NULL,
            file_sha256 VARCHAR NOT NULL,
            format      VARCHAR NOT NULL,
            mapping     VARCHAR NOT NULL,
            datasets    VARCHAR[] NOT NULL,
            replaces    VARCHAR[],
            created_utc TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE import_rows (
            import_id VARCHAR NOT NULL,
            kind      VARCHAR NOT NULL
                CHECK (kind IN ('items', 'responses', 'ratings', 'preferences')),
            row_id    VARCHAR NOT NULL
        )""")


def m012_judge_epochs(con: Any) -> None:
    # Repeated judging (`judge --epochs N`): which ask of N a judge call is, and each epoch's
    # rating of a response (`ratings` holds the reducer of the N), so that a judge's
    # self-consistency can be measured. Append-only; ids derive from the call.
    con.execute("ALTER TABLE judge_calls ADD COLUMN epoch INTEGER")
    con.execute("""
        CREATE TABLE epoch_ratings (
            epoch_rating_id VARCHAR NOT NULL,
            call_id         VARCHAR NOT NULL,
            judge           VARCHAR NOT NULL,
            rubric          VARCHAR NOT NULL,
            rubric_version  VARCHAR NOT NULL,
            response_id     VARCHAR NOT NULL,
            epoch           INTEGER NOT NULL,
            epochs          INTEGER NOT NULL,
            value           DOUBLE,
            unscored_reason VARCHAR,
            created_utc     TIMESTAMP NOT NULL
        )""")


def m014_campaign_instructions(con: Any) -> None:
    # A campaign's instructions (Markdown its admin writes; shown beside every answer of the
    # campaign) and what each rating point means in it (JSON: {"1": "wrong", ...}). Safe to
    # run again: a file whose recorded version was set back keeps its columns.
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS instructions VARCHAR")
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS point_notes VARCHAR")


def m015_tags(con: Any) -> None:
    # Tags, an error taxonomy per campaign: the campaign's tags (JSON [{"name", "description"}])
    # and people's tag labels, one row per tag of the campaign each time a person saves an
    # answer in it (ticked or not, so a share has its denominator). Append-only as ratings
    # are: a new save supersedes the person's earlier row of the same tag on the answer.
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS tags VARCHAR")
    con.execute("""
        CREATE TABLE IF NOT EXISTS tag_labels (
            tag_id      VARCHAR PRIMARY KEY,
            response_id VARCHAR NOT NULL,
            campaign    VARCHAR NOT NULL,
            tag         VARCHAR NOT NULL,
            rater_kind  VARCHAR NOT NULL,
            rater       VARCHAR NOT NULL,
            ticked      BOOLEAN NOT NULL,
            created_utc TIMESTAMP NOT NULL,
            supersedes  VARCHAR,
            selection   VARCHAR,
            blind       BOOLEAN,
            superseded  BOOLEAN NOT NULL DEFAULT false
        )""")


def m017_adjudication(con: Any) -> None:
    # Gold answers and adjudication, both append-only with provenance.
    # `reference_edits`: a person's corrected references of an item (the whole new list, and
    # the list it replaced); the item's row keeps what was imported. The current reference of
    # an item is its edit that no later edit supersedes, else the imported one.
    # `adjudications`: a reviewer's label of a campaign's answer its people disagreed on, with
    # the people's labels as they stood then (JSON); people's own ratings stay as they are.
    # `campaigns.review_spread`: an answer goes to review when its labels' range (highest
    # minus lowest, on the rubric's scale) is above it; 0: any disagreement.
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS review_spread DOUBLE DEFAULT 0")
    con.execute("""
        CREATE TABLE IF NOT EXISTS reference_edits (
            edit_id           VARCHAR PRIMARY KEY,
            item_id           VARCHAR NOT NULL,
            dataset           VARCHAR NOT NULL,
            reference_answers VARCHAR[] NOT NULL,
            previous          VARCHAR[],
            supersedes        VARCHAR,
            author            VARCHAR NOT NULL,
            reason            VARCHAR,
            response_id       VARCHAR,
            campaign          VARCHAR,
            created_utc       TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE IF NOT EXISTS adjudications (
            adjudication_id VARCHAR PRIMARY KEY,
            campaign        VARCHAR NOT NULL,
            response_id     VARCHAR NOT NULL,
            rubric          VARCHAR NOT NULL,
            value           DOUBLE NOT NULL,
            reviewer        VARCHAR NOT NULL,
            reason          VARCHAR,
            labels          JSON NOT NULL,
            supersedes      VARCHAR,
            created_utc     TIMESTAMP NOT NULL
        )""")


def m018_campaign_rules(con: Any) -> None:
    # Rules that keep a campaign filled, assignment, and where a label was written.
    # - `campaigns.filter`: a rule-filled campaign's saved filter (JSON, `campaigns/rules.py`);
    #   NULL for a campaign whose answers were chosen once.
    # - `campaign_removals`: answers a person skipped or an admin removed from a campaign; a
    #   rule never adds them again (append-only).
    # - `campaign_assignments`: who an answer of a campaign is assigned to (append-only: the
    #   latest row of an answer is in force; a NULL person unassigns it).
    # - `source` of ratings, preferences and tag labels: where the row was written ('page',
    #   'notebook', 'import', 'judge'); NULL on rows written before, which is not known.
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS filter VARCHAR")
    con.execute("""
        CREATE TABLE IF NOT EXISTS campaign_removals (
            campaign    VARCHAR NOT NULL,
            response_id VARCHAR NOT NULL,
            person      VARCHAR NOT NULL,
            kind        VARCHAR NOT NULL CHECK (kind IN ('skip', 'remove')),
            created_utc TIMESTAMP NOT NULL
        )""")
    con.execute("""
        CREATE TABLE IF NOT EXISTS campaign_assignments (
            campaign    VARCHAR NOT NULL,
            response_id VARCHAR NOT NULL,
            person      VARCHAR,
            assigned_by VARCHAR,
            created_utc TIMESTAMP NOT NULL
        )""")
    for table in ("ratings", "preferences", "tag_labels"):
        con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS source VARCHAR")


def m019_judge_batches(con: Any) -> None:
    # The batches a `judge --batch` run submitted to a provider's batch API, append-only: a
    # 'submitted' row as soon as the provider accepts the batch (its id and the cache keys of
    # its requests), a 'finished' row once its results are recorded. A batch submitted and
    # not finished is polled by the next run whose plan needs its keys, never submitted again.
    con.execute("""
        CREATE TABLE IF NOT EXISTS judge_batches (
            batch_id      VARCHAR NOT NULL,
            event         VARCHAR NOT NULL CHECK (event IN ('submitted', 'finished')),
            judge         VARCHAR NOT NULL,
            model         VARCHAR NOT NULL,
            run_id        VARCHAR NOT NULL,
            input_file_id VARCHAR,
            n_requests    INTEGER NOT NULL,
            cache_keys    VARCHAR[],
            status        VARCHAR,
            created_utc   TIMESTAMP NOT NULL
        )""")


def m020_campaign_questions(con: Any) -> None:
    # Several questions in one pass: the further rubrics a campaign asks about each answer
    # with its own (JSON ["eve-0-5", "pass-fail"]; a rubric on a 0 to 1 scale is asked as a
    # pass/fail check). NULL for a campaign of one rubric, as every campaign made before.
    con.execute("ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS questions VARCHAR")


def m022_judge_batch_intents(con: Any) -> None:
    # A batch a `judge --batch` run is about to create, recorded before the create call (an
    # 'intended' row: its cache keys; the intent id goes to the provider in the batch's
    # metadata), then 'created' (the provider's batch id, written with its `judge_batches`
    # 'submitted' row) or 'absent' (a later run asked the provider, which had no batch of that
    # intent). A run killed between the provider creating the batch and `judge_batches`
    # recording it leaves an intent neither created nor absent: the next run finds the batch at
    # the provider by that metadata and polls it instead of paying for it again.
    con.execute("""
        CREATE TABLE IF NOT EXISTS judge_batch_intents (
            intent_id   VARCHAR NOT NULL,
            event       VARCHAR NOT NULL CHECK (event IN ('intended', 'created', 'absent')),
            judge       VARCHAR NOT NULL,
            model       VARCHAR NOT NULL,
            run_id      VARCHAR NOT NULL,
            batch_id    VARCHAR,
            n_requests  INTEGER NOT NULL,
            cache_keys  VARCHAR[],
            created_utc TIMESTAMP NOT NULL
        )""")


def m023_tag_withdrawn(con: Any) -> None:
    # An undo of a person's first save of an answer in a campaign takes its tags back too: a
    # tag label row with `withdrawn` true supersedes the save's row and, like a withdrawn
    # rating, counts in no share (its `ticked` is false). NULL on rows written before: none
    # of them is withdrawn.
    con.execute("ALTER TABLE tag_labels ADD COLUMN IF NOT EXISTS withdrawn BOOLEAN DEFAULT false")


RATER_KINDS = ("llm", "human", "reference")


def m024_reference_rater_kind(con: Any) -> None:
    # A third rater kind, `reference`: a score an eval tool computed against the item's
    # reference (lm-eval's per-sample acc, exact_match, f1 ...), which is neither a judge nor
    # a person, so that it enters no judge panel and no judge-vs-people calibration. DuckDB
    # cannot alter a CHECK: the table is copied into one with the wider CHECK (the views over
    # it bind by name). On PostgreSQL the constraint is PostgreSQL's own, and DuckDB's view
    # of the table shows no CHECK: it is swapped there.
    ddl = str(
        con.execute(
            "SELECT sql FROM duckdb_tables() WHERE table_name = 'ratings' "
            "AND schema_name = current_schema() AND database_name = current_database()"
        ).fetchone()[0]
    )
    allowed = ", ".join(f"'{kind}'" for kind in RATER_KINDS)
    if f"CHECK((rater_kind IN ({allowed})))" in ddl:  # widened already: run again
        return
    if "CHECK((rater_kind IN ('llm', 'human')))" not in ddl:
        con.execute("ALTER TABLE ratings DROP CONSTRAINT IF EXISTS ratings_rater_kind_check")
        con.execute(
            "ALTER TABLE ratings ADD CONSTRAINT ratings_rater_kind_check "
            f"CHECK (rater_kind IN ({allowed}))"
        )
        return
    wider = ddl.replace(
        "CHECK((rater_kind IN ('llm', 'human')))", f"CHECK((rater_kind IN ({allowed})))"
    )
    con.execute(wider.replace("CREATE TABLE ratings(", "CREATE TABLE ratings_widened(", 1))
    con.execute("INSERT INTO ratings_widened SELECT * FROM ratings")
    con.execute("DROP TABLE ratings")
    con.execute("ALTER TABLE ratings_widened RENAME TO ratings")


# Bookkeeping of a deployment, not data: `judgeboard copy` leaves them out.
ACCOUNT_TABLES = ("accounts", "account_secret", "revoked_tokens", "sign_in_failures")


def m025_accounts(con: Any) -> None:
    # The sign-in accounts of a PostgreSQL store (`dashboard.store.accounts`): replicas on
    # several machines share them with the data. A DuckDB file keeps its accounts in the users
    # file beside it and leaves these tables empty.
    con.execute("""
        CREATE TABLE IF NOT EXISTS accounts (
            name    VARCHAR PRIMARY KEY,
            role    VARCHAR NOT NULL,
            salt    VARCHAR NOT NULL,
            hash    VARCHAR NOT NULL,
            n       BIGINT NOT NULL,
            r       BIGINT NOT NULL,
            p       BIGINT NOT NULL
        )""")
    con.execute("""
        CREATE TABLE IF NOT EXISTS account_secret (
            id      INTEGER PRIMARY KEY,
            secret  VARCHAR NOT NULL
        )""")
    con.execute("""
        CREATE TABLE IF NOT EXISTS revoked_tokens (
            digest      VARCHAR PRIMARY KEY,
            expires_s   BIGINT NOT NULL
        )""")
    con.execute("""
        CREATE TABLE IF NOT EXISTS sign_in_failures (
            kind        VARCHAR NOT NULL,
            key         VARCHAR NOT NULL,
            failures    BIGINT NOT NULL,
            last_s      DOUBLE NOT NULL,
            locked      BOOLEAN NOT NULL,
            PRIMARY KEY (kind, key)
        )""")
