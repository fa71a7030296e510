"""Pairwise comparisons: win rates, position-swap reconciliation and Bradley-Terry ratings.

Verdicts use the canonical frame of `dashboard.types.VERDICTS`: "A" means system A's response
is better whichever side it was shown on, "B" the opposite, "tie" neither; None is unscored.

One rater's judgment of a pair is its verdict in each presentation order (A shown first, B
shown first). Each order is a verdict, None when it was judged but its verdict did not parse,
or NOT_JUDGED; `pair_verdict` is the one rule that makes a pair's verdict of them, and every
number of judgeboard (win rates, Bradley-Terry, calibration, a run's flip rate) uses it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scoring.stats import CI, percentile_ci

OUTCOMES: tuple[str, ...] = ("win", "tie", "loss")
VERDICTS: tuple[str, ...] = ("A", "B", "tie")
# An order the rater was never asked about: not a verdict, and not an unparsed one either.
NOT_JUDGED = "not judged"


@dataclass(frozen=True)
class WinRateDetail:
    """System A's record against B; `win_rate` and `standard_error` are fractions, not %."""

    n_wins: int
    n_losses: int
    n_ties: int
    n_unscored: int
    win_rate: float
    standard_error: float


def _count_outcomes(outcomes: Sequence[str | None]) -> Counter[str | None]:
    counts: Counter[str | None] = Counter(outcomes)
    unknown = set(counts) - set(OUTCOMES) - {None}
    if unknown:
        raise ValueError(
            f"outcomes must be 'win', 'tie', 'loss' or None; got {sorted(map(str, unknown))}"
        )
    return counts


def win_rate_detail(outcomes: Sequence[str | None]) -> WinRateDetail:
    """Win rate of system A with a tie as half a win, and its standard error.

    Each scored instance scores s = 1 (win), 0.5 (tie) or 0 (loss); win_rate = mean(s) and
    standard_error = std(s, ddof=1) / sqrt(n). This is how the AlpacaEval leaderboard computes
    `win_rate` and `standard_error` (there in percent; multiply by 100). None entries are
    unscored and only counted. With no scored instance win_rate is nan; with fewer than two,
    standard_error is nan.
    """
    counts = _count_outcomes(outcomes)
    wins, ties, losses = counts["win"], counts["tie"], counts["loss"]
    n = wins + ties + losses
    rate = (wins + 0.5 * ties) / n if n else math.nan
    if n >= 2:
        # sum of squared scores is wins * 1 + ties * 0.25; var = (sum s^2 - n mean^2) / (n - 1)
        variance = max(wins + 0.25 * ties - n * rate * rate, 0.0) / (n - 1)
        standard_error = math.sqrt(variance / n)
    else:
        standard_error = math.nan
    return WinRateDetail(wins, losses, ties, counts[None], rate, standard_error)


def win_rate(outcomes: Mapping[str, Sequence[str | None]]) -> float:
    """Win rate of system A averaged over evaluators (EVE).

    WR_A = mean over evaluators e of (wins_e + 0.5 ties_e) / (wins_e + ties_e + losses_e), so
    every evaluator weighs the same however many verdicts it gave. `outcomes` maps an
    evaluator to its "win"/"tie"/"loss" verdicts for A (None = unscored, skipped). Evaluators
    with no scored verdict are left out; with none left the result is nan.
    """
    rates = [win_rate_detail(seq).win_rate for seq in outcomes.values()]
    rates = [r for r in rates if not math.isnan(r)]
    return sum(rates) / len(rates) if rates else math.nan


