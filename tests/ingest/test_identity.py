"""The importer's SQL ids are `content_id` ids: one rule, in Python and in SQL."""

from __future__ import annotations

from dashboard.ids import content_id
from dashboard.ingest import import_path
from dashboard.ingest.ids_sql import content_id_sql, list_part
from dashboard.store import Store
from tests.ingest.conftest import Writer, query
from tests.ingest.identity import item_id, response_id


def test_content_id_sql_matches_python(store: Store) -> None:
    parts = ("é ü 漢字 \u2028", None, "", "tab\tnew\nline")
    lists = (["a", "b"], [], ["ü"])
    sql = content_id_sql(
        "$a", "$b", "$c", "$d", list_part("$l1"), list_part("$l2"), list_part("$l3")
    )
    with store.connection() as con:
        got = con.execute(
            f"SELECT {sql}",
            {
                "a": parts[0],
                "b": parts[1],
                "c": parts[2],
                "d": parts[3],
                "l1": lists[0],
                "l2": lists[1],
                "l3": lists[2],
            },
        ).fetchone()[0]
    assert got == content_id(*parts, *lists)


def test_item_and_response_ids_of_every_kind(store: Store, write: Writer) -> None:
    mcqa = {
        "question": "Bänder?",
        "options": {"A": "rot", "B": "NIR"},
        "gold": "B",
        "answer": "B",
        "id": 3,
    }
    halu = {
        "question": "q",
        "context": ["c1", "c2"],
        "candidate": "x",
        "label": "no",
        "prediction": "faithful",
    }
    conv = {"history": ["hi", "hello"], "question": "and?", "gold_answers": "g", "answer": "a"}
    import_path(store, write("m.jsonl", [mcqa]), dataset="d", system="s")
    import_path(store, write("h.csv", [halu]), dataset="d", system="s")
    import_path(store, write("c.json", [conv]), dataset="d", system="s")
    expected = {
        item_id(
            dataset="d",
            external_id="3",
            task_type="mcqa_single",
            question="Bänder?",
            options=["rot", "NIR"],
            gold_letters=["B"],
        ),
        item_id(
            dataset="d",
            task_type="hallucination",
            question="q",
            reference_context="c1\n\nc2",
            candidate_answer="x",
            hallucination_gold=False,
        ),
        item_id(
            dataset="d",
            task_type="conversational_qa",
            question="and?",
            history=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            reference_answers=["g"],
        ),
    }
    assert {r[0] for r in query(store, "SELECT item_id FROM items")} == expected
    pairs = query(store, "SELECT item_id, system, answer, response_id FROM responses")
    assert all(response_id(i, s, a) == r for i, s, a, r in pairs)
