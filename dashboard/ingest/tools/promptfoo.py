"""A promptfoo results file (`promptfoo eval -o results.json`, or `promptfoo export eval ID`),
read as records of the `ratings` format: each test case an item, each provider's output a
response of that provider (the system), each assertion's score a rating with its reason (an
`llm-rubric` one by its grading model, any other by the assertion), promptfoo's own verdict on
the output (`promptfoo-pass`, what its pass rate counts) and a person's rating given in
promptfoo's viewer (a component result of assertion type `human`) on the same rubric."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from dashboard.ingest.errors import IngestError

PASS_RUBRIC = "promptfoo-pass"
VERDICT_RATER = "promptfoo"
VIEWER_RATER = "promptfoo-viewer"
DEFAULT_GRADER = "promptfoo-default-grader"
HUMAN = "human"  # promptfoo's HUMAN_ASSERTION_TYPE: a rating given in its viewer
JUDGED = frozenset({"llm-rubric", "model-graded-closedqa", "g-eval", "factuality"})
_KEYS = (b'"evalId"', b'"results"')


def is_promptfoo_results(path: Path) -> bool:
    """Whether the file is promptfoo's JSON output: an object that begins with `evalId` and
    `results`, as `promptfoo eval -o` and `promptfoo export eval` write it."""
    if path.suffix.lower() != ".json":
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and all(key in head for key in _KEYS)


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise IngestError(f"not a readable promptfoo results file ({error})", file=path) from None
    found = data.get("results") if isinstance(data, dict) else None
    if not isinstance(found, dict) or found.get("version", 0) < 3:
        raise IngestError(
            "a promptfoo results file of an older layout (results.version below 3): export it "
            "again with a recent promptfoo (promptfoo export eval ID -o results.json)",
            file=path,
        )
    results = found.get("results")
    if not isinstance(results, list) or not results:
        raise IngestError("the promptfoo results file holds no results", file=path)
    return results


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _provider(result: dict[str, Any]) -> str:
    provider = result.get("provider") or {}
    if isinstance(provider, str):
        return provider
    return str(provider.get("label") or provider.get("id") or "provider")


def _grader(result: dict[str, Any], assertion: dict[str, Any]) -> str:
    """The model that graded a model-graded assertion: its own provider, the test's, else
    promptfoo's default."""
    for options in (assertion, (result.get("testCase") or {}).get("options") or {}):
        provider = options.get("provider")
        if isinstance(provider, str):
            return provider
        if isinstance(provider, dict) and provider.get("id"):
            return str(provider["id"])
    return DEFAULT_GRADER


def _score(value: Any, path: Path, index: int, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise IngestError(
            f"expected a score between 0 and 1, got {value!r}",
            file=path,
            record=index,
            field=field,
            file_kind="json",
        )
    return float(value)


def _ratings(path: Path, index: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The result's ratings: each assertion's, the viewer's, and promptfoo's verdict."""
    grading = result.get("gradingResult") or {}
    components = [c for c in grading.get("componentResults") or [] if isinstance(c, dict)]
    ratings, seen = [], Counter[str]()
    for n, component in enumerate(components):
        assertion = component.get("assertion") or {}
        kind = str(assertion.get("type") or "assertion")
        field = f"gradingResult.componentResults[{n}]"
        if kind == HUMAN:
            value = 1.0 if component.get("pass") else 0.0
            ratings.append(_rating("human", VIEWER_RATER, PASS_RUBRIC, value, component))
            continue
        rubric = str(assertion.get("metric") or kind)
        seen[rubric] += 1
        if seen[rubric] > 1:  # two assertions of one type in a test stay two ratings
            rubric = f"{rubric} ({seen[rubric]})"
        rater = _grader(result, assertion) if kind in JUDGED else f"promptfoo:{kind}"
        value = _score(component.get("score"), path, index, f"{field}.score")
        ratings.append(_rating("llm", rater, rubric, value, component))
    automatic = [c for c in components if (c.get("assertion") or {}).get("type") != HUMAN]
    # After a person's rating, `success` is theirs: promptfoo's own verdict is its assertions'.
    passed = (
        all(c.get("pass") for c in automatic)
        if len(automatic) < len(components)
        else bool(result.get("success"))
    )
    verdict = _rating("llm", VERDICT_RATER, PASS_RUBRIC, 1.0 if passed else 0.0, grading)
    if result.get("error") and not components:  # the provider failed: nothing was graded
        verdict |= {"value": None, "unscored_reason": f"provider error: {result['error']}"}
    return [*ratings, verdict]


def _rating(
    kind: str, rater: str, rubric: str, value: float, component: dict[str, Any]
) -> dict[str, Any]:
    explanation = component.get("reason")
    return {
        "rater_kind": kind,
        "rater": rater,
        "rubric": rubric,
        "value": value,
        "scale_low": 0.0,
        "scale_high": 1.0,
        "explanation": explanation if isinstance(explanation, str) else None,
        "comment": component.get("comment") if kind == "human" else None,
    }


def promptfoo_records(path: Path) -> list[dict[str, Any]]:
    """The file's results as `ratings` records; IngestError naming the file, result, field."""
    results = _load(path)
    for index, result in enumerate(results, start=1):
        if not isinstance(result, dict) or "testIdx" not in result:
            raise IngestError(
                "expected a promptfoo result (an object with testIdx)",
                file=path,
                record=index,
                file_kind="json",
            )
    # promptIdx numbers promptfoo's columns (a prompt under a provider); promptId the prompt.
    prompts = {p: n for n, p in enumerate(dict.fromkeys(r.get("promptId") for r in results), 1)}
    # A test case is one item whichever prompt rendered it: its question is the first prompt's.
    questions: dict[Any, str] = {}
    for result in sorted(results, key=lambda r: int(r.get("promptIdx") or 0)):
        questions.setdefault(result["testIdx"], _text((result.get("prompt") or {}).get("raw", "")))
    records: list[dict[str, Any]] = []
    for index, result in enumerate(results, start=1):
        test = result.get("testCase") or {}
        system = _provider(result)
        if len(prompts) > 1:  # one provider under several prompts: a system per prompt
            system = f"{system} (prompt {prompts[result.get('promptId')]})"
        response = result.get("response") or {}
        base = {
            "question": questions[result["testIdx"]],
            "item_metadata": {
                "promptfoo_test_idx": result["testIdx"],
                "promptfoo_description": test.get("description"),
                "promptfoo_vars": result.get("vars") or test.get("vars"),
                "promptfoo_assert": test.get("assert"),
            },
            "system": system,
            "answer": _text(response.get("output", "")),
            "response_metadata": {"promptfoo_id": result.get("id")},
        }
        records.extend(base | rating for rating in _ratings(path, index, result))
    return records