def win_rate_ci(
    counts: Mapping[str, Sequence[int]],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """EVE win rate (see `win_rate`) from per-evaluator (wins, ties, losses) counts, with a
    percentile bootstrap CI.

    The bootstrap is stratified by evaluator: each evaluator's verdicts are resampled on
    their own (multinomial counts over win/tie/loss), and each replicate averages the
    evaluators' rates, as the estimate does. Evaluators with no verdict are left out; with
    none left the result is CI(nan, nan, nan). A negative count raises ValueError.
    """
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples!r}")
    table = np.array([list(c) for c in counts.values()], dtype=np.int64).reshape(-1, 3)
    if (table < 0).any():
        raise ValueError("counts must be (wins, ties, losses) with no negative count")
    table = table[table.sum(axis=1) > 0]
    if len(table) == 0:
        return CI(math.nan, math.nan, math.nan)
    points = np.array([1.0, 0.5, 0.0])
    n = table.sum(axis=1)
    estimate = float(np.mean(table @ points / n))
    rng = np.random.default_rng(seed)
    replicates = np.zeros(n_resamples)
    for row, n_e in zip(table, n):
        replicates += rng.multinomial(n_e, row / n_e, size=n_resamples) @ points / n_e
    return percentile_ci(estimate, replicates / len(table), confidence=confidence)


def _check_verdict(verdict: str | None) -> None:
    if verdict is not None and verdict not in VERDICTS:
        raise ValueError(f"verdict must be 'A', 'B', 'tie' or None, got {verdict!r}")


def reconcile_swap(first: str | None, second: str | None) -> str | None:
    """One verdict from a judgment made in both presentation orders (FastChat's rule).

    Both verdicts are already in the canonical A/B frame. If they agree, that verdict is
    returned; if they disagree (including "A" against "tie") the pair counts as "tie", as
    FastChat counts an inconsistent pair. If either is None (unscored) the result is None:
    half a judgment is not a judgment.
    """
    _check_verdict(first)
    _check_verdict(second)
    if first is None or second is None:
        return None
    return first if first == second else "tie"


def _check_order(state: str | None) -> None:
    if state != NOT_JUDGED:
        _check_verdict(state)


def order_state(verdict: str | None, *, judged: bool) -> str | None:
    """An order as `pair_verdict` reads it: the verdict when the order was judged (None when
    it did not parse), NOT_JUDGED when it was not."""
    _check_verdict(verdict)
    if not judged and verdict is not None:
        raise ValueError(f"an order that was not judged has no verdict, got {verdict!r}")
    return verdict if judged else NOT_JUDGED


def is_unscored_pair(shown_a_first: str | None, shown_b_first: str | None) -> bool:
    """True when an order of the pair was judged and its verdict did not parse."""
    _check_order(shown_a_first)
    _check_order(shown_b_first)
    return shown_a_first is None or shown_b_first is None


def in_both_orders(shown_a_first: str | None, shown_b_first: str | None) -> bool:
    """True when both orders were judged and both verdicts parsed."""
    return not is_unscored_pair(shown_a_first, shown_b_first) and NOT_JUDGED not in (
        shown_a_first,
        shown_b_first,
    )


def pair_verdict(shown_a_first: str | None, shown_b_first: str | None) -> str | None:
    """One rater's verdict on a pair, from its two presentation orders.

    Each argument is the canonical verdict of the order (None: judged, did not parse;
    NOT_JUDGED: never asked):
    - both orders scored: `reconcile_swap` (agreeing verdicts stand, else "tie": FastChat);
    - one order judged and scored, the other never asked: that order's verdict;
    - an order that did not parse: None. The pair is unscored; the other order never stands
      in for it, so it is neither consistent nor correct under any convention.
    Neither order judged raises ValueError: that rater has no judgment of the pair.
    """
    if is_unscored_pair(shown_a_first, shown_b_first):
        return None
    if shown_a_first == NOT_JUDGED and shown_b_first == NOT_JUDGED:
        raise ValueError("a pair needs at least one judged order")
    if shown_b_first == NOT_JUDGED:
        return shown_a_first
    if shown_a_first == NOT_JUDGED:
        return shown_b_first
    return reconcile_swap(shown_a_first, shown_b_first)


def panel_order_verdict(verdicts: Sequence[str | None]) -> str | None:
    """A panel's verdict in one presentation order, from its judges' verdicts in that order.

    The strict majority of the scored verdicts (None entries did not parse and are skipped);
    no strict majority (A against B, or A against tie) is a tie. None when some judge judged
    the order but none scored it; NOT_JUDGED when no judge judged it (empty input).
    """
    for verdict in verdicts:
        _check_verdict(verdict)
    if not verdicts:
        return NOT_JUDGED
    scored = [v for v in verdicts if v is not None]
    if not scored:
        return None
    verdict, count = Counter(scored).most_common(1)[0]
    return verdict if count * 2 > len(scored) else "tie"


