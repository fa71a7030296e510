"""The offline baseline: a deterministic heuristic, run as a LiteLLM custom provider."""

from __future__ import annotations

from dashboard.judging import BackgroundLoop, load_panel, load_rubric, plan_run, run_plan
from dashboard.judging import offline
from dashboard.judging.llm import litellm_module
from dashboard.store import Store
from scoring.judge import parse_preference, parse_rating_result
from tests.judging.conftest import seed


def prompt(answer: str, *, reference: str = "The capital of France is Paris.",
           context: str | None = "Paris is the capital and largest city of France.") -> str:
    (message,) = load_rubric("eve-0-5-context").render(
        {"question": "What is the capital of France?", "answer": answer,
         "reference_answer": reference, "retrieved_context": context or ""})
    return message["content"]


def test_overlap_with_the_reference_maps_onto_the_scale() -> None:
    best = offline.rate(prompt("The capital of France is Paris."), low=0, high=5)
    worst = offline.rate(prompt("Bananas are yellow."), low=0, high=5)
    # F1 = 1 and every content word is in the context: 0.8 x 1 + 0.2 x 1 = 1 -> 5.
    assert parse_rating_result(best, low=0, high=5).value == 5
    assert parse_rating_result(worst, low=0, high=5).value == 0
    assert "heuristic baseline" in best and "token F1 with the reference answer 1.00" in best
    # "Paris." alone: P = 1, R = 1/5 (capital, of, france, is, paris once "the" is dropped),
    # F1 = 2PR/(P+R) = 1/3; support 1.0; 0.8/3 + 0.2 = 0.467; x 5 = 2.33 -> 2 on 0-5.
    partial = offline.rate(prompt("Paris."), low=0, high=5)
    assert parse_rating_result(partial, low=0, high=5).value == 2


def test_without_reference_or_context_it_gives_no_rating() -> None:
    text = offline.rate(prompt("Paris.", reference="", context=None), low=1, high=5)
    assert parse_rating_result(text, low=1, high=5).value is None


def test_pairwise_prefers_more_overlap_and_ties_within_the_margin() -> None:
    def verdict(first: str, second: str) -> str | None:
        (message,) = load_rubric("pairwise").render(
            {"question": "Capital of France?", "reference_answer": "Paris is the capital.",
             "answer_a": first, "answer_b": second})
        return parse_preference(offline.prefer(message["content"])).verdict

    assert verdict("Paris is the capital.", "London.") == "A"
    assert verdict("London.", "Paris is the capital.") == "B"
    assert verdict("Paris is the capital!", "Paris is the capital.") == "tie"


def test_it_answers_through_litellm_like_any_model() -> None:
    litellm = litellm_module()
    response = litellm.completion(
        model="judgeboard/baseline", messages=[{"role": "user", "content": prompt("Paris.")}],
        metadata={"judgeboard": {"kind": "rating", "low": 0, "high": 5}})
    assert response.choices[0].message.content.endswith("Rating: [[2]]")
    assert response.usage.prompt_tokens > 0


def test_a_whole_run_needs_no_key_and_is_deterministic(tmp_path: object,
                                                       loop: BackgroundLoop) -> None:
    values = []
    for name in ("one", "two"):
        store = Store(tmp_path / f"{name}.duckdb")  # type: ignore[operator]
        seed(store, n_items=5)
        plan = plan_run(store, load_panel("offline"), load_rubric("likert-rag"))
        summary = loop.run(run_plan(store, plan))
        assert summary.judge("baseline").cost_usd == 0.0
        assert summary.judge("baseline").parse_failures == 0
        with store.connection() as con:
            values.append(con.execute(
                "SELECT response_id, value, explanation FROM current_ratings ORDER BY 1"
            ).fetchall())
    assert values[0] == values[1] and len(values[0]) == 10
    assert all(1 <= v <= 5 and "heuristic baseline" in e for _, v, e in values[0])
