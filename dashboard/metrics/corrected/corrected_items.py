"""The aggregates of `corrected_sql.estimate_rows` when each item is its own bootstrap unit,
built in numpy from the per-response scores: the same rows, in the same order.

On a million responses of four systems, the SQL form grouped the responses by item and
joined the items to themselves (1.5 million pairs) to count the panel's differences; here the
per-item means are a table of items by systems (`np.bincount`), and a pair of systems is two
of its columns. `estimate_rows` reads the per-response scores with
`corrected_sql.response_scores` and gives them to `rows_by_item`.

SQL's conventions are kept: a NULL (here NaN) takes no part in a mean, `round(x, 9)` rounds
half away from zero (`_round9`, as DuckDB's `round`), and the rows are sorted as
`ORDER BY ALL` sorts them (NULLs last), so that the bootstrap draws the same resamples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class EstimateRow:
    """One row of the corrected estimates' and paired comparisons' aggregates
    (`estimate_rows`), by `kind`:

    - "unlabelled": a system's responses the panel scored and no valid label covers:
      `a` = count, `b` = sum of f, `c` = sum of f squared, `d` = those with f >= pass_at;
    - "labelled": one response of a system with a valid label: `a` = f (None: the panel did
      not score it), `b` = y, `c` = w;
    - "panel": a bootstrap unit of the panel's differences between system_a and system_b
      (system_b minus system_a, system_a first by name): `a` = the sum of its items'
      differences, `b` = its items, `mult` = units with those sums;
    - "human": the same for people's valid differences: `a` = sum of w * difference, `b` =
      sum of w;
    - "unlabelled_diff": the panel's differences on the items without both valid labels, as
      "panel" rows; "moments": over those items, `a` = count, `b` = sum, `c` = sum of squares;
    - "labelled_diff": one item with both valid labels: `a` = the panel's difference, `b` =
      people's, `c` = its weight (the product of the two responses'), `unit` its unit."""

    kind: str
    system_a: str
    system_b: str | None
    unit: str | None
    a: float | None
    b: float | None
    c: float | None
    d: float | None
    mult: int


@dataclass(frozen=True)
class ResponseScores:
    """The per-response scores of a selection: `system` an index into `systems` (sorted by
    name), `item_key` the item's hash, `f`, `y`, `w` as `corrected_sql.per_response` (NaN:
    NULL), `labelled_ids` the response ids of the responses with a valid label (y), in the
    order of those responses."""

    systems: Sequence[str]
    system: np.ndarray
    item_key: np.ndarray
    f: np.ndarray
    y: np.ndarray
    w: np.ndarray
    labelled_ids: Sequence[str]


def _round9(x: np.ndarray) -> np.ndarray:
    """DuckDB's `round(x, 9)`: std::round(x * 1e9) / 1e9, half away from zero."""
    scaled = x * 1e9
    whole = np.trunc(scaled)
    return (whole + np.where(np.abs(scaled - whole) >= 0.5, np.sign(scaled), 0.0)) / 1e9


def _none_for_nan(value: float) -> float | None:
    return None if value != value else value  # NaN: NULL


def _value(x: Any) -> float | None:
    """A float of a row, None for NULL (NaN)."""
    return _none_for_nan(float(x))


def _per_system(s: ResponseScores, pass_at: float) -> list[EstimateRow]:
    rows = []
    unlabelled = ~np.isnan(s.f) & np.isnan(s.y)
    system, f = s.system[unlabelled], s.f[unlabelled]
    n_systems = len(s.systems)
    count = np.bincount(system, minlength=n_systems).tolist()
    total = np.bincount(system, weights=f, minlength=n_systems).tolist()
    squares = np.bincount(system, weights=f * f, minlength=n_systems).tolist()
    passes = np.bincount(system[f >= pass_at], minlength=n_systems).tolist()
    for index, name in enumerate(s.systems):
        if count[index]:
            sums = (float(count[index]), total[index], squares[index], float(passes[index]))
            rows.append(EstimateRow("unlabelled", name, None, None, *sums, 1))
    labelled = ~np.isnan(s.y)
    columns = (s.system[labelled].tolist(), *(v[labelled].tolist() for v in (s.f, s.y, s.w)))
    for (index, f_, y_, w_), response_id in zip(zip(*columns), s.labelled_ids, strict=True):
        values = (_none_for_nan(f_), _none_for_nan(y_), _none_for_nan(w_))
        rows.append(EstimateRow("labelled", s.systems[index], None, response_id, *values, None, 1))
    return rows


