"""Imports that used to work and were broken by later work (issue 28): each test failed on the
code before its fix. The published layouts are LLMBar's and FastChat's own, built in the test
from the files in ../shared/data."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.ingest.uploads import UploadError, import_upload
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, snapshot, write_jsonl
from tests.ingest.test_cli import judgeboard
from tests.ingest.test_mt_bench_pair import RECORDS as PAIR_RECORDS
from tests.paths import SHARED_DATA

LLMBAR = SHARED_DATA / "llmbar"
MT_BENCH = SHARED_DATA / "mt_bench"
SINGLE = "instructlab_granite-7b-lab__gpt-4_single.jsonl"
# LLMBar's Dataset/LLMBar/Natural/evaluators/GPT-4/Vanilla/statistics.json, as published.
STATISTICS = {
    "correct_False": "95 / 100 = 95.0%",
    "correct_True": "96 / 100 = 96.0%",
    "correct_average": "95.5%",
    "correct_both": "93 / 100 = 93.0%",
    "equal": "95 / 100 = 95.0%",
    "kappa_False": 0.26775689528923596,
    "kappa_True": 0.2714910150558524,
    "kappa_average": 0.26962395517254417,
    "kappa_agreement": 0.897708674304419,
}
PAIR = {"question": "q", "answer_a": "x", "answer_b": "y", "system_a": "s1", "system_b": "s2"}


def test_a_pairwise_file_with_its_judgement_fields_is_no_damaged_ratings_file(
    store: Store, write: Writer
) -> None:
    """rater, rater_kind and rubric are `pairwise` fields; the near-miss check took them for a
    ratings file without `value` and refused the file."""
    record = {**PAIR, "winner": "A", "rater": "ana", "rater_kind": "human", "rubric": "pref"}
    report = import_path(store, write("labels.jsonl", [record]))
    assert report.files[0].format == "pairwise"
    assert query(store, "SELECT rater, rater_kind, rubric, verdict FROM preferences") == [
        ("ana", "human", "pref", "A")
    ]


def test_a_judge_row_without_a_winner_is_an_unscored_verdict(store: Store, write: Writer) -> None:
    judge = {"rater": "gpt-4o", "rater_kind": "llm", "rubric": "pairwise"}
    rows = [
        {**PAIR, **judge, "question": f"q{n}", "winner": winner}
        for n, winner in enumerate(["A", None, "tie", None])
    ]
    rows.append({**PAIR, "question": "q9"})  # a pair nobody judged: a pair alone
    path = write("verdicts.jsonl", rows)
    report = import_path(store, path)
    assert report.lines() == [
        f"{path}: 5 records as pairwise into verdicts: added 5 items, 10 responses, "
        "4 preferences (2 verdicts with no value, each kept with its reason)"
    ]
    assert query(
        store, "SELECT verdict, unscored_reason FROM preferences ORDER BY verdict NULLS LAST"
    ) == [
        ("A", None),
        ("tie", None),
        (None, "no winner in the file for this judge"),
        (None, "no winner in the file for this judge"),
    ]


def _llmbar_subset(folder: Path, records: int) -> Path:
    """A subset in LLMBar's repository layout, with each evaluator's statistics.json."""
    folder.mkdir(parents=True)
    dataset = json.loads((LLMBAR / "natural_dataset.json").read_text(encoding="utf-8"))
    (folder / "dataset.json").write_text(json.dumps(dataset[:records], indent=2))
    for judge, source in (("GPT-4", "gpt-4"), ("ChatGPT", "chatgpt")):
        results = json.loads(
            (LLMBAR / f"natural_{source}_vanilla_result.json").read_text(encoding="utf-8")
        )
        method = folder / "evaluators" / judge / "Vanilla"
        method.mkdir(parents=True)
        (method / "result.json").write_text(json.dumps(results[:records], indent=2))
        (method / "statistics.json").write_text(json.dumps(STATISTICS, indent=2))
    return folder


def test_llmbar_as_published_skips_and_lists_its_statistics(store: Store, tmp_path: Path) -> None:
    natural = _llmbar_subset(tmp_path / "Dataset" / "LLMBar" / "Natural", 100)
    report = import_path(store, natural)
    assert sorted(Path(name).relative_to(natural).as_posix() for name in report.ignored) == [
        "evaluators/ChatGPT/Vanilla/statistics.json",
        "evaluators/GPT-4/Vanilla/statistics.json",
    ]
    assert report.added["preferences"] == 500  # 100 gold labels, 2 judges x 2 orders x 100
    assert any(
        line.endswith("statistics.json: skipped (no format judgeboard knows)")
        for line in report.lines()
    )
    assert report.datasets == ("Natural",)


def test_two_subsets_files_named_alike_never_merge(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "Dataset" / "LLMBar"
    natural = _llmbar_subset(root / "Natural", 100)
    gptinst = _llmbar_subset(root / "Adversarial" / "GPTInst", 40)
    # One file at a time, without --dataset: each goes into its folder's name.
    import_path(store, natural / "dataset.json")
    import_path(store, gptinst / "dataset.json")
    assert query(store, "SELECT dataset, count(*) FROM items GROUP BY ALL ORDER BY 1") == [
        ("GPTInst", 40),
        ("Natural", 100),
    ]
    # The whole repository at once: each subset with its own evaluators.
    other = Store(tmp_path / "whole.duckdb")
    report = import_path(other, root)
    assert report.datasets == ("GPTInst", "Natural")
    raters = query(
        other,
        """SELECT i.dataset, p.rater, count(*) FROM preferences p JOIN items i USING (item_id)
        GROUP BY ALL ORDER BY 1, 2""",
    )
    assert raters == [
        ("GPTInst", "ChatGPT/Vanilla", 80),
        ("GPTInst", "GPT-4/Vanilla", 80),
        ("GPTInst", "llmbar-gold", 40),
        ("Natural", "ChatGPT/Vanilla", 200),
        ("Natural", "GPT-4/Vanilla", 200),
        ("Natural", "llmbar-gold", 100),
    ]


def test_an_upload_with_a_generic_name_asks_for_a_dataset(store: Store) -> None:
    data = io.BytesIO(json.dumps([{"question": "q", "answer": "a"}]).encode())
    with pytest.raises(UploadError, match="type a name in Dataset"):
        import_upload(store, "dataset.json", data)
    data.seek(0)
    assert import_upload(store, "dataset.json", data, dataset="mine").report.datasets == ("mine",)


def _fastchat(tmp_path: Path) -> Path:
    """FastChat's data/mt_bench/: question.jsonl above model_judgment/."""
    root = tmp_path / "data" / "mt_bench"
    (root / "model_judgment").mkdir(parents=True)
    shutil.copyfile(MT_BENCH / "question.jsonl", root / "question.jsonl")
    shutil.copyfile(MT_BENCH / SINGLE, root / "model_judgment" / "gpt-4_single.jsonl")
    write_jsonl(root / "model_judgment" / "gpt-4_pair.jsonl", PAIR_RECORDS)
    return root