def flip_rate(firsts: Sequence[str | None], seconds: Sequence[str | None]) -> float:
    """Share of pairs judged in both orders whose two canonical verdicts differ (position
    inconsistency): 1 - consistency.

    `firsts` and `seconds` are order states (see `pair_verdict`); only pairs `in_both_orders`
    count, so a pair with an order that did not parse, or was not judged, is left out. No
    such pair gives nan. Sequences of different lengths raise ValueError.
    """
    if len(firsts) != len(seconds):
        raise ValueError(f"firsts has {len(firsts)} verdicts but seconds has {len(seconds)}")
    pairs = [(f, s) for f, s in zip(firsts, seconds) if in_both_orders(f, s)]
    if not pairs:
        return math.nan
    return sum(f != s for f, s in pairs) / len(pairs)


ELO_BASE = 10.0
ELO_SCALE = 400.0
ELO_ANCHOR = 1000.0
_MAX_NEWTON_STEPS = 100
_NEWTON_TOL = 1e-10


@dataclass(frozen=True)
class SystemRating:
    """A Bradley-Terry rating on the Elo scale with its bootstrap percentile interval."""

    rating: float
    low: float
    high: float
    n_battles: int


@dataclass(frozen=True)
class BradleyTerryFit:
    """Ratings per system; `reason` says why they are nan when no finite fit exists.

    `n_bootstrap_used` counts the bootstrap replicates that had a finite fit; the others
    (where a resample left some group of systems without a win or a loss against the rest)
    are left out of the interval.
    """

    ratings: Mapping[str, SystemRating]
    n_bootstrap_used: int
    reason: str | None = None


def _win_matrices(cell_index: np.ndarray, cell_counts: np.ndarray, n_systems: int) -> np.ndarray:
    """W[b, i, j] = wins of i over j in replicate b, a tie counting half to each side."""
    pair, outcome = np.divmod(cell_index, 3)
    a, b = np.divmod(pair, n_systems)
    counts = np.asarray(cell_counts, dtype=float).T  # cells x replicates
    flat = np.zeros((n_systems * n_systems, counts.shape[1]))
    a_side = np.where(outcome == 0, 1.0, np.where(outcome == 2, 0.5, 0.0))
    np.add.at(flat, a * n_systems + b, counts * a_side[:, None])
    np.add.at(flat, b * n_systems + a, counts * (1.0 - a_side)[:, None])
    return flat.T.reshape(-1, n_systems, n_systems)


def _has_finite_mle(wins: np.ndarray) -> np.ndarray:
    """Per replicate: is the "scored against" digraph strongly connected (Hunter 2004)?"""
    k = wins.shape[-1]
    reach = ((wins > 0) | np.eye(k, dtype=bool)).astype(np.float64)
    for _ in range(max(1, math.ceil(math.log2(k)))):
        reach = (reach @ reach > 0).astype(np.float64)
    return np.asarray(reach.reshape(len(wins), -1).all(axis=1), dtype=bool)


def _log_likelihood(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    diff = theta[:, :, None] - theta[:, None, :]
    return -(wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))


