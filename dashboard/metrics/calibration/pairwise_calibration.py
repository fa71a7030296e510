"""Pairwise calibration: each judge, and the panel, against the people's verdict on a pair,
under every published convention (`scoring.pairwise_agreement`).

Each judge's pairs become one count table over (verdict with A shown first, verdict with B
shown first, label). The pairs a person judged come whole (bounded by the human labels) and
carry their label; the pairs nobody judged come as counts from SQL, unlabelled, and feed the
conventions that need no label (consistency, flip rate, position bias) and the unscored
counts. Definitions:
- A rater's verdict on a pair is `scoring.pairwise.pair_verdict` of its two orders: both
  orders reconciled (an inconsistent pair is a tie), or the one order it judged; an order
  that did not parse makes the pair unscored.
- The label of a pair is the strict majority of its people's verdicts (each person's by the
  same rule); a pair without one has no label.
- The panel's verdict in one order is `scoring.pairwise.panel_order_verdict` of its judges'
  verdicts in that order: their strict majority, a split being a tie; unscored when no
  judge's verdict in that order parsed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dashboard.metrics.calibration import calibration_sql as sql
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.overview import order_states
from scoring import pairwise
from scoring.pairwise_agreement import Convention, count_table, pairwise_agreement

PANEL = "panel"
Orders = tuple[str | None, str | None]  # order states: A shown first, B shown first
Cell = tuple[str | None, str | None, str | None, int]


@dataclass(frozen=True)
class PreferenceAgreement:
    """One judge (or the panel) under every convention; the attribute names are the metrics'
    keys in `registry.PREFERENCE_AGREEMENT_METRICS`."""

    judge: str
    accuracy: Estimate
    accuracy_scored: Estimate
    accuracy_both_orders: Estimate
    agreement: Estimate
    accuracy_vote: Estimate
    kappa: Estimate
    agreement_without_ties: Estimate
    coverage_without_ties: Estimate
    consistency: Estimate
    flip_rate: Estimate
    position_bias: Estimate
    unscored_verdicts: int
    unscored_pairs: int

    @property
    def n_pairs(self) -> int:
        """The scored labelled pairs: those behind accuracy, agreement and kappa."""
        return self.agreement.n


def majority(verdicts: Sequence[str]) -> str | None:
    """The verdict more than half of the people gave, else None."""
    if not verdicts:
        return None
    verdict, count = Counter(verdicts).most_common(1)[0]
    return verdict if count * 2 > len(verdicts) else None


def panel_orders(judges: Iterable[Orders]) -> Orders:
    """The panel's two order states from its judges' order states on one pair."""
    judged = list(judges)
    return tuple(  # type: ignore[return-value]  # two orders in, two out
        pairwise.panel_order_verdict([o[i] for o in judged if o[i] != pairwise.NOT_JUDGED])
        for i in (0, 1)
    )


def _estimate(c: Convention) -> Estimate:
    return Estimate(c.estimate, c.low, c.high, c.n)


def _agreement(name: str, cells: Iterable[Cell]) -> PreferenceAgreement:
    found = pairwise_agreement(count_table(cells), n_resamples=N_RESAMPLES, seed=SEED)
    estimates = {
        key: _estimate(value) for key, value in vars(found).items() if isinstance(value, Convention)
    }
    return PreferenceAgreement(
        name,
        **estimates,
        unscored_verdicts=found.unscored_verdicts,
        unscored_pairs=found.unscored_pairs,
    )


def _panel_cell(cell: sql.PanelCell) -> Cell:
    def order(prefix: str) -> list[str | None]:
        counts = [getattr(cell, f"{prefix}_{k}") for k in ("a", "b", "tie", "unparsed")]
        return [v for v, n in zip(("A", "B", "tie", None), counts) for _ in range(n)]

    first, second = (pairwise.panel_order_verdict(order(p)) for p in ("a", "b"))
    return first, second, None, cell.count


def preference_agreements(
    labelled: Sequence[sql.LabelledPair],
    unlabelled: Sequence[sql.UnlabelledCell],
    panel_unlabelled: Sequence[sql.PanelCell],
) -> tuple[list[PreferenceAgreement], dict[str, dict[str, str]]]:
    """Every judge that judged a pair of the selection, then the panel, under every
    convention; and each labelled pair's people's verdicts (pair -> person -> verdict)."""
    judged: dict[str, dict[str, Orders]] = defaultdict(dict)
    for row in labelled:
        judged[row.pair][f"{row.rater_kind}:{row.rater}"] = order_states(row)
    people: dict[str, dict[str, str]] = {}
    cells: dict[str, list[Cell]] = defaultdict(list)
    for pair, raters in sorted(judged.items()):
        people[pair] = {
            r.split(":", 1)[1]: v
            for r, orders in raters.items()
            if r.startswith("human:") and (v := pairwise.pair_verdict(*orders)) is not None
        }
        label = majority(list(people[pair].values()))
        judges = {r.split(":", 1)[1]: o for r, o in raters.items() if r.startswith("llm:")}
        for judge, orders in judges.items():
            cells[judge].append((*orders, label, 1))
        if judges:
            cells[PANEL].append((*panel_orders(judges.values()), label, 1))
    for cell in unlabelled:
        first, second = order_states(cell)
        cells[cell.rater].append((first, second, None, cell.count))
    cells[PANEL].extend(_panel_cell(c) for c in panel_unlabelled)
    names = sorted(j for j in cells if j != PANEL)
    return [_agreement(name, cells[name]) for name in [*names, PANEL] if names], people
