"""Many runs in one Frank-Wolfe engine call: each group of columns gets its own selector
and its own screening hook (the experiments batch every run of one data set and budget)."""
from __future__ import annotations

import numpy as np

from dplasso.privacy.selection import report_noisy_min

__all__ = ["ColumnCallback", "ColumnSelector", "ScaledNoisyMinSelector"]


class ColumnSelector:
    """Selector ``select(scores, rng)`` giving each group of columns its own selector.

    Parameters
    ----------
    groups : sequence of (array of int, callable)
        Column indices and the selector of those columns; together they cover the columns
        ``0..K-1`` once each (empty groups are dropped).
    """

    def __init__(self, groups):
        self._groups = [(np.asarray(cols), select) for cols, select in groups if len(cols)]
        self._n_trials = sum(cols.size for cols, _ in self._groups)

    def __call__(self, scores, rng):
        chosen = np.empty(self._n_trials, dtype=np.intp)
        for cols, select in self._groups:
            chosen[cols] = select(scores[:, cols], rng)
        return chosen


class ScaledNoisyMinSelector:
    """Report-noisy-min with its own Laplace scale per column, in one draw.

    ``argmin_i (s_i + b_k N_i) = argmin_i (s_i / b_k + N_i)`` for ``b_k > 0``, so column ``k``
    selects exactly as :class:`dplasso.privacy.selection.ReportNoisyMinSelector` at scale
    ``b_k`` would (the same law; a different random stream).

    Parameters
    ----------
    scales : array-like of shape (K,)
        The Laplace scale of each column, ``> 0``.
    """

    def __init__(self, scales):
        self._scales = np.asarray(scales, dtype=np.float64)
        if self._scales.ndim != 1 or not (self._scales > 0).all():
            raise ValueError("scales must be a vector of numbers > 0")

    def __call__(self, scores, rng):
        return report_noisy_min(scores / self._scales, 1.0, rng)


class ColumnCallback:
    """Engine callback giving each group of columns its own screening callback.

    Parameters
    ----------
    groups : sequence of (array of int, callable)
        Column indices and the callback of those columns (empty groups are dropped); the
        other columns are never masked.
    """

    def __init__(self, groups):
        self.groups = [(np.asarray(cols), callback) for cols, callback in groups if len(cols)]

    def __call__(self, t, W, G, gap):
        mask = None
        for cols, callback in self.groups:
            group_mask = callback(t, W[:, cols], G[:, cols], gap[cols])
            if group_mask is not None:
                if mask is None:
                    mask = np.zeros(W.shape, dtype=bool)
                mask[:, cols] = group_mask
        return mask