def _per_item(s: ResponseScores) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(item keys, then f, y, w as items x systems: the mean over the system's responses to
    the item, NaN where it has none or none of them has a value)."""
    keys, item = np.unique(s.item_key, return_inverse=True)
    n_systems = len(s.systems)
    cell = item.astype(np.int64) * n_systems + s.system
    size = len(keys) * n_systems

    def mean(values: np.ndarray) -> np.ndarray:
        known = ~np.isnan(values)
        total = np.bincount(cell[known], weights=values[known], minlength=size)
        count = np.bincount(cell[known], minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (total / count).reshape(len(keys), n_systems)

    return keys, mean(s.f), mean(s.y), mean(s.w)


def _counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.unique(values, return_counts=True)


def _pair_rows(
    a: str, b: str, keys: np.ndarray, f: np.ndarray, y: np.ndarray, w: np.ndarray
) -> list[EstimateRow]:
    """The rows of one pair of systems (a before b by name); `f`, `y`, `w` their two columns
    (a, b), `keys` the items."""
    rows = []
    scored = ~np.isnan(f[:, 0]) & ~np.isnan(f[:, 1])
    diff = f[scored, 1] - f[scored, 0]
    rounded = _round9(diff)
    values, counts = _counts(rounded)
    for value, n in zip(values.tolist(), counts.tolist(), strict=True):
        rows.append(EstimateRow("panel", a, b, None, value, 1.0, None, None, n))
    unlabelled = np.isnan(y[scored, 0]) | np.isnan(y[scored, 1])
    # The unlabelled items' counts: all but the few labelled ones (no second sort of them all).
    labelled_values, labelled_counts = _counts(rounded[~unlabelled])
    counts[np.searchsorted(values, labelled_values)] -= labelled_counts
    for value, n in zip(values.tolist(), counts.tolist(), strict=True):
        if n:
            rows.append(EstimateRow("unlabelled_diff", a, b, None, value, 1.0, None, None, n))
    if unlabelled.any():
        d = diff[unlabelled]
        sums = (float(len(d)), float(d.sum()), float((d * d).sum()))
        rows.append(EstimateRow("moments", a, b, None, *sums, None, 1))
    both = ~np.isnan(y[:, 0]) & ~np.isnan(y[:, 1])
    df = f[both, 1] - f[both, 0]
    dy = y[both, 1] - y[both, 0]
    weight = w[both, 0] * w[both, 1]
    human = np.stack([_round9(weight * dy), _round9(weight)], axis=1)
    if len(human):
        found, n = np.unique(human, axis=0, return_counts=True)
        for (numer, denom), count in zip(found, n, strict=True):
            rows.append(
                EstimateRow(
                    "human", a, b, None, _value(numer), _value(denom), None, None, int(count)
                )
            )
    for key, d_f, d_y, weight_ in zip(keys[both], df, dy, weight, strict=True):
        if not np.isnan(d_f):
            rows.append(
                EstimateRow(
                    "labelled_diff",
                    a,
                    b,
                    str(int(key)),
                    float(d_f),
                    float(d_y),
                    _value(weight_),
                    None,
                    1,
                )
            )
    return rows


def _order(row: EstimateRow) -> tuple:
    """`ORDER BY ALL`, NULLs last."""
    fields = (row.kind, row.system_a, row.system_b, row.unit, row.a, row.b, row.c, row.d)
    return (*((value is None, value) for value in fields), row.mult)


# Within the kinds of one row per response or item, a key that no two rows share, and that
# sorts them as `_order` does (a response belongs to one system; an item is paired once).
_UNIQUE_KEYS: dict[str, Callable[[EstimateRow], tuple]] = {
    "labelled": lambda row: (row.system_a, row.unit),
    "labelled_diff": lambda row: (row.system_a, row.system_b, row.unit),
}


def _sorted(rows: list[EstimateRow]) -> list[EstimateRow]:
    """The rows in `_order`, kind by kind: the ten thousand rows of the labelled responses
    sort by two fields, not nine."""
    kinds: dict[str, list[EstimateRow]] = {}
    for row in rows:
        kinds.setdefault(row.kind, []).append(row)
    return [
        row
        for kind in sorted(kinds)
        for row in sorted(kinds[kind], key=_UNIQUE_KEYS.get(kind, _order))
    ]


def rows_by_item(s: ResponseScores, *, pass_at: float) -> list[EstimateRow]:
    """Every aggregate of `corrected_sql.estimate_rows` with each item its own unit. The
    per-system sums and the pairs of systems are computed in two threads: numpy lets go of
    the GIL while it sorts and counts, so both cores work."""
    with ThreadPoolExecutor(2) as pool:
        per_system = pool.submit(_per_system, s, pass_at)
        keys, f, y, w = _per_item(s)
        pairs = [
            pool.submit(_pair_rows, a, s.systems[j], keys, f[:, [i, j]], y[:, [i, j]], w[:, [i, j]])
            for i, a in enumerate(s.systems)
            for j in range(i + 1, len(s.systems))
        ]
        rows = per_system.result()
        for pair in pairs:
            rows.extend(pair.result())
    return _sorted(rows)
