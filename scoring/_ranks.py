"""Rank helpers for the rank correlations: average ranks, tie counts, inversion counts."""

from __future__ import annotations

import numpy as np


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of `x`, tied values sharing the mean of their ranks (scipy's 'average')."""
    n = x.size
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    new_group = np.r_[True, ordered[1:] != ordered[:-1]]
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.r_[starts, n])
    group_rank = starts + (sizes + 1) / 2.0
    ranks = np.empty(n, dtype=float)
    ranks[order] = np.repeat(group_rank, sizes)
    return ranks


def tied_pairs(*columns: np.ndarray) -> int:
    """Number of pairs equal on every column: sum over tie groups of t(t-1)/2."""
    n = columns[0].size
    if n < 2:
        return 0
    order = np.lexsort(columns[::-1])
    changed = np.zeros(n - 1, dtype=bool)
    for col in columns:
        ordered = col[order]
        changed |= ordered[1:] != ordered[:-1]
    sizes = np.diff(np.r_[0, np.flatnonzero(changed) + 1, n])
    return int((sizes * (sizes - 1) // 2).sum())


def count_inversions(x: np.ndarray) -> int:
    """Number of pairs i < j with x[i] > x[j] (ties are not inversions).

    Bottom-up merge sort on dense ranks, each level done with one sort and two binary searches
    instead of a Python merge loop: O(n log^2 n) time, O(n) memory.
    """
    n = x.size
    if n < 2:
        return 0
    ranks = np.unique(x, return_inverse=True)[1].astype(np.int64).ravel()
    position = np.arange(n, dtype=np.int64)
    total = 0
    width = 1
    while width < n:
        block = position // width
        pair = block // 2
        is_right = (block % 2).astype(bool)
        # Keys are sorted within each block and increase with the pair, so the left halves
        # concatenated form one sorted array that a single searchsorted can query.
        keys = pair * n + ranks
        left_keys = keys[~is_right]
        right_keys = keys[is_right]
        above = np.searchsorted(left_keys, right_keys, side="right")
        block_end = np.searchsorted(left_keys, (pair[is_right] + 1) * n, side="left")
        total += int((block_end - above).sum())
        ranks = np.sort(keys) - (position // (2 * width)) * n
        width *= 2
    return total
