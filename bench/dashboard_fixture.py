"""The dashboard benchmark's database: 1,000,000 responses and 4,000,000 judge ratings.

This is a fixture generator, not application code: to build a large database in about a
minute it writes rows with SQL straight through `store.connection()` (the importer's own
speed is measured by `bench/bench_import.py`). Every row is valid for the schema and the
metric code: the same columns, the same rubric scale, `supersedes` and `overrides` chains
like the ones Annotate writes. Text is cut from one long passage of ordinary words at
pseudo-random offsets, at realistic lengths (questions 60–180 characters, answers 300–900,
reference answers 150–400, reference contexts 600–1,200, two retrieved passages of
300–500), so that EM/F1 have real text to score.

Layout (with the defaults):
- datasets bench-rag (80 % of items, open_qa_context), bench-mcqa (12 %, mcqa_single),
  bench-hallucination (8 %);
- every item answered by 4 systems; each response rated by 4 judges on `likert-rag` (1–5),
  about 1 % unscored;
- about 10,000 human labels on bench-rag by 5 people, a fifth of those responses rated by a
  second person, 1,000 overrides of judge j1 and 500 corrections (rows with `supersedes`);
- 20,000 pairs judged by j1 in both orders, and human verdicts on 3,000 of them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from dashboard.store import Store, transaction
from dashboard.store.writes import mark_superseded

SYSTEMS = ("sys-large", "sys-medium", "sys-small", "sys-keyword")
SYSTEM_QUALITY = {"sys-large": 4, "sys-medium": 3, "sys-small": 2, "sys-keyword": 1}
JUDGES = ("j1", "j2", "j3", "j4")
JUDGE_BIAS = {"j1": 0, "j2": 1, "j3": -1, "j4": 0}
PEOPLE = ("ana", "ben", "chloe", "dev", "eli")
RUBRIC = "likert-rag"
WORDS = (
    "satellite orbit sensor radar optical band resolution revisit swath imagery pixel "
    "cloud cover surface temperature vegetation index soil moisture ocean colour sea ice "
    "altitude ground track calibration validation product level processing archive mission "
    "constellation launch payload instrument spectrum infrared microwave thermal channel "
    "the a of and in to is for with on by from at as that this which are was be has have "
    "data model system answer question reference context retrieval document passage year "
    "measurement accuracy error uncertainty global regional local coverage time series map"
).split()
BASE_CHARS = 40_000
SPAN = BASE_CHARS - 2_000  # every cut starts early enough to have its full length


def base_text(*, seed: int = 7) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    while sum(map(len, words)) + len(words) < BASE_CHARS:
        sentence = [rng.choice(WORDS) for _ in range(rng.randint(8, 20))]
        sentence[0] = sentence[0].capitalize()
        words.extend(sentence[:-1] + [sentence[-1] + "."])
    return " ".join(words)


def _cut(seed: str, low: int, high: int) -> str:
    """SQL for a slice of $base of low..high characters, chosen by hash(key, seed)."""
    return (
        f"substr($base, 1 + (hash(k, '{seed}') % {SPAN})::BIGINT, "
        f"{low} + (hash(k, '{seed}len') % {high - low})::BIGINT)"
    )


def _items(con: object, n_items: int) -> None:
    rag, mcqa = int(n_items * 0.80), int(n_items * 0.92)
    con.execute(
        f"""
        INSERT INTO items
        WITH t AS (SELECT i, 'it' || lpad(i::VARCHAR, 7, '0') AS k,
                          CASE WHEN i < {rag} THEN 0 WHEN i < {mcqa} THEN 1 ELSE 2 END AS kind
                   FROM range({n_items}) r(i))
        SELECT k, ['bench-rag', 'bench-mcqa', 'bench-hallucination'][kind + 1],
               ['open_qa_context', 'mcqa_single', 'hallucination'][kind + 1],
               {_cut("q", 60, 180)} || '?',
               CASE WHEN kind = 0 THEN [{_cut("ref", 150, 400)}] END,
               CASE WHEN kind = 0 THEN {_cut("ctx", 600, 1200)} END,
               CASE WHEN kind = 2 THEN {_cut("doc", 600, 1200)} END,
               CASE WHEN kind = 2 THEN {_cut("cand", 150, 400)} END,
               CASE WHEN kind = 1 THEN [{_cut("o1", 20, 80)}, {_cut("o2", 20, 80)},
                                        {_cut("o3", 20, 80)}, {_cut("o4", 20, 80)}] END,
               CASE WHEN kind = 1 THEN [chr(65 + (hash(k, 'gold') % 4)::INTEGER)] END,
               CASE WHEN kind = 2 THEN hash(k, 'halluc') % 3 = 0 END,
               NULL, i::VARCHAR, NULL, TIMESTAMP '2026-01-01'
        FROM t""",
        {"base": base_text()},
    )


def _responses(con: object) -> None:
    quality = " ".join(f"WHEN '{s}' THEN {q}" for s, q in SYSTEM_QUALITY.items())
    con.execute(
        f"""
        INSERT INTO responses
        WITH t AS (SELECT i.*, s.system, i.item_id || '/' || s.system AS k,
                          CASE s.system {quality} END AS quality
                   FROM items i CROSS JOIN (SELECT unnest($systems) AS system) s)
        SELECT k, item_id, dataset, system,
               CASE task_type
                 WHEN 'open_qa_context' THEN
                   CASE WHEN hash(k, 'good') % 5 < quality
                        THEN reference_answers[1] || ' ' || {_cut("ans", 150, 500)}
                        ELSE {_cut("ans", 300, 900)} END
                 WHEN 'mcqa_single' THEN
                   'The answer is ' || CASE WHEN hash(k, 'right') % 5 < quality
                        THEN gold_letters[1] ELSE chr(65 + (hash(k, 'pick') % 4)::INTEGER) END
                   || '. ' || {_cut("why", 100, 300)}
                 ELSE CASE WHEN hash(k, 'verdict') % 2 = 0 THEN 'Yes, hallucinated: '
                           ELSE 'No, supported: ' END || {_cut("why", 100, 300)} END,
               CASE WHEN task_type = 'open_qa_context'
                    THEN [{_cut("c1", 300, 500)}, {_cut("c2", 300, 500)}] END,
               NULL, TIMESTAMP '2026-01-02'
        FROM t""",
        {"base": base_text(), "systems": list(SYSTEMS)},
    )


def _judge_ratings(con: object) -> None:
    quality = " ".join(f"WHEN '{s}' THEN {q}" for s, q in SYSTEM_QUALITY.items())
    bias = " ".join(f"WHEN '{j}' THEN {b}" for j, b in JUDGE_BIAS.items())
    con.execute(
        f"""
        INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, rubric_version,
                             value, scale_low, scale_high, unscored_reason, explanation,
                             raw_output, created_utc)
        WITH t AS (SELECT r.response_id || '#' || j.judge AS k, r.response_id, j.judge,
                          CASE r.system {quality} END AS quality
                   FROM responses r CROSS JOIN (SELECT unnest($judges) AS judge) j),
        v AS (SELECT *, CASE WHEN hash(k, 'unscored') % 100 = 0 THEN NULL ELSE
                     least(5, greatest(1, 1 + quality + CASE judge {bias} END
                           + (hash(k, 'n1') % 3)::INTEGER - 1
                           - (hash(k, 'n2') % 2)::INTEGER))::DOUBLE END AS value,
                     {_cut("expl", 80, 240)} AS explanation FROM t)
        SELECT k, response_id, 'llm', judge, '{RUBRIC}', '1', value, 1, 5,
               CASE WHEN value IS NULL THEN 'no rating marker found' END, explanation,
               explanation || CASE WHEN value IS NULL THEN ' I cannot rate this.'
                                   ELSE ' Rating: [[' || value::INTEGER || ']]' END,
               TIMESTAMP '2026-01-03'
        FROM v""",
        {"base": base_text(), "judges": list(JUDGES)},
    )


def _human_ratings(con: object, *, every: int) -> None:
    """People on about one bench-rag response in `every`; a fifth of those twice; 1,000
    overrides of j1; 500 corrections that supersede an earlier human row."""
    con.execute(f"""
        CREATE TEMP TABLE labelled AS
        SELECT r.response_id, g.value AS j1_value, g.rating_id AS j1_rating,
               row_number() OVER (ORDER BY r.response_id) AS n
        FROM responses r JOIN ratings g ON g.response_id = r.response_id AND g.rater = 'j1'
        WHERE r.dataset = 'bench-rag' AND hash(r.response_id, 'human') % {every} = 0""")
    con.execute(
        """
        INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, rubric_version,
                             value, scale_low, scale_high, comment, overrides, created_utc)
        WITH first AS (
            SELECT response_id, n, j1_rating, $people[1 + n % 5] AS rater,
                   least(5, greatest(1, coalesce(j1_value, 3)
                         + (hash(response_id, 'h1') % 3)::INTEGER - 1))::DOUBLE AS value
            FROM labelled),
        second AS (
            SELECT response_id, n, NULL AS j1_rating, $people[1 + (n + 1) % 5] AS rater,
                   least(5, greatest(1, value + (hash(response_id, 'h2') % 3)::INTEGER - 1))
            FROM first WHERE n % 5 = 0)
        SELECT 'h#' || response_id || '#' || rater, response_id, 'human', rater, $rubric, '1',
               value, 1, 5, CASE WHEN n <= 1000 AND j1_rating IS NOT NULL
                                 THEN 'the judge missed the key fact' END,
               CASE WHEN n <= 1000 THEN j1_rating END, TIMESTAMP '2026-01-04'
        FROM (SELECT * FROM first UNION ALL SELECT * FROM second)""",
        {"people": list(PEOPLE), "rubric": RUBRIC},
    )
    con.execute("""
        INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, rubric_version,
                             value, scale_low, scale_high, comment, supersedes, created_utc)
        SELECT rating_id || '#fix', response_id, 'human', rater, rubric, '1',
               6 - value, 1, 5, 'corrected', rating_id, TIMESTAMP '2026-01-05'
        FROM ratings WHERE rater_kind = 'human' AND rating_id LIKE 'h#%'
        ORDER BY rating_id LIMIT 500""")
    mark_superseded(con, "ratings")  # what the store's own writers do


def _preferences(con: object, *, n_pairs: int) -> None:
    con.execute(f"""
        CREATE TEMP TABLE pairs AS
        SELECT a.item_id, a.response_id AS response_a, b.response_id AS response_b,
               row_number() OVER (ORDER BY a.item_id) AS n
        FROM responses a JOIN responses b ON a.item_id = b.item_id
        WHERE a.system = 'sys-large' AND b.system = 'sys-medium' AND a.dataset = 'bench-rag'
        ORDER BY a.item_id LIMIT {n_pairs}""")
    verdict = "['A', 'A', 'B', 'tie'][1 + (hash(item_id, {}) % 4)::INTEGER]"
    con.execute(
        f"""
        INSERT INTO preferences (preference_id, item_id, response_a, response_b, rater_kind,
                                 rater, rubric, rubric_version, verdict, shown_first,
                                 raw_output, created_utc)
        SELECT 'p#' || item_id || '#j1#' || side, item_id, response_a, response_b, 'llm',
               'j1', 'pairwise', '1',
               CASE WHEN side = 'B' AND hash(item_id, 'flip') % 5 = 0 THEN 'B'
                    ELSE {verdict.format("'j'")} END, side, '[[A]]', TIMESTAMP '2026-01-06'
        FROM pairs CROSS JOIN (SELECT unnest(['A', 'B']) AS side)
        UNION ALL
        SELECT 'p#' || item_id || '#' || person, item_id, response_a, response_b, 'human',
               person, 'pairwise', '1',
               CASE WHEN hash(item_id, person) % 4 = 0 THEN 'tie'
                    ELSE {verdict.format("'j'")} END, 'A', NULL, TIMESTAMP '2026-01-07'
        FROM pairs CROSS JOIN (SELECT unnest($people) AS person)
        WHERE n <= 3000 AND (person = $people[1 + n % 5] OR
                             (n % 3 = 0 AND person = $people[1 + (n + 1) % 5]))""",
        {"people": list(PEOPLE)},
    )


def build(
    store: Store,
    *,
    n_items: int = 250_000,
    human_every: int = 80,
    n_pairs: int = 20_000,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Fill an empty store; return the seconds each step took."""
    steps: dict[str, float] = {}
    with store.connection() as con:
        for name in ("bench-rag", "bench-mcqa", "bench-hallucination"):
            con.execute(
                "INSERT INTO datasets VALUES (?, 'dashboard benchmark', 'bench', "
                "TIMESTAMP '2026-01-01')",
                [name],
            )
        for step, work in (
            ("items", lambda: _items(con, n_items)),
            ("responses", lambda: _responses(con)),
            ("judge ratings", lambda: _judge_ratings(con)),
            ("human ratings", lambda: _human_ratings(con, every=human_every)),
            ("preferences", lambda: _preferences(con, n_pairs=n_pairs)),
        ):
            started = time.perf_counter()
            with transaction(con):
                work()
            steps[step] = time.perf_counter() - started
            log(f"  {step}: {steps[step]:.1f} s")
        started = time.perf_counter()
        con.execute("CHECKPOINT")
        steps["checkpoint"] = time.perf_counter() - started
    return steps