def _fit_theta(wins: np.ndarray) -> np.ndarray:
    """Unregularized MLE of log-strengths (mean 0) by damped Newton, batched over replicates."""
    n_rep, k, _ = wins.shape
    games = wins + wins.transpose(0, 2, 1)
    theta = np.zeros((n_rep, k))
    centre = np.full((k, k), 1.0 / k)  # fixes the free additive constant of theta
    for _ in range(_MAX_NEWTON_STEPS):
        # P(i beats j) = sigmoid(theta_i - theta_j), written with tanh so it cannot overflow.
        p = 0.5 * (1.0 + np.tanh((theta[:, :, None] - theta[:, None, :]) / 2))
        grad = (wins - games * p).sum(axis=2)
        info = games * p * (1.0 - p)
        laplacian = np.eye(k) * info.sum(axis=2)[:, :, None] - info
        step = np.linalg.solve(laplacian + centre, grad[:, :, None])[:, :, 0]
        # Backtrack where a full step lowers the likelihood; the log-likelihood is concave.
        base = _log_likelihood(wins, theta)
        scale = np.ones(n_rep)
        for _ in range(30):
            worse = _log_likelihood(wins, theta + scale[:, None] * step) < base - 1e-12
            if not worse.any():
                break
            scale[worse] /= 2
        theta = theta + scale[:, None] * step
        theta -= theta.mean(axis=1, keepdims=True)
        if np.abs(scale[:, None] * step).max(initial=0.0) < _NEWTON_TOL:
            break
    return theta


def _elo_ratings(wins: np.ndarray) -> np.ndarray:
    ok = _has_finite_mle(wins)
    ratings = np.full(wins.shape[:2], np.nan)
    if ok.any():
        theta = _fit_theta(wins[ok])
        ratings[ok] = ELO_ANCHOR + ELO_SCALE / math.log(ELO_BASE) * theta
    return ratings


def _encode_battles(
    battles: Sequence[tuple[str, str, str]],
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    systems = sorted({s for a, b, _ in battles for s in (a, b)})
    index = {s: i for i, s in enumerate(systems)}
    code = {"A": 0, "B": 1, "tie": 2}
    keys = np.empty(len(battles), dtype=np.int64)
    played = np.zeros(len(systems), dtype=np.int64)
    for row, (a, b, outcome) in enumerate(battles):
        if a == b or outcome not in code:
            raise ValueError(
                f"battle {row} must be (system_a, system_b, 'A'|'B'|'tie') with two different "
                f"systems, got {(a, b, outcome)!r}"
            )
        keys[row] = (index[a] * len(systems) + index[b]) * 3 + code[outcome]
        played[[index[a], index[b]]] += 1
    cells, counts = np.unique(keys, return_counts=True)
    return systems, cells, counts, played


def bradley_terry(
    battles: Sequence[tuple[str, str, str]],
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> BradleyTerryFit:
    """Bradley-Terry ratings on the Elo scale, with seeded bootstrap percentile intervals.

    P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)). The fit is the unregularized maximum
    likelihood (Newton's method) with a tie counted as half a win for each side, as in
    Chatbot Arena's `compute_mle_elo`. Anchor: the mean rating over systems is 1000. Each
    bootstrap replicate resamples the battles with replacement (multinomial counts over
    distinct battles, which is the same distribution).

    The MLE is finite only if every split of the systems into two groups has a win or tie
    in both directions (Hunter 2004); otherwise (perfect separation, a disconnected
    comparison graph) all ratings are nan and `reason` says why. No battles gives an empty
    mapping. With n_bootstrap = 0 the intervals are nan.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if len(battles) == 0:
        return BradleyTerryFit({}, 0, "no battles")
    systems, cells, counts, played = _encode_battles(battles)
    k = len(systems)
    point = _elo_ratings(_win_matrices(cells, counts[None, :], k))[0]
    reason = None
    low = high = np.full(k, np.nan)
    n_used = 0
    if np.isnan(point).any():
        reason = (
            "no finite maximum-likelihood fit: some group of systems never won, never lost or "
            "never played against the others; add battles that connect them"
        )
    elif n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        draws = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=n_bootstrap)
        reps = _elo_ratings(_win_matrices(cells, draws, k))
        reps = reps[~np.isnan(reps).any(axis=1)]
        n_used = len(reps)
        if n_used:
            alpha = (1.0 - confidence) / 2
            low, high = np.quantile(reps, [alpha, 1.0 - alpha], axis=0)
    ratings = {
        s: SystemRating(float(point[i]), float(low[i]), float(high[i]), int(played[i]))
        for i, s in enumerate(systems)
    }
    return BradleyTerryFit(ratings, n_used, reason)
