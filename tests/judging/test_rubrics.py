"""Rubric files: loading, validation, and a golden file for every rendered prompt.

A prompt change shows up as a diff of `tests/judging/golden/`. After reviewing it, refresh
the files with `JUDGEBOARD_UPDATE_GOLDEN=1 python -m pytest tests/judging/test_rubrics.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from dashboard.judging import Rubric, RubricError, list_rubrics, load_rubric, rubric_problems
from dashboard.judging.rubrics import RUBRICS_ENV, render_template, rubric_from_toml
from dashboard.judging.targets import pair_targets, rating_target
from dashboard.judging.targets_sql import PairTargetRow, RatingTargetRow

GOLDEN = Path(__file__).parent / "golden"
SHIPPED = ("eve-0-5", "eve-0-5-context", "likert-rag", "pairwise", "pass-fail")

ITEM: dict[str, Any] = {
    "item_id": "i1",
    "dataset": "eo",
    "task_type": "open_qa_context",
    "question": "When did the Sentinel-2A satellite launch?",
    "reference_answers": ["Sentinel-2A launched on 23 June 2015."],
    "reference_context": "Sentinel-2A was launched on 23 June 2015 from Kourou on a Vega rocket.",
    "history": None,
}
RATING_CASES: dict[str, RatingTargetRow] = {
    "rag": RatingTargetRow(
        **ITEM,
        response_id="r1",
        system="s",
        answer="It launched in June 2015.",
        contexts=["Sentinel-2A: launch 2015-06-23.", "Sentinel-2B: launch 2017-03-07."],
    ),
    "bare": RatingTargetRow(
        **{**ITEM, "reference_context": None},
        response_id="r2",
        system="s",
        answer="In 2015, on a Vega rocket.",
        contexts=[],
    ),
    "conversation": RatingTargetRow(
        **{
            **ITEM,
            "question": "And its twin?",
            "reference_context": None,
            "reference_answers": ["Sentinel-2B, launched on 7 March 2017.", "7 March 2017"],
            "history": json.dumps(
                [
                    {"role": "user", "content": "When did Sentinel-2A launch?"},
                    {"role": "assistant", "content": "On 23 June 2015."},
                ]
            ),
        },
        response_id="r3",
        system="s",
        answer="Sentinel-2B followed in March 2017.",
        contexts=[],
    ),
}
_PAIR_RESPONSES: dict[str, Any] = {
    "a_response_id": "ra",
    "a_system": "sa",
    "a_contexts": None,
    "b_response_id": "rb",
    "b_system": "sb",
    "b_contexts": None,
}
PAIR_CASES: dict[str, PairTargetRow] = {
    "pair": PairTargetRow(
        **ITEM,
        **_PAIR_RESPONSES,
        a_answer="23 June 2015.",
        b_answer="Some time in 2016, I believe.",
    ),
    "pair-noref": PairTargetRow(
        **{**ITEM, "reference_answers": [], "reference_context": None},
        **_PAIR_RESPONSES,
        a_answer="Write a haiku about rain? Drops fall.",
        b_answer="Rain.",
    ),
}


def rendered(rubric: Rubric, case: str) -> str:
    if rubric.is_pairwise:
        pairs = pair_targets(PAIR_CASES[case])
        blocks = [(f"shown_first {t.shown_first}", rubric.render(v)) for t, v in pairs]
    else:
        _, values = rating_target(RATING_CASES[case])
        blocks = [("", rubric.render(values))]
    out = []
    for title, messages in blocks:
        if title:
            out.append(f"======== {title}")
        out.extend(f"### {m['role']}\n{m['content']}\n" for m in messages)
    return "\n".join(out)


def golden_cases() -> list[tuple[str, str]]:
    return [
        (name, case)
        for name in SHIPPED
        for case in (PAIR_CASES if name == "pairwise" else RATING_CASES)
    ]


@pytest.mark.parametrize(("name", "case"), golden_cases())
def test_rendered_prompts_match_their_golden_files(name: str, case: str) -> None:
    path = GOLDEN / f"{name}--{case}.txt"
    text = rendered(load_rubric(name), case)
    if os.environ.get("JUDGEBOARD_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing {path}; create it with JUDGEBOARD_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_every_golden_file_belongs_to_a_case() -> None:
    expected = {f"{name}--{case}.txt" for name, case in golden_cases()}
    assert {p.name for p in GOLDEN.glob("*.txt")} == expected


def test_the_shipped_rubrics() -> None:
    rubrics = {r.name: r for r in list_rubrics()}
    assert set(SHIPPED) <= set(rubrics)
    likert = rubrics["likert-rag"]
    assert (likert.version, likert.scale_low, likert.scale_high) == ("1", 1.0, 5.0)
    assert likert.labels["1"].startswith("Answer irrelevant or invalid")
    assert likert.labels["5"] == "Answer helpful, accurate, relevant and concise"
    assert (rubrics["eve-0-5"].scale_low, rubrics["eve-0-5"].scale_high) == (0.0, 5.0)
    assert (rubrics["pass-fail"].scale_low, rubrics["pass-fail"].scale_high) == (0.0, 1.0)
    assert rubrics["pairwise"].is_pairwise and rubrics["pairwise"].scale_low is None


def test_prompt_sections_follow_the_data() -> None:
    likert = load_rubric("likert-rag")
    with_context = rendered(likert, "rag")
    assert "Sentinel-2A was launched on 23 June 2015 from Kourou" in with_context
    assert "(none given)" in rendered(likert, "bare")
    conversation = rendered(load_rubric("eve-0-5"), "conversation")
    assert "User: When did Sentinel-2A launch?\nAssistant: On 23 June 2015." in conversation
    assert "- Sentinel-2B, launched on 7 March 2017.\n- 7 March 2017" in conversation
    assert "Conversation History" not in rendered(load_rubric("eve-0-5"), "bare")
    context = rendered(load_rubric("eve-0-5-context"), "rag")
    assert "[1] Sentinel-2A: launch 2015-06-23.\n\n[2] Sentinel-2B" in context
    # Without retrieved passages the item's reference context stands in.
    (message,) = load_rubric("eve-0-5-context").render(
        {"answer": "A", "reference_context": "The reference passage."}
    )
    assert "[The Start of the Retrieved Context]\nThe reference passage.\n" in message["content"]


def test_answer_text_is_never_read_as_a_template() -> None:
    values = {"answer": "{{question}} and {{#history}}x{{/history}}", "question": "Q"}
    assert (
        render_template("{{answer}}|{{question}}", values)
        == "{{question}} and {{#history}}x{{/history}}|Q"
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            'name = "x"\nversion = "1"\nscale = [1, 5]\ntemplate = "{{anwser}}"',
            "unknown template variable {{anwser}}",
        ),
        (
            'name = "x"\nversion = "1"\nscale = [1, 5]\ntemplate = "{{#history}}{{answer}}"',
            "section {{#history}} is never closed",
        ),
        ('name = "x"\nversion = "1"\nscale = [5, 1]\ntemplate = "{{answer}}"', "low < high"),
        ('name = "x"\nversion = "1"\nscale = [1, inf]\ntemplate = "{{answer}}"', "two finite"),
        ('name = "x"\nversion = "1"\nscale = [nan, 5]\ntemplate = "{{answer}}"', "two finite"),
        (
            'name = "x"\nversion = "1"\nscale = [1, 5]\ntemplate = "{{question}}"',
            "must contain {{answer}}",
        ),
        (
            'name = "x"\nversion = "1"\nkind = "pairwise"\ntemplate = "{{answer}}"',
            "must contain {{answer_a}}",
        ),
        ('version = "1"\ntemplate = "{{answer}}"', "missing name"),
        ('name = "x"\nversion = "1"\nkind = "ranking"\ntemplate = "{{answer}}"', "kind must be"),
    ],
)
def test_invalid_rubrics_say_what_to_fix(toml: str, message: str) -> None:
    with pytest.raises(RubricError, match=message.replace("{", r"\{").replace("[", r"\[")):
        rubric_from_toml(toml)


def test_users_add_rubrics_by_path_or_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\nversion = "2"\nscale = [0, 10]\n'
        'template = "Rate {{answer}} for {{question}} from {{scale_low}} to '
        '{{scale_high}}."\n',
        encoding="utf-8",
    )
    assert load_rubric(path).render({"answer": "A", "question": "Q"}) == (
        {"role": "user", "content": "Rate A for Q from 0 to 10."},
    )
    monkeypatch.setenv(RUBRICS_ENV, str(tmp_path))
    assert load_rubric("mine").version == "2"
    assert "mine" in {r.name for r in list_rubrics()}
    with pytest.raises(RubricError, match="no rubric named 'nope'"):
        load_rubric("nope")


def test_an_unusable_rubric_file_is_skipped_reported_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    (tmp_path / "mine.toml").write_text(
        'name = "mine"\nversion = "1"\nscale = [1, 5]\ntemplate = "{{answer}}"\n', encoding="utf-8"
    )
    (tmp_path / "broken.toml").write_text('name = "broken"\nversion = 1"\n', encoding="utf-8")
    (tmp_path / "typed.toml").write_text(
        'name = "typed"\nversion = "1"\ntemplate = 5\n', encoding="utf-8"
    )
    (tmp_path / "latin.toml").write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    monkeypatch.setenv(RUBRICS_ENV, str(tmp_path))

    names = {r.name for r in list_rubrics()}  # no exception: the pages keep working
    assert names == {*SHIPPED, "mine"}
    problems = dict(rubric_problems())
    assert set(problems) == {tmp_path / n for n in ("broken.toml", "typed.toml", "latin.toml")}
    assert all(message.startswith(str(path)) for path, message in problems.items())
    assert "not valid TOML" in problems[tmp_path / "broken.toml"]
    assert "`template` must be a string" in problems[tmp_path / "typed.toml"]
    assert "cannot be read" in problems[tmp_path / "latin.toml"]
    assert "broken.toml" in caplog.text and "rubric skipped" in caplog.text

    with pytest.raises(RubricError, match=r"broken\.toml: not valid TOML"):
        load_rubric("broken")  # the file of that name: its own error, naming it
    with pytest.raises(RubricError, match=r"typed\.toml: `template` must be a string"):
        load_rubric(tmp_path / "typed.toml")
    with pytest.raises(RubricError, match=r"no rubric named 'nope'.*skipped, unusable: .*broken"):
        load_rubric("nope")
    assert load_rubric("mine").version == "1" and load_rubric("likert-rag").name == "likert-rag"
