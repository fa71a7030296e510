"""Each judge's biases on one selection, with 95% intervals and n (docs/metrics.md, "Judge
bias"): length, position, self-preference, and the padding probe's shift.

Conventions:
- Ratings are in scale points of the selection's rubric (not normalized); length is per 100
  words (`scoring.bias.WORDS_PER_UNIT`).
- length: the OLS slope of (judge − people's mean rating) on the answer's length, over the
  responses both rated, when at least MIN_LABELLED are; else the judge's raw slope on every
  response it rated, with a warning (length and quality are confounded there).
- position: from pairs the judge gave a scored verdict in both orders (its runs, and the order
  probes): the share of non-tie verdicts for the answer shown first; pairs are resampled.
- self_preference: on responses of systems of the judge's own model family (panel files:
  `family` of a judge, `[system_families]`), the judge's rating minus the other judges' mean
  rating of the same response; needs a family for the judge and another judge's ratings.
- padding: the padding probe's rated copy minus the judge's current rating of the original.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dashboard.judging.panel import Panel, PanelError, load_panel
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.judge_qa import bias_sql as sql
from dashboard.metrics.selection import Selection
from dashboard.settings import panel_dirs
from dashboard.store import Store
from scoring import bias as scoring_bias

MIN_LABELLED = 10
CONFOUNDED = (
    "no people's ratings on enough of these answers: this is the raw slope of the judge's "
    "rating on length, and length and quality are confounded (longer answers may be better)"
)


@dataclass(frozen=True)
class Families:
    """Model families of judges and systems, from panel files."""

    judges: Mapping[str, str] = field(default_factory=dict)
    systems: Mapping[str, str] = field(default_factory=dict)


def families_of(panels: Iterable[Panel]) -> Families:
    judges: dict[str, str] = {}
    systems: dict[str, str] = {}
    for panel in panels:
        judges.update(panel.judge_families())
        systems.update(panel.system_families)
    return Families(judges, systems)


def default_families() -> Families:
    """The families every readable panel file names, the user's folder's and data/panels/
    (a bad file is skipped: the Run judges page says why)."""
    panels = []
    for path in (p for folder in panel_dirs() for p in sorted(folder.glob("*.toml"))):
        try:
            panels.append(load_panel(path))
        except PanelError:
            continue
    return families_of(panels)


@dataclass(frozen=True)
class JudgeBias:
    judge: str
    family: str | None
    length: Estimate | None
    length_beyond_people: bool  # False: the raw, confounded slope
    position: Estimate | None
    self_preference: Estimate | None
    padding: Estimate | None


@dataclass(frozen=True)
class Bias:
    selection: Selection
    judges: tuple[JudgeBias, ...]
    warnings: Mapping[str, str]  # metric name -> why to read it with care


def _estimate(ci: scoring_bias.CI, n: int) -> Estimate | None:
    return None if n == 0 or math.isnan(ci.estimate) else Estimate.of(ci, n)


_OPTIONS = {"n_resamples": N_RESAMPLES, "seed": SEED}


def _length(judge: str, rows: Sequence[sql.SizedRating]) -> tuple[Estimate | None, bool]:
    mine = {r.response_id: r for r in rows if r.rater_kind == "llm" and r.rater == judge}
    people: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.rater_kind == "human":
            people[r.response_id].append(r.value)
    both = sorted(set(mine) & set(people))
    if len(both) >= MIN_LABELLED:
        words = [mine[k].words for k in both]
        ci = scoring_bias.length_slope(
            words,
            [mine[k].value for k in both],
            [float(np.mean(people[k])) for k in both],
            **_OPTIONS,
        )
        return _estimate(ci, len(both)), True
    keys = sorted(mine)
    ci = scoring_bias.length_slope(
        [mine[k].words for k in keys], [mine[k].value for k in keys], **_OPTIONS
    )
    return _estimate(ci, len(keys)), False


def _position(pairs: Sequence[sql.BothOrders]) -> Estimate | None:
    first = [int(p.shown_a_first == "A") + int(p.shown_b_first == "B") for p in pairs]
    decided = [int(p.shown_a_first != "tie") + int(p.shown_b_first != "tie") for p in pairs]
    ci = scoring_bias.position_share(first, decided, **_OPTIONS)
    return _estimate(ci, int(sum(decided)))


def _self_preference(
    judge: str, family: str | None, rows: Sequence[sql.SizedRating], families: Families
) -> Estimate | None:
    if family is None:
        return None
    by_response: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        if r.rater_kind == "llm" and families.systems.get(r.system) == family:
            by_response[r.response_id][r.rater] = r.value
    keys = [k for k, v in sorted(by_response.items()) if judge in v and len(v) > 1]
    own = [by_response[k][judge] for k in keys]
    others = [np.mean([x for j, x in by_response[k].items() if j != judge]) for k in keys]
    return _estimate(scoring_bias.self_preference(own, others, **_OPTIONS), len(keys))


def _padding(rows: Sequence[sql.PaddedPair]) -> Estimate | None:
    ci = scoring_bias.shift([r.original for r in rows], [r.padded for r in rows], **_OPTIONS)
    return _estimate(ci, len(rows))


def _merge_orders(
    judged: Sequence[sql.BothOrders], probed: Sequence[sql.BothOrders]
) -> dict[str, list[sql.BothOrders]]:
    """Per judge, its both-order pairs: from its runs, and the order probes of other pairs."""
    found: dict[tuple[str, str], sql.BothOrders] = {(p.rater, p.pair): p for p in probed}
    found.update({(p.rater, p.pair): p for p in judged})
    per_judge: dict[str, list[sql.BothOrders]] = defaultdict(list)
    for (rater, _), pair in sorted(found.items()):
        per_judge[rater].append(pair)
    return per_judge


def bias(store: Store, selection: Selection, *, families: Families | None = None) -> Bias:
    """Every judge's biases on the selection (`families`: default, every panel file's)."""
    families = default_families() if families is None else families
    selection = with_default_rubric(store, selection)
    with store.connection() as con:
        rows = sql.sized_ratings(con, selection) if selection.rubric else []
        padded = sql.padding_pairs(con, selection) if selection.rubric else []
        orders = _merge_orders(
            sql.both_order_verdicts(con, selection), sql.order_probe_verdicts(con, selection)
        )
    raters = {r.rater for r in rows if r.rater_kind == "llm"} | set(orders)
    judges, warnings = [], {}
    for judge in sorted(raters):
        length, beyond = _length(judge, rows) if selection.rubric else (None, False)
        if length is not None and not beyond:
            warnings[f"bias.{judge}.length"] = CONFOUNDED
        family = families.judges.get(judge)
        judges.append(
            JudgeBias(
                judge,
                family,
                length,
                beyond,
                _position(orders[judge]) if orders.get(judge) else None,
                _self_preference(judge, family, rows, families),
                _padding([p for p in padded if p.rater == judge]),
            )
        )
    return Bias(selection, tuple(judges), warnings)
