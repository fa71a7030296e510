"""People's tag labels export and import like ratings: `judgeboard export` writes them to a
file of their own (every row, current and superseded, with provenance), and importing the
export into a fresh database gives the same tag labels and the same `tags` of the metrics
JSON. A bad tags file is refused whole, naming the record and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.campaigns import campaigns
from dashboard.campaigns.campaigns import CampaignTag
from dashboard.cli import main
from dashboard.export.files import export
from dashboard.ingest import IngestError, import_path
from dashboard.judging.rubrics import list_rubrics
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.review import annotation, edits
from dashboard.review.annotation import Provenance
from dashboard.store import Store
from tests.conftest import TEST_WAIT_S
from tests.ingest.conftest import query

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
TAGS = [CampaignTag("hallucination", "not in the context"), CampaignTag("incomplete")]
TAG_ROWS = """SELECT tag_id, response_id, campaign, tag, rater_kind, rater, ticked,
    created_utc, supersedes, selection, blind, source, superseded, withdrawn
    FROM tag_labels ORDER BY tag_id"""


def _label(store: Store, person: str, ticked: dict[str, bool]) -> str:
    """A person's save in the campaign, as the Annotate page makes it."""
    taken = campaigns.assign(store, "errs", person)
    assert taken is not None
    return _save(store, taken.response_id, person, ticked, taken.selection)


def _save(store: Store, response_id: str, person: str, ticked: dict[str, bool], selection: str):
    rating = annotation.human_rating(
        response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=3,
        scale=(1, 5),
        provenance=Provenance(selection, None, "errs", True),
    )
    annotation.save_rating(store, rating, tags=annotation.tag_labels(rating, ticked))
    return response_id


def _tagged(store: Store) -> None:
    campaigns.create_campaign(
        store, "errs", RUBRIC, dataset="eo-rag", rule="random", size=6, overlap=2, tags=TAGS
    )
    first = _label(store, "tia", {"hallucination": True, "incomplete": False})
    _label(store, "tia", {"hallucination": False, "incomplete": True})
    _label(store, "uma", {"hallucination": True, "incomplete": True})
    # uma undoes her save: her tag rows are withdrawn (2 more rows, counted nowhere)
    undone = edits.last_save(store, "uma", RUBRIC.name, campaign="errs")
    assert undone is not None
    edits.undo_all(store, undone)
    # tia changes her mind on the first answer: her earlier tag rows are superseded
    _save(store, first, "tia", {"hallucination": False, "incomplete": True}, "random")


def _tags_json(store: Store) -> dict:
    found = metrics_json.compute(store, Selection(None))[2]
    shares = {k: v for k, v in found["metrics"].items() if k.startswith("tags.")}
    assert shares  # the comparison below compares something
    return {"metrics": shares, "tags": found.get("tags")}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_tag_labels_round_trip_through_an_export(
    sample_store: Store, tmp_path: Path, suffix: str
) -> None:
    _tagged(sample_store)
    result = export(sample_store, tmp_path / "export" / f"out{suffix}")
    assert result.files["tags"].name == f"out.tags{suffix}"
    assert result.rows["tags"] == 10  # 3 saves of 2 tags, uma's undo of 2, tia's change of 2
    fresh = Store(tmp_path / "fresh.duckdb", wait_s=TEST_WAIT_S)
    # As a person would: the answers first, then the tags, with no options.
    for kind in ("ratings", "tags"):
        assert main(["--db", str(fresh.path), "import", str(result.files[kind])]) == 0
    assert query(fresh, TAG_ROWS) == query(sample_store, TAG_ROWS)
    assert _tags_json(fresh) == _tags_json(sample_store)
    # The folder whole imports too, and again into its source adds nothing.
    other = Store(tmp_path / "other.duckdb", wait_s=TEST_WAIT_S)
    report = import_path(other, tmp_path / "export")
    assert report.formats == ("preferences", "ratings", "tags")
    assert query(other, TAG_ROWS) == query(sample_store, TAG_ROWS)
    (again,) = import_path(sample_store, result.files["tags"]).files
    assert (again.added["tag labels"], again.skipped["tag labels"]) == (0, 10)


def test_a_bad_tags_file_is_refused_whole(sample_store: Store, tmp_path: Path) -> None:
    _tagged(sample_store)
    result = export(sample_store, tmp_path / "export" / "out.jsonl")
    fresh = Store(tmp_path / "fresh.duckdb", wait_s=TEST_WAIT_S)
    import_path(fresh, result.files["ratings"])
    rows = [json.loads(line) for line in result.files["tags"].read_text().splitlines()]
    rows[2]["ticked"] = "perhaps"
    bad = tmp_path / "bad.tags.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(IngestError, match=r"record 3.*field 'ticked': 'perhaps' is not true"):
        import_path(fresh, bad)
    rows[2]["ticked"] = True
    rows[5]["response_id"] = "nope"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(IngestError, match=r"record 6.*'nope' is not an answer"):
        import_path(fresh, bad)
    assert query(fresh, "SELECT count(*) FROM tag_labels") == [(0,)]
