"""The Judge lab's Propose loop in Chromium, with real LiteLLM against an OpenAI-compatible
server on 127.0.0.1 that is both the optimizer and the judge (a self-hosted panel file): the
optimizer reads the dev disagreements and proposes revised instructions, each proposal is
scored on dev, a few-shot search runs on dev, and no look at the test split is spent; the
proposal picked is run on the test answers and compared (the looks count rises by exactly
one), then adopted. The server counts every call, so each step's cost is checked. Every step
waits for what it needs (the machine is shared), never for the network to fall idle."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from dashboard.judging import BackgroundLoop, run_judges
from dashboard.judging.panel_files import SelfHostedJudge, save_panel
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from dashboard.workbench import split
from dashboard.workbench.split import DEV, TEST
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    choose,
    settled,
    shoot,
    start_server,
    stop,
)
from tests.support.judge_server import JudgeServer, ModelScript, always

pytestmark = pytest.mark.browser

RUBRIC, DATASET, JUDGE = "likert-rag", "eo-rag", "openai/lab-judge"
STRICT = "You are a strict judge of accuracy. Rate 1 to 5."
REPLY = json.dumps(
    {
        "proposals": [
            {"system": STRICT, "rationale": "the judge is lenient"},
            {"system": "Rate 1 to 5; penalise missing facts.", "rationale": "missing facts"},
            {"description": "no system"},  # unparsed: a proposal must rewrite the system
        ]
    }
)
SETS, EXAMPLES = 2, 2  # the few-shot search: sets of dev labels, examples in each


def _judge_reply(prompt: str) -> str:
    """The loopback judge: a 2 under the strict proposal's instructions, a 4 otherwise, so
    that the proposals' dev numbers differ from the parent's."""
    return "Strict.\nRating: [[2]]" if STRICT in prompt else "Fine.\nRating: [[4]]"


def _keyed(page: Page, key: str) -> Locator:
    """A widget's container by its Streamlit key."""
    return page.locator(f".st-key-{key}")


def _click(page: Page, key: str) -> None:
    settled(page)
    _keyed(page, key).get_by_role("button").click()
    settled(page)


def _type(page: Page, key: str, text: str) -> None:
    """Type into a text input and commit it (Enter); wait until the run it starts is over."""
    settled(page)
    box = _keyed(page, key).locator("input")
    box.fill(text)
    box.press("Enter")
    settled(page)
    expect(box).to_have_value(text)


def _tables(page: Page) -> Locator:
    """The page's tables (their cells: Streamlit keeps an accessible copy of the grid's)."""
    return page.get_by_test_id("stDataFrame")


def _looks(page: Page) -> Locator:
    """The value of the page's count of looks at the test split."""
    return (
        page.get_by_test_id("stMetric")
        .filter(has_text="Looks at the test split since the last adoption")
        .get_by_test_id("stMetricValue")
    )


def _sides(store: Store) -> tuple[int, int]:
    """(dev, test) labelled answers of the split the page will record on its first look."""
    found = split.read_split(store, rubric=RUBRIC, dataset=DATASET)
    sides = list(found.sides.values())
    return sides.count(DEV), sides.count(TEST)


