"""The corrected win rate on real data: PandaLM's 999 pairs with GPT-3.5 as the judge and the
three annotators' majority as people's verdict on a random 10% of the pairs (seeded), read
through the store and checked against ppi_py on the same numbers."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numpy as np
import ppi_py
import pytest

from dashboard.metrics import corrected
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.builders import item, preference, response
from tests.paths import SHARED_DATA

PANDALM = SHARED_DATA / "pandalm"
GPT = {"1": "A", "2": "B", "Tie": "tie"}  # "garbage" did not parse
HUMAN = {1: "A", 2: "B", 0: "tie"}
SCORE = {"A": 1.0, "tie": 0.5, "B": 0.0}


def _majority(row: dict) -> str:
    verdict, count = Counter(row[f"annotator{k}"] for k in (1, 2, 3)).most_common(1)[0]
    return HUMAN[verdict] if count >= 2 else "tie"


def test_pandalm_corrected_win_rate_equals_ppi_py(store: Store) -> None:
    pairs = json.loads((PANDALM / "testset-v1.json").read_text(encoding="utf-8"))
    gpt = {
        g["idx"]: g["gpt_result"]
        for g in json.loads((PANDALM / "gpt-3.5-turbo-testset-v1.json").read_text(encoding="utf-8"))
    }
    items = [item("pandalm", p["idx"]) for p in pairs]
    first = [response(it, "first", str(p["response1"])) for it, p in zip(items, pairs)]
    second = [response(it, "second", str(p["response2"]) + " ") for it, p in zip(items, pairs)]
    store.add_items(items, first + second)
    labelled = set(np.random.default_rng(0).choice(len(pairs), len(pairs) // 10, replace=False))
    prefs = []
    for n, (it, a, b, p) in enumerate(zip(items, first, second, pairs)):
        prefs.append(preference(it, a, b, "gpt-3.5", GPT.get(gpt[p["idx"]])))
        if n in labelled:
            human = preference(it, a, b, "majority", _majority(p), kind="human")
            prefs.append(dataclasses.replace(human, selection="random"))
    store.add_preferences(prefs)

    f_all = np.array([SCORE.get(GPT.get(gpt[p["idx"]], ""), np.nan) for p in pairs])
    y_all = np.array([SCORE[_majority(p)] for p in pairs])
    mask = np.zeros(len(pairs), dtype=bool)
    mask[sorted(labelled)] = True
    scored = ~np.isnan(f_all)
    y, yhat, rest = y_all[mask & scored], f_all[mask & scored], f_all[~mask & scored]
    low, high = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05))
    point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, rest))[0])

    found = corrected.corrected(store, Selection("pandalm", panel="gpt-3.5")).head_to_head
    win = found[0].win_rate
    assert (found[0].system_a, found[0].system_b) == ("first", "second")
    assert win.corrected is not None
    assert (win.corrected.value, win.corrected.low, win.corrected.high) == pytest.approx(
        (point, low, high), abs=1e-9
    )
    assert win.human_only is not None and win.human_only.n == 99
    assert win.human_only.value == pytest.approx(y_all[mask].mean())
    assert win.judge_only is not None and win.judge_only.n == int(scored.sum())  # 974 parsed
    # The corrected interval sits around the people's win rate over all 999 pairs.
    assert win.corrected.low < y_all.mean() < win.corrected.high
