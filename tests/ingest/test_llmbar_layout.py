"""LLMBar in its repository's own layout: Dataset/LLMBar/Natural/dataset.json beside
evaluators/<LLM>/<method>/result.json, imported as one folder (its subfolders too)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import query, snapshot
from tests.paths import SHARED_DATA

LLMBAR = SHARED_DATA / "llmbar"


@pytest.fixture
def natural(tmp_path: Path) -> Path:
    """Natural/ as the LLMBar repository lays it out (the published files, renamed)."""
    folder = tmp_path / "Dataset" / "LLMBar" / "Natural"
    for source, target in (
        ("natural_dataset.json", "dataset.json"),
        ("natural_gpt-4_vanilla_result.json", "evaluators/GPT-4/Vanilla/result.json"),
        ("natural_chatgpt_vanilla_result.json", "evaluators/ChatGPT/Vanilla/result.json"),
    ):
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LLMBAR / source, folder / target)
    return folder


def _raters(store: Store) -> dict[tuple[str, str, str], int]:
    rows = query(
        store,
        """SELECT i.dataset, p.rater_kind, p.rater, count(*) FROM preferences p
        JOIN items i USING (item_id) GROUP BY ALL""",
    )
    return {(d, k, r): n for d, k, r, n in rows}


def test_the_folder_and_its_evaluators_import_as_one_dataset(store: Store, natural: Path) -> None:
    report = import_path(store, natural)
    assert [Path(f.file).relative_to(natural).as_posix() for f in report.files] == [
        "dataset.json",
        "evaluators/ChatGPT/Vanilla/result.json",
        "evaluators/GPT-4/Vanilla/result.json",
    ]
    # Each judge is named from its folders; both used to be called "result", and the second
    # file's verdicts superseded the first's pair by pair.
    assert _raters(store) == {
        ("Natural", "human", "llmbar-gold"): 100,
        ("Natural", "llm", "GPT-4/Vanilla"): 200,
        ("Natural", "llm", "ChatGPT/Vanilla"): 200,
    }
    assert report.superseded["preferences"] == 0
    assert query(store, "SELECT count(*) FROM current_preferences") == [(500,)]


def test_one_result_file_on_its_own_is_named_from_its_folders(store: Store, natural: Path) -> None:
    path = natural / "evaluators" / "GPT-4" / "Vanilla" / "result.json"
    report = import_path(store, path, dataset="Natural")
    assert report.datasets == ("Natural",)
    assert ("Natural", "llm", "GPT-4/Vanilla") in _raters(store)


def test_two_files_with_one_judge_name_are_refused(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    for sub in ("first", "second"):  # not LLMBar's layout: each judge would be "result"
        (folder / sub).mkdir(parents=True)
    shutil.copyfile(LLMBAR / "natural_gpt-4_vanilla_result.json", folder / "first/result.json")
    shutil.copyfile(LLMBAR / "natural_chatgpt_vanilla_result.json", folder / "second/result.json")
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, folder)
    assert str(caught.value) == (
        f"{folder / 'second/result.json'}: its verdicts would go to judge 'result' in dataset "
        f"'runs', as those of {folder / 'first/result.json'} do: two result files must not "
        "become one judge; import one of them on its own, with --dataset NAME, or keep each "
        "in LLMBar's layout (evaluators/<LLM>/<method>/result.json)"
    )
    assert snapshot(store) == before


def _games(path: Path) -> dict[tuple[int, str], tuple[str, str]]:
    """(record, swap) -> (winner, completion) of a result file, read with json."""
    records = json.loads(path.read_text(encoding="utf-8"))
    return {
        (n, swap): (r["results"][-1][swap]["winner"], r["results"][-1][swap]["completion"][0])
        for n, r in enumerate(records)
        for swap in ("swap = False", "swap = True")
    }


def test_a_second_file_under_a_stored_judge_name_is_refused(store: Store, tmp_path: Path) -> None:
    # Two imports, one file each, into one dataset: each judge would be "result", and the
    # second file's verdicts used to supersede the first's where they differed.
    first, second = tmp_path / "first/result.json", tmp_path / "second/result.json"
    for path, source in ((first, "gpt-4"), (second, "chatgpt")):
        path.parent.mkdir()
        shutil.copyfile(LLMBAR / f"natural_{source}_vanilla_result.json", path)
    import_path(store, first, dataset="runs")
    again = import_path(store, first, dataset="runs")  # the same file again: nothing new
    assert again.added["preferences"] == 0 and again.superseded["preferences"] == 0
    one, other = _games(first), _games(second)
    differ = sum(one[key] != other[key] for key in one)
    assert 0 < differ <= 200
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, second, dataset="runs")
    assert str(caught.value) == (
        f"{second}: judge 'result' already has {differ} verdicts on its pairs in dataset "
        "'runs' that differ from its own, from another result file: two result files must "
        "not become one judge; import it into another dataset with --dataset NAME, or keep "
        "each file in LLMBar's layout (evaluators/<LLM>/<method>/result.json)"
    )
    assert snapshot(store) == before
    # Into another dataset it imports: 100 gold verdicts and the judge's 200.
    assert import_path(store, second, dataset="runs-2").added["preferences"] == 300