def test_propose_on_dev_pick_compare_on_test_and_adopt(
    sample_store: Store, tmp_path: Path, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    panels = tmp_path / "panels"
    monkeypatch.setenv(PANELS_ENV, str(panels))
    n_dev, n_test = _sides(sample_store)
    assert n_dev > EXAMPLES and n_test > 0 and n_dev + n_test == 30  # eo-rag's labelled answers
    with JudgeServer() as server:
        server.script("lab-judge", ModelScript(reply=_judge_reply))
        server.script("optimizer", ModelScript(reply=always(REPLY)))
        save_panel(SelfHostedJudge("lab-loop", JUDGE, server.url))
        loop = BackgroundLoop(name="lab-propose")
        try:  # the judge's ratings at the rubric file's version, which the lab starts from
            run_judges(sample_store, "lab-loop", RUBRIC, dataset=DATASET, loop=loop)
        finally:
            loop.close()
        calls = server.stats("lab-judge").requests
        process, url = start_server(
            sample_store.url, tmp_path / "streamlit.log", **{PANELS_ENV: str(panels)}
        )
        try:
            page.goto(f"{url}/judge_lab?dataset={DATASET}&rubric={RUBRIC}&judge={JUDGE}")
            settled(page)
            expect(
                page.get_by_text(f"disagreements of {JUDGE} at version 1 on the dev split")
            ).to_be_visible(timeout=STEP_TIMEOUT_MS)
            expect(_looks(page)).to_have_text("0")

            # Propose: one optimizer call, each proposal run on the dev answers only.
            expect(_keyed(page, "jb_lab_propose").get_by_role("button")).to_be_disabled()
            _type(page, "jb_lab_optimizer", "openai/optimizer")
            _type(page, "jb_lab_opt_base", server.url)
            _type(page, "jb_lab_opt_judges", "lab-loop")
            expect(_keyed(page, "jb_lab_propose").get_by_role("button")).to_be_enabled()
            _click(page, "jb_lab_propose")
            expect(page.get_by_text("optimizer:openai/optimizer read", exact=False)).to_be_visible(
                timeout=STEP_TIMEOUT_MS
            )
            proposals = _tables(page)
            # the parent's row, then the two proposals that parsed, each with its rationale
            for cell in ("the parent", "1-wb1", "the judge is lenient", "1-wb2", "missing facts"):
                expect(proposals.get_by_text(cell, exact=True).first).to_be_attached(
                    timeout=STEP_TIMEOUT_MS
                )
            # each proposal's dev numbers: estimate [95% interval] (n = dev labels)
            scored = proposals.get_by_text(re.compile(r"^\d\.\d{3} \[.+\] \(n = \d+\)$"))
            expect(scored.first).to_be_attached()
            expect(
                page.get_by_text("Unparsed: a proposal must rewrite", exact=False)
            ).to_be_visible()
            assert server.stats("optimizer").requests == 1
            assert server.stats("lab-judge").requests == calls + 2 * n_dev  # parent cached
            calls = server.stats("lab-judge").requests
            expect(_looks(page)).to_have_text("0")  # dev only: no look spent

            # A few-shot search on dev: each set's version run on the dev answers it does not
            # show, no look spent.
            number = _keyed(page, "jb_lab_shot_sets").locator("input")
            number.fill(str(SETS))
            number.press("Enter")
            settled(page)
            expect(number).to_have_value(str(SETS))
            _click(page, "jb_lab_shot_search")
            shots = _tables(page)
            expect(shots.get_by_text("1-wb3", exact=True).first).to_be_attached(
                timeout=STEP_TIMEOUT_MS
            )
            expect(shots.get_by_text("1-wb4", exact=True).first).to_be_attached()
            assert server.stats("lab-judge").requests == calls + SETS * (n_dev - EXAMPLES)
            calls = server.stats("lab-judge").requests
            expect(_looks(page)).to_have_text("0")
            shoot(page, "judge_lab_propose")

            # The pick: run on the test answers (dev ones are cached) and compared, one look.
            choose(page, _keyed(page, "jb_lab_picked").get_by_role("combobox"), "1-wb1")
            _click(page, "jb_lab_pick")
            expect(
                page.get_by_text(re.compile(r"^1-wb1 against 1 on \d+ test responses"))
            ).to_be_visible(timeout=STEP_TIMEOUT_MS)
            expect(page.get_by_text("Verdict:", exact=False)).to_be_visible()
            expect(_looks(page)).to_have_text("1")  # exactly one look at the test split
            assert server.stats("lab-judge").requests == calls + n_test  # the pick alone
            candidate = _keyed(page, "jb_lab_candidate").get_by_role("combobox")
            expect(candidate).to_have_value("1-wb1 (draft)")
            # Adopt what was compared: the version the comparison was of is the one offered.
            adopt = _keyed(page, "jb_lab_adopt_v").get_by_role("combobox")
            expect(adopt).to_have_value("1-wb1 (draft)")
            _type(page, "jb_lab_reason", "stricter on accuracy")
            expect(_keyed(page, "jb_lab_adopt").get_by_role("button")).to_be_enabled(
                timeout=STEP_TIMEOUT_MS
            )
            _click(page, "jb_lab_adopt")
            expect(page.get_by_text(f"Adopted 1-wb1 for {JUDGE} on {DATASET}")).to_be_visible(
                timeout=STEP_TIMEOUT_MS
            )
            expect(
                page.get_by_text(f"Judge card: {JUDGE} with {RUBRIC} 1-wb1", exact=False)
            ).to_be_visible()
            expect(_looks(page)).to_have_text("0")  # counted again from the adoption
            assert server.stats("lab-judge").requests == calls + n_test  # adopt: no call
            assert server.stats("optimizer").requests == 1
        finally:
            stop(process)
    # In the store: the pick's comparison and the adoption's own scoring for the card (a
    # look recorded at adoption, so the page counts 0 since it); no other.
    looks = split.looks_since(sample_store, rubric=RUBRIC, dataset=DATASET, since=None, judge=JUDGE)
    assert looks == 2
