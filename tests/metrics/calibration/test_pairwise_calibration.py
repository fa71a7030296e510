"""Pairwise calibration in the metric layer: every convention per judge and for the panel on a
hand-built store (hand arithmetic in the comments), nothing half-scored (win rates and
Bradley-Terry too), and the published sets imported as a user imports them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from dashboard.ingest import import_path
from dashboard.metrics import calibration, overview, registry
from dashboard.metrics.output import gates, metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import pairwise_agreement as pa
from scoring.judge import parse_preference
from tests import builders
from tests.paths import SHARED_DATA

# (verdict with A = "good" shown first, with B shown first); None = did not parse; "-" = not
# asked. Pair 3 has no person; pair 4's people split, so it has no label.
VERDICTS = {
    "j1": [("A", "A"), ("A", None), ("B", "tie"), ("A", "B"), ("B", "B")],
    "j2": [("A", "B"), ("B", "B"), ("tie", "tie"), ("B", "-"), None],
}
PEOPLE = {"ana": ["A", "A", "tie", None, "A"], "ben": ["A", None, "tie", None, "B"]}


def _duel(store: Store) -> None:
    items = [builders.item("duel", n) for n in range(5)]
    good = [builders.response(it, "good", f"paris {n}") for n, it in enumerate(items)]
    bad = [builders.response(it, "bad", f"london {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    prefs = []
    for judge, pairs in VERDICTS.items():
        for it, a, b, orders in zip(items, good, bad, pairs):
            for shown_first, verdict in zip("AB", orders or ("-", "-")):
                if verdict != "-":
                    prefs.append(
                        builders.preference(it, a, b, judge, verdict, shown_first=shown_first)
                    )
    for person, said in PEOPLE.items():
        for it, a, b, verdict in zip(items, good, bad, said):
            if verdict is not None:
                prefs.append(builders.preference(it, a, b, person, verdict, kind="human"))
    store.add_preferences(prefs)


@pytest.fixture
def duel(store: Store) -> Store:
    _duel(store)
    return store


def test_every_convention_per_judge_and_for_the_panel(duel: Store) -> None:
    found = {p.judge: p for p in calibration.calibration(duel, Selection("duel")).preferences}
    assert list(found) == ["j1", "j2", "panel"]
    j1, j2, panel = found["j1"], found["j2"], found["panel"]
    # j1, labelled pairs 0 (label A) and 2 (tie); pair 1 has an unparsed order: unscored.
    # A first: A right, B wrong; B first: A right, tie right -> (1/2 + 2/2) / 2
    # (`accuracy` before issue 28; it is now LLMBar's Acc, just below.)
    assert (j1.accuracy_scored.value, j1.accuracy_scored.n) == (0.75, 2)
    # LLMBar's Acc counts pair 1 (label A: ana's A; ben gave none) with its unparsed verdict
    # as wrong: A first: 0 right, 1 right, 2 wrong (B against tie) = 2/3; B first: 0 right,
    # 1 wrong (unparsed), 2 right = 2/3; (2/3 + 2/3) / 2 over 3 pairs
    assert (j1.accuracy.value, j1.accuracy.n) == (pytest.approx(2 / 3), 3)
    assert j1.accuracy_both_orders.value == 0.5  # pair 0 only
    assert j1.agreement.value == 1.0  # pair 2's inconsistent B/tie is a "tie": rewarded
    assert j1.accuracy_vote.value == 0.5  # pair 2's B + tie leans B
    # kappa on (A, A), (tie, tie): p_o = 1, p_e = 1/2 -> 1
    assert j1.kappa.value == 1.0
    assert (j1.agreement_without_ties.value, j1.agreement_without_ties.n) == (1.0, 1)
    assert j1.coverage_without_ties.value == 0.5
    # both orders, labelled or not: pairs 0, 2, 3, 4; consistent 0 and 4
    assert (j1.consistency.value, j1.consistency.n, j1.flip_rate.value) == (0.5, 4, 0.5)
    # non-tie verdicts and the first position: 0: A y, A n; 2: B n; 3: A y, B y; 4: B n, B y
    assert (j1.position_bias.value, j1.position_bias.n) == (pytest.approx(4 / 7), 7)
    assert (j1.unscored_verdicts, j1.unscored_pairs) == (1, 1)
    # j2 on pairs 0 (A, B | A), 1 (B, B | A), 2 (tie, tie | tie); pair 3 is one order only
    assert j2.accuracy.value == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert j2.agreement.value == pytest.approx(1 / 3) and j2.agreement.n == 3
    assert (j2.consistency.value, j2.consistency.n) == (pytest.approx(2 / 3), 3)
    assert j2.unscored_pairs == 0
    # panel, per order the majority of its judges (a split is a tie, unparsed skipped):
    # 0: (A, tie); 1: (A vs B = tie, B alone = B); 2: (B vs tie = tie, tie); 3: (tie, B);
    # 4: (B, B). Labelled: 0 tie vs A, 1 tie vs A, 2 tie vs tie.
    assert (panel.agreement.value, panel.agreement.n) == (pytest.approx(1 / 3), 3)
    assert (panel.consistency.value, panel.consistency.n) == (pytest.approx(2 / 5), 5)


def test_the_label_is_the_people_majority_of_their_reconciled_verdicts(duel: Store) -> None:
    cal = calibration.calibration(duel, Selection("duel"))
    # ana 4 verdicts, ben 3; pair 4 (A against B) has no strict majority and no label
    assert cal.n_human_preferences == 7
    j1 = next(p for p in cal.preferences if p.judge == "j1")
    assert j1.n_pairs == 2


def test_the_json_names_every_convention(duel: Store) -> None:
    _, _, found = metrics_json.compute(duel, Selection("duel"))
    numbers = found["metrics"]
    for judge in ("j1", "j2", "panel"):
        for metric in registry.PREFERENCE_AGREEMENT_METRICS:
            name = registry.fill(metric.name, judge=judge)
            if judge == "panel" and metric.key == "agreement_without_ties":
                # the panel's labelled verdicts are all ties: nothing behind it, so absent
                assert name not in numbers
                continue
            assert name in numbers, name
            assert registry.declared(name) is metric
    assert numbers["calibration.pairwise.j1.accuracy_scored"] == {
        "value": 0.75,
        "low": numbers["calibration.pairwise.j1.accuracy_scored"]["low"],
        "high": numbers["calibration.pairwise.j1.accuracy_scored"]["high"],
        "n": 2,
    }
    assert numbers["calibration.pairwise.j1.accuracy"]["n"] == 3  # LLMBar's: pair 1 too
    assert numbers["calibration.pairwise.j1.unscored_pairs"]["value"] == 1
    conventions = found["notes"]["conventions"]["calibration.pairwise"]
    assert set(conventions) == {m.name for m in registry.PREFERENCE_AGREEMENT_METRICS}
    assert "LLMBar" in conventions["calibration.pairwise.<judge>.accuracy"]
    json.dumps(found, allow_nan=False)


def test_a_gate_on_agreement_without_ties_cannot_pass_on_a_sliver(duel: Store) -> None:
    _, _, found = metrics_json.compute(duel, Selection("duel"))
    numbers = found["metrics"]
    # j1's agreement without ties is 1.0, on 1 of its 2 labelled pairs
    sliver = [
        gates.parse_gate("calibration.pairwise.j1.agreement_without_ties=0.7"),
        gates.parse_gate("calibration.pairwise.j1.coverage_without_ties=0.6"),
    ]
    (failed,) = gates.failures(numbers, sliver)
    assert failed.startswith("calibration.pairwise.j1.coverage_without_ties = 0.5 is under")
    # the interval's low end alone lets the sliver through: one pair right is [1, 1]
    alone = gates.parse_gate("calibration.pairwise.j1.agreement_without_ties.low=0.7")
    assert gates.failures(numbers, [alone]) == []
    # or gate on how many pairs are behind it
    low = gates.parse_gate("calibration.pairwise.j1.agreement_without_ties.n=5")
    assert gates.failures(numbers, [low]) == [
        "calibration.pairwise.j1.agreement_without_ties.n = 1 is under the threshold 5"
    ]


def _win_rate(view: overview.Overview, system: str, raters: str) -> tuple[float, int]:
    row = next(r for r in view.systems if r.system == system)
    estimate = row.score(f"win_rate.{raters}")
    assert estimate is not None
    return estimate.value, estimate.n


def test_an_unparsed_order_never_lets_the_other_stand_in_for_the_pair(store: Store) -> None:
    """Before, pair 1's A-first "A" stood in for it: good won it (the judges' win rate 0.5
    over 2 verdicts, 2 battles) and calibration counted it as an agreement."""
    items = [builders.item("solo", n) for n in range(2)]
    good = [builders.response(it, "good", f"paris {n}") for n, it in enumerate(items)]
    bad = [builders.response(it, "bad", f"london {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    p = builders.preference
    store.add_preferences(
        [
            p(items[0], good[0], bad[0], "j1", "B", shown_first="A"),
            p(items[0], good[0], bad[0], "j1", "B", shown_first="B"),
            p(items[1], good[1], bad[1], "j1", "A", shown_first="A"),
            p(items[1], good[1], bad[1], "j1", None, shown_first="B"),
            p(items[1], good[1], bad[1], "ana", "A", kind="human"),
        ]
    )
    view = overview.overview(store, Selection("solo"))
    # j1's only scored pair is a loss for good; ana's one pair is a win
    assert _win_rate(view, "good", "judges") == (0.0, 1)
    assert _win_rate(view, "good", "people") == (1.0, 1)
    judges, people = view.pairwise.of("judges"), view.pairwise.of("people")
    assert judges is not None and people is not None
    # one battle each: j1's pair 0 and ana's pair 1, nothing else
    assert {s.system: s.n_battles for s in judges.bradley_terry} == {"good": 1, "bad": 1}
    assert {s.system: s.n_battles for s in people.bradley_terry} == {"good": 1, "bad": 1}
    j1 = next(p for p in calibration.calibration(store, Selection("solo")).preferences)
    assert j1.judge == "j1" and j1.agreement.n == 0 and j1.unscored_pairs == 1
    assert j1.unscored_verdicts == 1 and j1.consistency.n == 1


def test_label_free_conventions_for_a_judge_nobody_checked(store: Store) -> None:
    """Pairs nobody voted on: consistency, flip rate and position bias come from the counts
    of every pair; the conventions against a label have nothing behind them."""
    items = [builders.item("free", n) for n in range(4)]
    good = [builders.response(it, "good", f"paris {n}") for n, it in enumerate(items)]
    bad = [builders.response(it, "bad", f"london {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    said = [("A", "A"), ("A", "B"), ("A", "B"), ("tie", None)]  # the judge likes position 1
    store.add_preferences(
        [
            builders.preference(it, a, b, "j", v, shown_first=side)
            for it, a, b, orders in zip(items, good, bad, said)
            for side, v in zip("AB", orders)
        ]
    )
    cal = calibration.calibration(store, Selection("free"))
    j = next(p for p in cal.preferences if p.judge == "j")
    assert (j.consistency.value, j.consistency.n) == (pytest.approx(1 / 3), 3)
    # non-tie verdicts 6, of them first position: A, A | A, B | A, B -> 5
    assert (j.position_bias.value, j.position_bias.n) == (pytest.approx(5 / 6), 6)
    assert j.agreement.n == 0 and j.unscored_pairs == 1
    _, _, found = metrics_json.compute(store, Selection("free"))
    assert "calibration.pairwise.j.agreement" not in found["metrics"]  # nothing behind it
    assert found["metrics"]["calibration.pairwise.j.flip_rate"]["value"] == pytest.approx(2 / 3)


def test_the_sql_counts_and_the_per_pair_reads_agree(duel: Store) -> None:
    """The same pairs with their people removed go through the SQL counts: every
    label-free convention and unscored count stays as it was."""
    before = {p.judge: p for p in calibration.calibration(duel, Selection("duel")).preferences}
    with duel.connection() as con:
        con.execute("DELETE FROM preferences WHERE rater_kind = 'human'")
    after = {p.judge: p for p in calibration.calibration(duel, Selection("duel")).preferences}
    for judge in ("j1", "j2", "panel"):
        for key in ("consistency", "flip_rate", "position_bias"):
            assert getattr(after[judge], key) == getattr(before[judge], key), (judge, key)
        assert after[judge].unscored_pairs == before[judge].unscored_pairs
        assert after[judge].agreement.n == 0


# -- the published sets, imported as a user imports them ---------------------------------


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("published") / "published.duckdb", wait_s=30)
    import_path(store, SHARED_DATA / "llmbar")
    import_path(store, SHARED_DATA / "pandalm")
    return store


def _judge(cal: calibration.Calibration, name: str) -> calibration.PreferenceAgreement:
    (found,) = [p for p in cal.preferences if name in p.judge]
    return found


@pytest.mark.parametrize(
    ("judge", "acc", "both_orders", "positional"),
    [("gpt-4", 0.955, 0.93, 0.95), ("chatgpt", 0.815, 0.67, 0.71)],
)
def test_llmbar_natural_reproduces_its_own_statistics(
    published: Store, judge: str, acc: float, both_orders: float, positional: float
) -> None:
    # LLMBar's evaluate.py: correct_average, correct_both and equal over its 100 pairs
    found = _judge(calibration.calibration(published, Selection("llmbar")), judge)
    assert found.accuracy.value == pytest.approx(acc) and found.accuracy.n == 100
    assert found.accuracy_both_orders.value == pytest.approx(both_orders)
    assert found.consistency.value == pytest.approx(positional)
    assert found.flip_rate.value == pytest.approx(1 - positional)
    assert (found.unscored_verdicts, found.unscored_pairs) == (0, 0)


PANDALM = SHARED_DATA / "pandalm"
ANNOTATOR = {0: "tie", 1: "A", 2: "B"}
JUDGE_FILES = {
    "gpt-3.5-turbo": ("gpt-3.5-turbo-testset-v1.json", "gpt_result"),
    "pandalm-7b": ("pandalm-7b-testset-v1.json", "pandalm_result"),
}


def _pandalm_expected(judge: str) -> tuple[float, int, int, float]:
    """(accuracy, scored pairs, unscored, kappa) straight from the raw files: the three
    annotators' strict majority against the judge's single-order verdict."""
    from sklearn.metrics import cohen_kappa_score

    pairs = json.loads((PANDALM / "testset-v1.json").read_text(encoding="utf-8"))
    file, field = JUDGE_FILES[judge]
    said = {r["idx"]: str(r[field]) for r in json.loads((PANDALM / file).read_text("utf-8"))}
    verdict = {"1": "A", "2": "B", "Tie": "tie", "0": "tie"}
    scored, unscored = [], 0
    for p in pairs:
        top, count = Counter(ANNOTATOR[p[f"annotator{n}"]] for n in (1, 2, 3)).most_common(1)[0]
        if count < 2:
            continue
        if said[p["idx"]] not in verdict:
            unscored += 1
            continue
        scored.append((verdict[said[p["idx"]]], top))
    hits = sum(s == t for s, t in scored) / len(scored)
    kappa = cohen_kappa_score(*zip(*scored), labels=["A", "B", "tie"])
    return hits, len(scored), unscored, kappa


@pytest.mark.parametrize("judge", list(JUDGE_FILES))
def test_pandalm_judges_against_the_annotators_majority(published: Store, judge: str) -> None:
    accuracy, n, unscored, kappa = _pandalm_expected(judge)
    found = _judge(calibration.calibration(published, Selection("pandalm")), judge)
    # one order only: per-order accuracy, agreement and the vote are the same number
    for estimate in (found.accuracy_scored, found.agreement, found.accuracy_vote):
        assert (estimate.value, estimate.n) == (pytest.approx(accuracy), n)
    # LLMBar's Acc counts the unparsed verdicts as wrong: hits / (scored + unscored)
    assert (found.accuracy.value, found.accuracy.n) == (
        pytest.approx(accuracy * n / (n + unscored)),
        n + unscored,
    )
    assert found.kappa.value == pytest.approx(kappa)
    assert found.unscored_pairs == found.unscored_verdicts == unscored
    # nothing was judged in both orders
    assert found.accuracy_both_orders.n == found.consistency.n == found.position_bias.n == 0
    assert pa.pairwise_agreement(pa.count_table([])).consistency.n == 0


def test_pandalm_figures(published: Store) -> None:
    # 25 'garbage' GPT-3.5 outputs are unscored pairs, never disagreements: 697 of 974
    gpt = _judge(calibration.calibration(published, Selection("pandalm")), "gpt-3.5")
    assert (gpt.agreement.value, gpt.unscored_pairs) == (pytest.approx(697 / 974), 25)
    pandalm = _judge(calibration.calibration(published, Selection("pandalm")), "pandalm-7b")
    assert pandalm.agreement.value == pytest.approx(667 / 999)


MT_BENCH = SHARED_DATA / "mt_bench"
# FastChat MT-Bench pair games in gpt-4_pair.jsonl's terms: the judge's raw text in game 1
# (model_1's answer shown as A) and game 2 (model_2's answer shown as A), and the expert's vote.
MT_BENCH_GAMES = [
    ("[[A]]", "[[B]]", "model_a"),  # model_1 twice: right
    ("[[A]]", "[[A]]", "tie"),  # inconsistent, so a tie: right (FastChat rewards it)
    ("[[C]]", "[[C]]", "model_b"),  # tie: wrong
    ("[[B]]", "[[A]]", "model_b"),  # model_2 twice: right
    ("I cannot decide between them.", "[[B]]", "model_a"),  # an error game: unscored
    ("[[A]]", "[[C]]", "model_a"),  # inconsistent: a tie, wrong
    ("[[B]]", "[[B]]", "model_b"),  # inconsistent: a tie, wrong
    ("[[A]]", "[[B]]", "model_b"),  # model_1 twice: wrong
]


def _fastchat_winner(judgment: str) -> str:
    """FastChat's run_judge_pair: the [[A]]/[[B]]/[[C]] marker, else "error"."""
    for marker, winner in (("[[A]]", "A"), ("[[B]]", "B"), ("[[C]]", "tie")):
        if marker in judgment:
            return winner
    return "error"