def test_fastchat_judgments_find_the_questions_where_fastchat_keeps_them(
    store: Store, tmp_path: Path
) -> None:
    root = _fastchat(tmp_path)
    pair = import_path(store, root / "model_judgment" / "gpt-4_pair.jsonl")
    assert pair.added["preferences"] == 8  # 4 records, 2 games each
    single = import_path(store, root / "model_judgment" / "gpt-4_single.jsonl")
    assert single.added["ratings"] == 160
    # The whole folder, as FastChat lays it out: one dataset named for it.
    other = Store(tmp_path / "folder.duckdb")
    report = import_path(other, root)
    assert report.datasets == ("mt_bench",)
    assert (report.added["ratings"], report.added["preferences"]) == (160, 8)


def test_fastchat_judgments_without_questions_name_both_places(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "model_judgment" / "gpt-4_single.jsonl"
    path.parent.mkdir()
    shutil.copyfile(MT_BENCH / SINGLE, path)
    with pytest.raises(IngestError, match="beside them or one folder up"):
        import_path(store, path)


CSV = "prompt,reference,out\n" + "".join(f"q{n},ref{n},answer {n}\n" for n in range(6))


def test_reimporting_with_a_corrected_mapping_offers_to_replace(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(CSV)
    wrong = {"question": "reference", "answer": "out"}
    right = {"question": "prompt", "answer": "out"}
    import_path(store, path, dataset="d", system="s", mapping=wrong)
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, dataset="d", system="s", mapping=right)
    message = str(caught.value)
    assert "keeping both would hold the file twice; pass --replace" in message
    assert "gives 6 items and 6 responses that import did not" in message
    assert snapshot(store) == before  # 6 items, not 12
    report = import_path(store, path, dataset="d", system="s", mapping=right, replace=True)
    assert "removed 6 items, 6 responses" in report.lines()[0]
    assert query(store, "SELECT question FROM items ORDER BY 1") == [(f"q{n}",) for n in range(6)]
    # The same import again adds nothing and is not refused.
    assert sum(import_path(store, path, dataset="d", system="s", mapping=right).added.values()) == 0


def test_replace_is_refused_when_people_labelled_the_earlier_import(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(CSV)
    import_path(
        store, path, dataset="d", system="s", mapping={"question": "reference", "answer": "out"}
    )
    [(response,)] = query(store, "SELECT response_id FROM responses LIMIT 1")
    with store.connection() as con:  # a person's label on an answer the import brought
        con.execute(
            "INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, "
            "rubric_version, value, scale_low, scale_high, created_utc) "
            "VALUES ('r1', ?, 'human', 'ana', 'likert', '1', 4, 1, 5, now())",
            [response],
        )
    with pytest.raises(IngestError, match="people or judges added 1 rows of ratings"):
        import_path(
            store,
            path,
            dataset="d",
            system="s",
            mapping={"question": "prompt", "answer": "out"},
            replace=True,
        )


def test_the_command_line_offers_replace(tmp_path: Path) -> None:
    db, path = tmp_path / "cli.duckdb", tmp_path / "labels.csv"
    path.write_text(CSV)
    base = ("import", str(path), "--dataset", "d", "--system", "s", "--map", "answer=out")
    assert judgeboard(db, *base, "--map", "question=reference").returncode == 0
    refused = judgeboard(db, *base, "--map", "question=prompt")
    assert refused.returncode == 1 and "pass --replace" in refused.stderr
    replaced = judgeboard(db, *base, "--map", "question=prompt", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert "replaced the earlier import" in replaced.stdout
