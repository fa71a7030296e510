"""Turning rating arrays into integer codes over a label scale, with missing values marked -1.

Missing means None, a float nan, or (in a numpy string array, where ``np.asarray`` has turned
nan into text) the string "nan".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

MISSING = -1
_FEW_LABELS = 16


def _is_number(v: object) -> bool:
    return v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))


def as_array(values: npt.ArrayLike) -> np.ndarray:
    """`values` as a numpy array; numbers mixed with None become floats with nan, while
    strings mixed with None stay Python objects."""
    if isinstance(values, np.ndarray):
        arr = values
    else:
        try:
            arr = np.asarray(values)
        except ValueError:  # ragged input
            arr = np.asarray(values, dtype=object)
    if arr.dtype.kind == "O" and all(_is_number(v) for v in arr.ravel().tolist()):
        return arr.astype(float)
    return arr


def missing_mask(arr: np.ndarray) -> np.ndarray:
    """True where `arr` holds a missing value."""
    kind = arr.dtype.kind
    if kind == "f":
        return np.isnan(arr)
    if kind in "iub":
        return np.zeros(arr.shape, dtype=bool)
    if kind in "US":
        return arr == arr.dtype.type("nan")
    flat = arr.ravel()
    mask = np.fromiter(
        (v is None or (isinstance(v, float) and v != v) for v in flat), dtype=bool, count=flat.size
    )
    return mask.reshape(arr.shape)


def _numeric(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "iufb"


def observed_domain(arr: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """Sorted distinct non-missing values of `arr`."""
    present = arr[~missing]
    if present.dtype.kind == "O":
        return np.asarray(sorted(set(present.tolist())), dtype=object)
    return np.unique(present)


def encode(
    values: npt.ArrayLike, labels: Sequence[object] | npt.ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(codes, domain): codes[i] is the position of values[i] in `domain`, or MISSING.

    `domain` is `labels` when given (its order is kept), else the sorted observed values.
    A non-missing value outside `labels` raises ValueError.
    """
    arr = as_array(values)
    missing = missing_mask(arr)
    domain = (
        observed_domain(arr, missing)
        if labels is None
        else as_array(cast(npt.ArrayLike, labels)).ravel()
    )
    if len(set(domain.tolist())) != len(domain):
        raise ValueError(f"labels must be distinct, got {domain.tolist()!r}")
    codes = np.full(arr.shape, MISSING, dtype=np.int64)
    if domain.size == 0:
        found = np.zeros(arr.shape, dtype=bool)
    elif _numeric(arr) and _numeric(domain) or arr.dtype.kind in "US" and domain.dtype.kind in "US":
        order = np.argsort(domain, kind="stable")
        ordered = domain[order]
        if len(domain) <= _FEW_LABELS and _numeric(arr):
            # A few vectorized comparisons beat a binary search per element on a rating scale.
            pos = np.zeros(arr.shape, dtype=np.intp)
            for value in ordered[:-1]:
                pos += arr > value
        else:
            pos = np.minimum(np.searchsorted(ordered, arr), len(domain) - 1)
        found = (ordered[pos] == arr) & ~missing
        codes = np.where(found, order[pos], MISSING)
    else:
        index = {v: i for i, v in enumerate(domain.tolist())}
        flat = arr.ravel().tolist()
        coded = np.fromiter((index.get(v, MISSING) for v in flat), dtype=np.int64, count=len(flat))
        codes = coded.reshape(arr.shape)
        found = codes != MISSING
    stray = ~found & ~missing
    if stray.any():
        example = arr[stray].ravel()[0]
        raise ValueError(
            f"value {example!r} is not in labels {domain.tolist()!r}; pass the full scale as "
            "labels, or use None/nan for a missing rating"
        )
    return codes, domain