def _fastchat_agreement(games: list[tuple[str, str, str]], *, ties: bool) -> tuple[int, int]:
    """FastChat's compute_agreement for a GPT-4 pair judge against the experts: error games
    dropped (show_result.py), a game pair that disagrees is "tie (inconsistent)", a vote with
    "tie" in it is a tie (convertvote, equalvote), and `ban` = ["tie"] without ties."""
    hits = total = 0
    for g1, g2, human in games:
        first, second = _fastchat_winner(g1), _fastchat_winner(g2)
        if "error" in (first, second):
            continue
        g1_winner = {"A": "model_a", "B": "model_b"}.get(first, first)
        g2_winner = {"A": "model_b", "B": "model_a"}.get(second, second)
        judge = g1_winner if g1_winner == g2_winner else "tie (inconsistent)"
        if not ties and ("tie" in judge or "tie" in human):
            continue
        total += 1
        hits += ("tie" in judge and "tie" in human) or judge == human
    return hits, total


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_mt_bench_agreement_is_fastchats(store: Store) -> None:
    """MT-Bench pair games on MT-Bench's own questions, judged in FastChat's pair-v2 verdict
    format, through judgeboard's parser and metric layer: `agreement` and
    `agreement_without_ties` are FastChat's compute_agreement numbers, and the error game is
    an unscored pair, not a tie. (The shared MT-Bench judgments are single-answer grades; the
    games here are hand-built in the pair files' terms.)"""
    prompts = [json.loads(line) for line in _lines(MT_BENCH / "judge_prompts.jsonl")]
    pair_v2 = next(p for p in prompts if p["name"] == "pair-v2")
    assert '"[[C]]" for a tie' in pair_v2["system_prompt"]
    questions = [json.loads(line) for line in _lines(MT_BENCH / "question.jsonl")]
    items = [
        builders.item("mt-bench", q["question_id"], task_type="pairwise")
        for q in questions[: len(MT_BENCH_GAMES)]
    ]
    first = [builders.response(it, "model_1", f"answer 1 to {it.item_id}") for it in items]
    second = [builders.response(it, "model_2", f"answer 2 to {it.item_id}") for it in items]
    store.add_items(items, first + second)
    swap = {"A": "B", "B": "A", "tie": "tie", None: None}
    vote = {"model_a": "A", "model_b": "B", "tie": "tie"}
    prefs = []
    for it, a, b, (g1, g2, human) in zip(items, first, second, MT_BENCH_GAMES):
        said_1, said_2 = parse_preference(g1).verdict, parse_preference(g2).verdict
        prefs.append(builders.preference(it, a, b, "gpt-4", said_1, shown_first="A"))
        # game 2 shows model_2's answer as A: its verdict in the pair's frame is swapped
        prefs.append(builders.preference(it, a, b, "gpt-4", swap[said_2], shown_first="B"))
        prefs.append(builders.preference(it, a, b, "expert_0", vote[human], kind="human"))
    store.add_preferences(prefs)
    found = _judge(calibration.calibration(store, Selection("mt-bench")), "gpt-4")
    # with ties: games 1-4 and 6-8, right on 1, 2 and 4; without: 1, 4 and 8, right on 1 and 4
    assert _fastchat_agreement(MT_BENCH_GAMES, ties=True) == (3, 7)
    assert _fastchat_agreement(MT_BENCH_GAMES, ties=False) == (2, 3)
    assert (found.agreement.value, found.agreement.n) == (pytest.approx(3 / 7), 7)
    without = found.agreement_without_ties
    assert (without.value, without.n) == (pytest.approx(2 / 3), 3)
    assert (found.unscored_verdicts, found.unscored_pairs) == (1, 1)
    # LLMBar's both-orders accuracy counts game 2 wrong where FastChat counts it right:
    # both orders right on games 1 and 4 only
    assert found.accuracy_both_orders.value == pytest.approx(2 / 7)
