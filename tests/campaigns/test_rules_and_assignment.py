"""Rule-filled campaigns (a saved filter that takes matching answers as they arrive, never
those skipped or removed) and assignment (answers given to named people, served to them
first, refused to a labeller), on the sample database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.auth.roles import RoleError
from dashboard.auth.users import User
from dashboard.campaigns import assignment, campaigns, rules
from dashboard.campaigns.rules import CampaignFilter, RuleError
from dashboard.ingest import import_path
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.review.annotation import Provenance
from dashboard.store import Store

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
LABELLER = User("lena", "labeller")
ADMIN = User("ada", "admin")


def _items(store: Store, name: str) -> list[str]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id FROM campaign_items WHERE campaign = ? ORDER BY position", [name]
        ).fetchall()
    return [row[0] for row in rows]


def _new_answers(path: Path, system: str, n: int) -> Path:
    """A rag file of `n` answers of a new system to eo-rag's questions (unrated)."""
    records = [
        {
            "question": f"Which band does sensor {i} of the rule test use?",
            "answer": f"Band {i}.",
            "system": system,
            "id": f"rule-{i}",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_rule_filled_campaign_grows_after_an_import(sample_store: Store, tmp_path: Path):
    made = campaigns.create_campaign(
        sample_store,
        "fresh",
        RUBRIC,
        dataset="eo-rag",
        rule="worst",
        size=100,
        rule_filter=CampaignFilter(system="rule-sys", unlabelled=True),
    )
    assert made.n_items == 0  # nothing of that system yet: a rule campaign may start empty
    import_path(
        sample_store, _new_answers(tmp_path / "a.jsonl", "rule-sys", 3), fmt="rag", dataset="eo-rag"
    )
    grown = _items(sample_store, "fresh")
    assert len(grown) == 3
    # a person skips one, an admin removes another: neither comes back with the next import
    campaigns.release(sample_store, "fresh", grown[0], "ana")
    assert rules.remove_answer(sample_store, "fresh", grown[1], actor=ADMIN, by="ada")
    assert campaigns.assign(sample_store, "fresh", "ana").response_id != grown[0]
    import_path(
        sample_store, _new_answers(tmp_path / "b.jsonl", "rule-sys", 5), fmt="rag", dataset="eo-rag"
    )
    after = _items(sample_store, "fresh")
    assert grown[1] not in after and grown[0] in after  # skipped: still others' to label
    assert len(after) == 3 - 1 + 2  # the two answers new in b.jsonl
    with sample_store.connection() as con:
        kinds = con.execute(
            "SELECT kind, count(*) FROM campaign_removals GROUP BY kind ORDER BY kind"
        ).fetchall()
    assert kinds == [("remove", 1), ("skip", 1)]
    # a labeller may not remove answers
    with pytest.raises(RoleError):
        rules.remove_answer(sample_store, "fresh", after[0], actor=LABELLER, by="lena")


def test_a_rule_matches_its_filter_and_stops_at_its_size(sample_store: Store):
    # the judges' panel score at most 0.5 on likert-rag, and 5 answers at most
    campaigns.create_campaign(
        sample_store,
        "low",
        RUBRIC,
        dataset="eo-rag",
        rule="worst",
        size=5,
        rule_filter=CampaignFilter(score_high=0.5),
    )
    chosen = _items(sample_store, "low")
    assert len(chosen) == 5
    with sample_store.connection() as con:
        panel = con.execute(
            "SELECT response_id, avg((value - scale_low) / (scale_high - scale_low)) "
            "FROM current_ratings WHERE rater_kind = 'llm' AND rubric = 'likert-rag' "
            "AND value IS NOT NULL GROUP BY response_id"
        ).fetchall()
    scores = dict(panel)
    assert all(scores[rid] <= 0.5 + 1e-9 for rid in chosen)
    assert [scores[rid] for rid in chosen] == sorted(scores[rid] for rid in chosen)
    assert rules.fill_all(sample_store) == {}  # full: a fill adds nothing
    with pytest.raises(RuleError, match="score_low is above score_high"):
        rules.check_filter(CampaignFilter(score_low=0.8, score_high=0.2))
    with pytest.raises(RuleError, match="threshold is 2"):
        rules.check_filter(CampaignFilter(disagree="judges", threshold=2))
    assert (
        CampaignFilter(score_high=0.5, disagree="people", tag="hallucination").describe()
        == "judge score 0–0.5, the judges and the people disagree by 0.25 or more, "
        "tagged hallucination"
    )


def test_a_labeller_may_not_make_a_rule_campaign(sample_store: Store):
    with pytest.raises(RoleError):
        campaigns.create_campaign(
            sample_store,
            "nope",
            RUBRIC,
            dataset="eo-rag",
            rule="worst",
            size=5,
            actor=LABELLER,
            rule_filter=CampaignFilter(),
        )


def _label(store: Store, person: str, name: str) -> str | None:
    taken = campaigns.assign(store, name, person)
    if taken is None:
        return None
    annotation.rate(
        store,
        taken.response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=3.0,
        scale=(1, 5),
        provenance=Provenance(taken.selection, taken.inclusion_probability, name, True),
    )
    return taken.response_id


def test_assignment_evenly_served_first_reassigned_and_refused_to_a_labeller(sample_store):
    campaigns.create_campaign(
        sample_store, "team", RUBRIC, dataset="eo-rag", rule="random", size=7, overlap=1
    )
    order = _items(sample_store, "team")
    with pytest.raises(RoleError, match="lena is signed in as a labeller"):
        assignment.assign_answers(sample_store, "team", ["ana", "ben"], actor=LABELLER)
    given = assignment.assign_answers(sample_store, "team", ["ana", "ben"], actor=ADMIN)
    assert given == {"ana": 4, "ben": 3}  # 7 shared evenly, in the campaign's order
    # ana's first answer is her first assignment: the campaign's 1st, 3rd, 5th, 7th
    assert _label(sample_store, "ana", "team") == order[0]
    assert _label(sample_store, "ana", "team") == order[2]
    # cy is assigned nothing and every answer is someone's: nothing for cy
    assert campaigns.assign(sample_store, "team", "cy") is None
    progress = {
        p.person: (p.n_assigned, p.n_labelled)
        for p in assignment.people_progress(sample_store, "team")
    }
    assert progress == {"ana": (4, 2), "ben": (3, 0)}
    # ben's three move to cy; ana's labelled two stay hers
    with pytest.raises(RoleError):
        assignment.reassign(sample_store, "team", "ben", "cy", actor=LABELLER)
    assert assignment.reassign(sample_store, "team", "ben", "cy", actor=ADMIN) == 3
    assert campaigns.assign(sample_store, "team", "ben") is None
    assert assignment.assigned_to(sample_store, "team", "cy") == 3
    assert _label(sample_store, "cy", "team") == order[1]
    # a chosen count each: the open answers are gone (all assigned), so nothing more
    assert assignment.assign_answers(sample_store, "team", ["dee"], count=2, actor=ADMIN) == {
        "dee": 0
    }


def test_only_my_assignments_and_a_chosen_count(sample_store: Store):
    campaigns.create_campaign(
        sample_store, "mine", RUBRIC, dataset="eo-rag", rule="random", size=6, overlap=1
    )
    order = _items(sample_store, "mine")
    assert assignment.assign_answers(sample_store, "mine", ["ana"], count=2) == {"ana": 2}
    assert campaigns.assign(sample_store, "mine", "ana").response_id == order[0]
    # with only_mine, ben (assigned nothing) gets nothing; without, an open answer
    assert campaigns.assign(sample_store, "mine", "ben", only_mine=True) is None
    assert campaigns.assign(sample_store, "mine", "ben").response_id == order[2]
