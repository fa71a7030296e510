"""Krippendorff's alpha for any number of raters, missing values and four levels of measurement.

alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck, where o is the
coincidence matrix of pairable values, n_c the marginal count of value c, n the number of
pairable values and d the squared distance of the level (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"). Nominal, interval and ordinal use closed forms of those
sums, so the cost is O(number of ratings) and never O(units x values) or O(values^2);
ratio needs the value pairs inside each unit and a values x values sum, so it refuses more
than MAX_RATIO_VALUES distinct values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from scoring._encode import MISSING, as_array, encode

ALPHA_LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
_RATIO_CHUNK = 1 << 22  # cells of the values x values block summed at a time
# The ratio level's expected disagreement costs O(distinct values^2); beyond this it would
# run for minutes, so we refuse instead of hanging.
MAX_RATIO_VALUES = 20_000


def _unit_value_counts(
    units: np.ndarray, codes: np.ndarray, n_units: int, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(unit, code, count) for every distinct (unit, value) pair, sorted by unit then code."""
    keys = units * n_values + codes
    if n_units * n_values <= 8 * keys.size:
        # Dense counting is faster than a sort when the table is not much bigger than the data.
        dense = np.bincount(keys, minlength=n_units * n_values)
        present = np.flatnonzero(dense)
        distinct, counts = present, dense[present]
    else:
        distinct, counts = np.unique(keys, return_counts=True)
    unit, code = np.divmod(distinct, n_values)
    return unit, code, counts.astype(float)


def _nominal_sums(
    units: np.ndarray, codes: np.ndarray, m_unit: np.ndarray, n_c: np.ndarray, n_units: int
) -> tuple[float, float]:
    unit, _, counts = _unit_value_counts(units, codes, n_units, n_c.size)
    same = np.bincount(unit, weights=counts**2, minlength=n_units)
    pairable = m_unit >= 2
    m = m_unit[pairable].astype(float)
    # Per unit, the ordered pairs with different values are m^2 - sum_v n_uv^2.
    observed = float(((m * m - same[pairable]) / (m - 1)).sum())
    n = n_c.sum()
    return observed, float(n * n - (n_c**2).sum())


def _interval_sums(
    units: np.ndarray, t: np.ndarray, m_unit: np.ndarray, n_units: int
) -> tuple[float, float]:
    t = t - t.mean()  # centring keeps the sums of squares below from cancelling
    s1 = np.bincount(units, weights=t, minlength=n_units)
    s2 = np.bincount(units, weights=t * t, minlength=n_units)
    pairable = m_unit >= 2
    m = m_unit[pairable].astype(float)
    # sum over ordered pairs i != j of (t_i - t_j)^2 is 2 (m sum t^2 - (sum t)^2)
    observed = float((2 * (m * s2[pairable] - s1[pairable] ** 2) / (m - 1)).sum())
    n = t.size
    return observed, float(2 * (n * (t * t).sum() - t.sum() ** 2))


def _ratio_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    total = x + y
    ratio = np.divide(x - y, total, out=np.zeros(np.broadcast(x, y).shape), where=total != 0)
    return ratio**2


def _ratio_sums(
    units: np.ndarray,
    codes: np.ndarray,
    m_unit: np.ndarray,
    n_c: np.ndarray,
    domain: np.ndarray,
    n_units: int,
) -> tuple[float, float]:
    unit, code, counts = _unit_value_counts(units, codes, n_units, n_c.size)
    # Pair every (unit, value) entry with every entry of the same unit.
    sizes = np.bincount(unit, minlength=n_units)[unit]
    starts = np.searchsorted(unit, unit)
    left = np.repeat(np.arange(unit.size), sizes)
    offset = np.arange(left.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    right = starts[left] + offset
    weight = counts[left] * counts[right] / (m_unit[unit[left]] - 1)
    observed = float((weight * _ratio_distance(domain[code[left]], domain[code[right]])).sum())
    expected = 0.0
    rows = max(1, _RATIO_CHUNK // max(1, domain.size))
    for start in range(0, domain.size, rows):
        block = _ratio_distance(domain[start : start + rows, None], domain[None, :])
        expected += float(n_c[start : start + rows] @ block @ n_c)
    return observed, expected


def krippendorff_alpha(
    data: npt.ArrayLike,
    *,
    level: str = "nominal",
    values: Sequence[object] | npt.ArrayLike | None = None,
) -> float:
    """Krippendorff's alpha of a raters x units matrix, missing ratings as None or nan.

    alpha = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck (Krippendorff 2011), with
    d for `level`: nominal [c != k]; interval (c - k)^2; ratio ((c - k) / (c + k))^2; ordinal
    (sum of n_g for g from c to k - (n_c + n_k) / 2)^2. `values` is the value scale: the
    order of an ordinal scale (required for ordinal string labels), and a check that no
    rating falls outside it; unobserved scale values do not change alpha. Matches the
    `krippendorff` package. Units rated by fewer than two raters are not pairable and are
    ignored. No pairable value (e.g. a single rater) or no variation at all (every rating
    the same value) gives nan. Cost is O(ratings) except for ratio, which is also
    O(distinct values^2) and raises ValueError beyond MAX_RATIO_VALUES distinct values.
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {ALPHA_LEVELS}, got {level!r}")
    arr = as_array(data)
    if arr.ndim != 2:
        raise ValueError(f"data must be 2-D (raters x units), got {arr.ndim} dimensions")
    if level == "ordinal" and values is None and arr.dtype.kind not in "iufb":
        raise ValueError("ordinal labels that are not numbers need their order: pass values=")
    codes, domain = encode(arr, values)
    present = codes != MISSING
    m_unit = present.sum(axis=0)
    pairable = present & (m_unit >= 2)[None, :]
    n_units = arr.shape[1]
    units = np.broadcast_to(np.arange(n_units), arr.shape)[pairable]
    c = codes[pairable]
    if c.size == 0:
        return math.nan
    n_c = np.bincount(c, minlength=domain.size).astype(float)
    if level == "nominal":
        observed, expected = _nominal_sums(units, c, m_unit, n_c, n_units)
    else:
        if level == "ordinal":
            scale = np.cumsum(n_c) - n_c / 2  # ordinal distance is interval distance here
        elif domain.dtype.kind in "iufb":
            scale = domain.astype(float)
        else:
            raise ValueError(f"level {level!r} needs numeric ratings, got {domain.dtype}")
        if level == "ratio":
            if domain.size > MAX_RATIO_VALUES:
                raise ValueError(
                    f"level 'ratio' with {domain.size} distinct values would take O(values^2) "
                    f"time; round the ratings to at most {MAX_RATIO_VALUES} distinct values"
                )
            observed, expected = _ratio_sums(units, c, m_unit, n_c, scale, n_units)
        else:
            observed, expected = _interval_sums(units, scale[c], m_unit, n_units)
    if expected <= 0:
        return math.nan
    return 1.0 - (c.size - 1) * observed / expected
