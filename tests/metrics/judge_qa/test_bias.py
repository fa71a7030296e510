"""Judge bias on a seeded synthetic store with known injected biases: each measure's 95%
interval covers the injected value, and `metrics --json` carries them under `bias.<judge>.`."""

from __future__ import annotations

import numpy as np

from dashboard.metrics.judge_qa import Families, judge_bias as bias_module
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests import builders

LENGTH = 0.6  # scale points per 100 words beyond people's
SELF = 0.8  # scale points more for the judge's own family
POSITION = 0.7  # share of decided verdicts for the answer shown first
FAMILIES = Families(
    judges={"self-judge": "openai", "fair-judge": "mistral"},
    systems={"gpt-rag": "openai", "mistral-rag": "mistral"},
)


def _answer(rng: np.random.Generator) -> str:
    return " ".join(["word"] * int(rng.integers(20, 300)))


def _seed_length(store: Store, rng: np.random.Generator) -> None:
    items = [builders.item("lengthy", n) for n in range(150)]
    responses = [builders.response(it, "sys", _answer(rng)) for it in items]
    ratings = []
    for r in responses:
        words = len(r.answer.split())
        quality = rng.normal(5, 1.5)
        # People like length a little too (0.2 per 100 words): only the excess is bias.
        human = quality + 0.2 * words / 100 + rng.normal(0, 0.3)
        judged = quality + (0.2 + LENGTH) * words / 100 + rng.normal(0, 0.3)
        ratings += [
            builders.rating(r, "ana", human, kind="human", low=0, high=10),
            builders.rating(r, "long-judge", judged, low=0, high=10),
        ]
    store.add_items(items, responses)
    store.add_ratings(ratings)


def _seed_family(store: Store, rng: np.random.Generator) -> None:
    items = [builders.item("family", n) for n in range(120)]
    systems = FAMILIES.systems
    responses = [builders.response(it, s, f"{s} {_answer(rng)}") for it in items for s in systems]
    ratings = []
    for r in responses:
        quality = rng.normal(5, 1.5)
        own = SELF if r.system == "gpt-rag" else 0.0
        ratings += [
            builders.rating(r, "self-judge", quality + own + rng.normal(0, 0.4), low=0, high=10),
            builders.rating(r, "fair-judge", quality + rng.normal(0, 0.4), low=0, high=10),
        ]
    store.add_items(items, responses)
    store.add_ratings(ratings)


def _seed_position(store: Store, rng: np.random.Generator) -> None:
    items = [builders.item("pairs", n) for n in range(300)]
    a = [builders.response(it, "x", f"x {it.item_id}") for it in items]
    b = [builders.response(it, "y", f"y {it.item_id}") for it in items]
    prefs = []
    for it, ra, rb in zip(items, a, b):
        for shown_first in ("A", "B"):
            first = shown_first
            second = "B" if first == "A" else "A"
            tie = rng.random() < 0.1
            verdict = "tie" if tie else first if rng.random() < POSITION else second
            prefs.append(builders.preference(it, ra, rb, "order-judge", verdict, shown_first=first))
    store.add_items(items, [*a, *b])
    store.add_preferences(prefs)


def test_each_interval_covers_its_injected_bias(store: Store) -> None:
    rng = np.random.default_rng(2026)
    _seed_length(store, rng)
    _seed_family(store, rng)
    _seed_position(store, rng)
    length = bias_module.bias(store, Selection("lengthy", "likert-rag"), families=FAMILIES)
    (judge,) = length.judges
    assert judge.length_beyond_people and judge.length is not None
    assert judge.length.low < LENGTH < judge.length.high and judge.length.n == 150
    family = bias_module.bias(store, Selection("family", "likert-rag"), families=FAMILIES)
    found = {j.judge: j for j in family.judges}
    mine = found["self-judge"].self_preference
    assert mine is not None and mine.low < SELF < mine.high and mine.n == 120
    fair = found["fair-judge"].self_preference  # its family's system is rated fairly by it
    assert fair is not None and fair.low < 0 < fair.high
    order = bias_module.bias(store, Selection("pairs"), families=FAMILIES)
    position = order.judges[0].position
    assert position is not None and position.low < POSITION < position.high
    assert not position.low < 0.5 < position.high


def test_metrics_json_names_the_biases_and_warns_without_people(store: Store) -> None:
    rng = np.random.default_rng(3)
    _seed_family(store, rng)  # no person rated these: the length slope is the raw one
    numbers = metrics_json.compute_all(store, Selection("family"), families=FAMILIES)
    metrics = numbers.json["metrics"]
    entry = metrics["bias.self-judge.self_preference"]
    assert set(entry) == {"value", "low", "high", "n"} and entry["n"] == 120
    assert "bias.self-judge.length" in metrics
    assert "confounded" in numbers.json["notes"]["bias"]["bias.self-judge.length"]
    assert "bias.self-judge.position" not in metrics  # no pairwise verdicts
